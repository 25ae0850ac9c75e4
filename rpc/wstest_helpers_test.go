package rpc

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/wire"
	"github.com/gorilla/websocket"
)

// wsConn is a test websocket client that keeps notifications read while
// waiting for a reply, and replies read while waiting for a notification.
type wsConn struct {
	t       testing.TB
	c       *websocket.Conn
	id      int
	pending []map[string]json.RawMessage
}

// wsURL turns a startServer URL into its /ws endpoint.
func wsURL(httpURL string) string {
	return "ws" + strings.TrimPrefix(httpURL, "http") + "ws"
}

func basicAuth(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// wsDial connects, with the test credentials in the upgrade request when
// auth is set.
func wsDial(t testing.TB, httpURL string, auth bool) *wsConn {
	t.Helper()
	h := http.Header{}
	if auth {
		h.Set("Authorization", basicAuth(testUser, testPass))
	}
	d := websocket.Dialer{HandshakeTimeout: 5 * time.Second}
	c, resp, err := d.Dial(wsURL(httpURL), h)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial: %v (HTTP %d)", err, status)
	}
	t.Cleanup(func() { c.Close() })
	return &wsConn{t: t, c: c}
}

// read returns the next message object (a reply or a notification).
func (w *wsConn) read() map[string]json.RawMessage {
	w.t.Helper()
	if len(w.pending) > 0 {
		m := w.pending[0]
		w.pending = w.pending[1:]
		return m
	}
	return w.readWire()
}

func (w *wsConn) readWire() map[string]json.RawMessage {
	w.t.Helper()
	w.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, b, err := w.c.ReadMessage()
	if err != nil {
		w.t.Fatalf("read: %v", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		w.t.Fatalf("bad message %q: %v", b, err)
	}
	return m
}

// call sends a JSON-RPC 1.0 call and waits for its reply.
func (w *wsConn) call(method string, params ...any) reply {
	w.t.Helper()
	w.id++
	if params == nil {
		params = []any{}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "1.0", "id": w.id, "method": method, "params": params})
	if err := w.c.WriteMessage(websocket.TextMessage, body); err != nil {
		w.t.Fatalf("write: %v", err)
	}
	want, _ := json.Marshal(w.id)
	for i := 0; i < 1000; i++ {
		m := w.readWire()
		if _, isNtfn := m["method"]; isNtfn {
			w.pending = append(w.pending, m)
			continue
		}
		if string(m["id"]) != string(want) {
			w.t.Fatalf("reply for id %s while waiting for %s", m["id"], want)
		}
		r := reply{raw: m, Result: m["result"]}
		if e, ok := m["error"]; ok && string(e) != "null" {
			r.Error = &Error{}
			json.Unmarshal(e, r.Error)
		}
		return r
	}
	w.t.Fatalf("no reply to %s", method)
	return reply{}
}

// ok calls and fails the test on an error reply.
func (w *wsConn) ok(method string, params ...any) json.RawMessage {
	w.t.Helper()
	r := w.call(method, params...)
	if r.Error != nil {
		w.t.Fatalf("%s: error %d %s", method, r.Error.Code, r.Error.Message)
	}
	return r.Result
}

// next waits for the next notification and checks its method and the
// JSON-RPC 1.0 notification form.
func (w *wsConn) next(method string) []json.RawMessage {
	w.t.Helper()
	m := w.read()
	if string(m["method"]) != `"`+method+`"` {
		w.t.Fatalf("got %s notification, want %s: %v", m["method"], method, m)
	}
	if string(m["jsonrpc"]) != `"1.0"` || string(m["id"]) != "null" {
		w.t.Fatalf("notification not in btcd's form: %v", m)
	}
	var params []json.RawMessage
	if err := json.Unmarshal(m["params"], &params); err != nil {
		w.t.Fatalf("params: %v", err)
	}
	return params
}

// quiet checks that no message arrives for a short while.
func (w *wsConn) quiet() {
	w.t.Helper()
	if len(w.pending) > 0 {
		w.t.Fatalf("unexpected message %v", w.pending[0])
	}
	w.c.SetReadDeadline(time.Now().Add(150 * time.Millisecond))
	if _, b, err := w.c.ReadMessage(); err == nil {
		w.t.Fatalf("unexpected message %s", b)
	}
	// A read deadline breaks a gorilla connection; callers use quiet
	// last.
}

// wsChain is a small active chain for the websocket tests: blocks[i]
// is at height i.
type wsChain struct {
	blocks []*wire.MsgBlock
	hashes []wire.Hash
	filter *BlockFilter
}

// wsCoinbaseTx is a coinbase at height paying value to script.
func wsCoinbaseTx(height int32, value int64, script []byte) *wire.MsgTx {
	return &wire.MsgTx{
		Version: 2,
		TxIn: []wire.TxIn{{
			PreviousOutPoint: wire.OutPoint{Index: 0xffffffff},
			SignatureScript:  []byte{0x02, byte(height), byte(height >> 8)},
			Sequence:         0xffffffff,
		}},
		TxOut: []wire.TxOut{{Value: value, PkScript: script}},
	}
}

// wsSpendTx spends op paying value to script, with sigScript as its
// input's script.
func wsSpendTx(op wire.OutPoint, sigScript []byte, value int64, script []byte) *wire.MsgTx {
	return &wire.MsgTx{
		Version:  2,
		TxIn:     []wire.TxIn{{PreviousOutPoint: op, SignatureScript: sigScript, Sequence: 0xfffffffe}},
		TxOut:    []wire.TxOut{{Value: value, PkScript: script}},
		LockTime: 0,
	}
}

// add appends a block holding txs (after a generated coinbase paying to
// OP_TRUE) and returns it.
func (f *wsChain) add(txs ...*wire.MsgTx) *wire.MsgBlock {
	height := int32(len(f.blocks))
	var prev wire.Hash
	if height > 0 {
		prev = f.hashes[height-1]
	}
	b := &wire.MsgBlock{
		Header:       wire.BlockHeader{Version: 4, PrevBlock: prev, Timestamp: 1_600_000_000 + uint32(height)*600, Bits: 0x207fffff},
		Transactions: append([]*wire.MsgTx{wsCoinbaseTx(height, 50e8, []byte{0x51})}, txs...),
	}
	f.blocks = append(f.blocks, b)
	f.hashes = append(f.hashes, b.BlockHash())
	return b
}

func (f *wsChain) find(h wire.Hash) int {
	for i, x := range f.hashes {
		if x == h {
			return i
		}
	}
	return -1
}

func (f *wsChain) backend() *ChainBackend {
	return &ChainBackend{
		BestBlock: func() (wire.Hash, int32, error) {
			n := len(f.hashes) - 1
			return f.hashes[n], int32(n), nil
		},
		BlockHash: func(height int32) (wire.Hash, error) {
			if height < 0 || int(height) >= len(f.hashes) {
				return wire.Hash{}, ErrBlockHeightOutOfRange
			}
			return f.hashes[height], nil
		},
		BlockHeader: func(h wire.Hash) (*wire.BlockHeader, *BlockHeaderInfo, error) {
			i := f.find(h)
			if i < 0 {
				return nil, nil, ErrBlockNotFound
			}
			return &f.blocks[i].Header, &BlockHeaderInfo{Height: int32(i), Confirmations: int64(len(f.blocks) - i)}, nil
		},
		Block: func(h wire.Hash) (*wire.MsgBlock, error) {
			i := f.find(h)
			if i < 0 {
				return nil, ErrBlockNotFound
			}
			return f.blocks[i], nil
		},
		BlockFilter: func(h wire.Hash, _ string) (*BlockFilter, error) {
			if f.filter == nil || f.find(h) < 0 {
				return nil, ErrBlockNotFound
			}
			return f.filter, nil
		},
	}
}

// testAddr returns a regtest P2WPKH address and its script.
func testAddr(seed byte) (string, []byte) {
	prog := make([]byte, 20)
	for i := range prog {
		prog[i] = seed
	}
	a := address{kind: addrWitness, program: prog}
	net := NetParamsOf(&chaincfg.RegressionNetParams)
	return a.encode(&net), a.script()
}
