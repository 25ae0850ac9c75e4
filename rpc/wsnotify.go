package rpc

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/btcnode/btcd/wire"
)

// This file fans chain and mempool events out to websocket clients
// (btcd's notification manager): blockconnected/blockdisconnected and
// their filtered forms, txaccepted/txacceptedverbose, relevanttxaccepted
// for the transaction filter of loadtxfilter, and the deprecated
// recvtx/redeemingtx of notifyreceived/notifyspent.

// maxWatchEntries bounds the addresses and outpoints a client may load
// into one watch set (the entries a match adds on its own are not
// counted against it).
const maxWatchEntries = 1 << 20

// hubQueue is how many events may wait for the hub's goroutine; beyond it
// the node's notifying goroutine waits (the hub itself never blocks).
const hubQueue = 256

// wsHub tracks the websocket clients and delivers events to them on one
// goroutine, in the order the node reported them.
type wsHub struct {
	once     sync.Once
	reserved atomic.Int32 // connection slots taken, upgraded or not

	mu      sync.Mutex
	clients map[*wsClient]struct{}
	stopped bool

	events chan func()
	quit   chan struct{}
}

// wsSubscriptions is what one client asked to hear about.
type wsSubscriptions struct {
	blocks  bool      // notifyblocks
	txs     bool      // notifynewtransactions
	verbose bool      // ... with verbose set
	filter  *watchSet // loadtxfilter
	watch   *watchSet // notifyreceived and notifyspent (deprecated)
}

// hub returns the server's hub, starting its goroutine on first use.
func (s *Server) hub() *wsHub {
	h := &s.ws
	h.once.Do(func() {
		h.clients = map[*wsClient]struct{}{}
		h.events = make(chan func(), hubQueue)
		h.quit = make(chan struct{})
		go h.run()
	})
	return h
}

func (h *wsHub) run() {
	for {
		select {
		case fn := <-h.events:
			fn()
		case <-h.quit:
			return
		}
	}
}

// post hands fn to the hub's goroutine.
func (h *wsHub) post(fn func()) {
	select {
	case h.events <- fn:
	case <-h.quit:
	}
}

// reserve takes a connection slot if fewer than max are taken.
func (h *wsHub) reserve(max int) bool {
	for {
		n := h.reserved.Load()
		if int(n) >= max {
			return false
		}
		if h.reserved.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

func (h *wsHub) release() { h.reserved.Add(-1) }

func (h *wsHub) add(c *wsClient) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return false
	}
	h.clients[c] = struct{}{}
	return true
}

func (h *wsHub) remove(c *wsClient) {
	h.mu.Lock()
	delete(h.clients, c)
	h.mu.Unlock()
	h.release()
}

// closeWebsockets disconnects every websocket client and refuses new
// ones (Stop).
func (s *Server) closeWebsockets() {
	h := s.hub()
	h.mu.Lock()
	if h.stopped {
		h.mu.Unlock()
		return
	}
	h.stopped = true
	for c := range h.clients {
		c.close()
	}
	h.mu.Unlock()
	close(h.quit)
}

// WebsocketClients returns the number of connected websocket clients.
func (s *Server) WebsocketClients() int { return int(s.ws.reserved.Load()) }

// NotifyBlockConnected tells websocket clients that block (hash, height)
// joined the active chain. The block must not be modified afterwards. It
// returns at once when no client is connected.
func (s *Server) NotifyBlockConnected(block *wire.MsgBlock, hash wire.Hash, height int32) {
	if s.ws.reserved.Load() == 0 {
		return
	}
	h := s.hub()
	h.post(func() { h.blockConnected(s, block, hash, height) })
}

// NotifyBlockDisconnected tells websocket clients that block (hash,
// height) left the active chain.
func (s *Server) NotifyBlockDisconnected(block *wire.MsgBlock, hash wire.Hash, height int32) {
	if s.ws.reserved.Load() == 0 {
		return
	}
	h := s.hub()
	h.post(func() { h.blockDisconnected(block, hash, height) })
}

// NotifyTxAccepted tells websocket clients that tx entered the mempool.
// The transaction must not be modified afterwards.
func (s *Server) NotifyTxAccepted(tx *wire.MsgTx) {
	if s.ws.reserved.Load() == 0 {
		return
	}
	h := s.hub()
	h.post(func() { h.txAccepted(s, tx) })
}

// wsNotification is a notification as btcd marshals it: a JSON-RPC 1.0
// request with a null id.
type wsNotification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  []any  `json:"params"`
	ID      any    `json:"id"`
}

func notification(method string, params ...any) []byte {
	if params == nil {
		params = []any{}
	}
	b, err := encodeJSON(wsNotification{JSONRPC: "1.0", Method: method, Params: params})
	if err != nil {
		log.Errorf("RPC: cannot encode %s notification: %v", method, err)
		return nil
	}
	return b
}

// blockDetails is where a transaction of recvtx/redeemingtx was mined.
type blockDetails struct {
	Height int32  `json:"height"`
	Hash   string `json:"hash"`
	Index  int    `json:"index"`
	Time   int64  `json:"time"`
}

// lazyHex hex-encodes a block's transactions on first need.
type lazyHex struct {
	txs []*wire.MsgTx
	hex []string
}

func (l *lazyHex) get(i int) string {
	if l.hex == nil {
		l.hex = make([]string, len(l.txs))
	}
	if l.hex[i] == "" {
		l.hex[i] = hex.EncodeToString(l.txs[i].Bytes())
	}
	return l.hex[i]
}

func (h *wsHub) blockConnected(s *Server, b *wire.MsgBlock, hash wire.Hash, height int32) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.clients) == 0 {
		return
	}
	txids := b.TxHashes()
	hexes := lazyHex{txs: b.Transactions}
	// The deprecated per-transaction notifications come first, as in
	// btcd.
	for c := range h.clients {
		if c.sub.watch.empty() {
			continue
		}
		for i, tx := range b.Transactions {
			det := &blockDetails{Height: height, Hash: hash.String(), Index: i, Time: int64(b.Header.Timestamp)}
			c.notifyForTx(tx, txids[i], func() string { return hexes.get(i) }, det)
		}
	}
	var connected []byte
	var header string
	for c := range h.clients {
		if !c.sub.blocks {
			continue
		}
		if connected == nil {
			connected = notification("blockconnected", hash.String(), height, int64(b.Header.Timestamp))
			header = hex.EncodeToString(b.Header.AppendTo(nil))
		}
		c.send(connected)
		matched := []string{}
		if f := c.sub.filter; f != nil {
			for i, tx := range b.Transactions {
				if f.matchTx(tx, txids[i]) {
					matched = append(matched, hexes.get(i))
				}
			}
		}
		c.send(notification("filteredblockconnected", height, header, matched))
	}
}

func (h *wsHub) blockDisconnected(b *wire.MsgBlock, hash wire.Hash, height int32) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var disc, filtered []byte
	for c := range h.clients {
		if !c.sub.blocks {
			continue
		}
		if disc == nil {
			disc = notification("blockdisconnected", hash.String(), height, int64(b.Header.Timestamp))
			filtered = notification("filteredblockdisconnected", height, hex.EncodeToString(b.Header.AppendTo(nil)))
		}
		c.send(disc)
		c.send(filtered)
	}
}

func (h *wsHub) txAccepted(s *Server, tx *wire.MsgTx) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.clients) == 0 {
		return
	}
	txid := tx.TxHash()
	var txHex string
	getHex := func() string {
		if txHex == "" {
			txHex = hex.EncodeToString(tx.Bytes())
		}
		return txHex
	}
	var plain, verbose []byte
	for c := range h.clients {
		if c.sub.txs {
			if c.sub.verbose {
				if verbose == nil {
					verbose = notification("txacceptedverbose", txToResult(tx, &s.cfg.Net, true, nil, false))
				}
				c.send(verbose)
			} else {
				if plain == nil {
					var sum int64
					for i := range tx.TxOut {
						sum += tx.TxOut[i].Value
					}
					plain = notification("txaccepted", txid.String(), formatBTC(sum))
				}
				c.send(plain)
			}
		}
		if !c.sub.watch.empty() {
			c.notifyForTx(tx, txid, getHex, nil)
		}
		if f := c.sub.filter; f != nil && f.matchTx(tx, txid) {
			c.send(notification("relevanttxaccepted", getHex()))
		}
	}
}

// notifyForTx sends the deprecated redeemingtx (tx spends a watched
// outpoint; a mined spend ends the watch) and recvtx (tx pays a watched
// address; the output is watched from then on) notifications. det is nil
// for a mempool transaction. Called with the hub locked.
func (c *wsClient) notifyForTx(tx *wire.MsgTx, txid wire.Hash, txHex func() string, det *blockDetails) {
	w := c.sub.watch
	spent := false
	for i := range tx.TxIn {
		op := tx.TxIn[i].PreviousOutPoint
		if _, ok := w.ops[op]; !ok {
			continue
		}
		if det != nil {
			delete(w.ops, op)
		}
		if !spent {
			spent = true
			c.send(txNotification("redeemingtx", txHex(), det))
		}
	}
	recv := false
	for i := range tx.TxOut {
		if !w.paysTo(tx.TxOut[i].PkScript) {
			continue
		}
		w.ops[wire.OutPoint{Hash: txid, Index: uint32(i)}] = struct{}{}
		if !recv {
			recv = true
			c.send(txNotification("recvtx", txHex(), det))
		}
	}
}

// txNotification is recvtx or redeemingtx: the transaction's hex and,
// when mined, its block's details.
func txNotification(method, txHex string, det *blockDetails) []byte {
	if det == nil {
		return notification(method, txHex)
	}
	return notification(method, txHex, det)
}

// watchSet is a set of addresses (by output script) and outpoints: a
// client's transaction filter or its deprecated watch list.
type watchSet struct {
	scripts map[string]struct{}
	// pkh holds the P2PKH addresses' key hashes, so that a pay-to-pubkey
	// output to the same key matches as in btcd.
	pkh map[[20]byte]struct{}
	ops map[wire.OutPoint]struct{}
}

func newWatchSet() *watchSet {
	return &watchSet{scripts: map[string]struct{}{}, pkh: map[[20]byte]struct{}{}, ops: map[wire.OutPoint]struct{}{}}
}

func (w *watchSet) empty() bool {
	return w == nil || (len(w.scripts) == 0 && len(w.ops) == 0)
}

func (w *watchSet) size() int { return len(w.scripts) + len(w.ops) }

func (w *watchSet) addAddress(a address) {
	w.scripts[string(a.script())] = struct{}{}
	if a.kind == addrP2PKH {
		w.pkh[[20]byte(a.program)] = struct{}{}
	}
}

func (w *watchSet) removeAddress(a address) {
	delete(w.scripts, string(a.script()))
	if a.kind == addrP2PKH {
		delete(w.pkh, [20]byte(a.program))
	}
}

// paysTo reports whether an output script pays one of the addresses.
func (w *watchSet) paysTo(pkScript []byte) bool {
	if _, ok := w.scripts[string(pkScript)]; ok {
		return true
	}
	if len(w.pkh) == 0 {
		return false
	}
	if k := payToPubKey(pkScript); k != nil {
		_, ok := w.pkh[hash160(k)]
		return ok
	}
	return false
}

// payToPubKey returns the key of a pay-to-pubkey script, or nil.
func payToPubKey(s []byte) []byte {
	const checksig = 0xac
	if len(s) == 35 && s[0] == 33 && s[34] == checksig {
		return s[1:34]
	}
	if len(s) == 67 && s[0] == 65 && s[66] == checksig {
		return s[1:66]
	}
	return nil
}

// matchTx reports whether tx spends one of the outpoints or pays one of
// the addresses, adding the outputs that pay them to the outpoints (their
// spends are relevant too), as btcd's filter does.
func (w *watchSet) matchTx(tx *wire.MsgTx, txid wire.Hash) bool {
	match := false
	if len(w.ops) > 0 && !tx.IsCoinBase() {
		for i := range tx.TxIn {
			if _, ok := w.ops[tx.TxIn[i].PreviousOutPoint]; ok {
				match = true
				break
			}
		}
	}
	for i := range tx.TxOut {
		if w.paysTo(tx.TxOut[i].PkScript) {
			w.ops[wire.OutPoint{Hash: txid, Index: uint32(i)}] = struct{}{}
			match = true
		}
	}
	return match
}

// spendsAddress reports whether an input's script and witness show it
// spends an output paying one of the addresses (P2PKH, P2SH, P2WPKH and
// P2WSH spends reveal it), as btcd's rescan checks.
func (w *watchSet) spendsAddress(in *wire.TxIn) bool {
	if len(w.scripts) == 0 {
		return false
	}
	var cand [][]byte
	if len(in.SignatureScript) == 0 && len(in.Witness) > 0 {
		last := in.Witness[len(in.Witness)-1]
		if len(in.Witness) == 2 && len(last) == 33 {
			h := hash160(last)
			cand = append(cand, append([]byte{0x00, 0x14}, h[:]...))
		}
		sh := sha256.Sum256(last)
		cand = append(cand, append([]byte{0x00, 0x20}, sh[:]...))
	} else if last := lastPush(in.SignatureScript); last != nil {
		h := hash160(last)
		cand = append(cand, append(append([]byte{0xa9, 0x14}, h[:]...), 0x87))
		if len(last) == 33 || len(last) == 65 {
			cand = append(cand, append(append([]byte{0x76, 0xa9, 0x14}, h[:]...), 0x88, 0xac))
		}
	}
	for _, s := range cand {
		if _, ok := w.scripts[string(s)]; ok {
			return true
		}
	}
	return false
}

// lastPush returns the data of a push-only script's last push, or nil.
func lastPush(script []byte) []byte {
	var last []byte
	for pc := 0; pc < len(script); {
		op, data, next, ok := getOp(script, pc)
		if !ok || op > 0x60 {
			return nil
		}
		last, pc = data, next
	}
	return last
}

// outPointArg is an outpoint as btcd's websocket methods take it.
type outPointArg struct {
	Hash  string `json:"hash"`
	Index uint32 `json:"index"`
}

// parseOutPoints decodes an array of {"hash", "index"} objects; bad
// hashes fail with btcd's -22 message.
func parseOutPoints(raw json.RawMessage) ([]wire.OutPoint, error) {
	if raw == nil {
		return nil, nil
	}
	var args []outPointArg
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, NewError(ErrType, "Expected an array of {\"hash\", \"index\"} objects")
	}
	ops := make([]wire.OutPoint, len(args))
	for i, a := range args {
		h, err := wire.NewHashFromStr(a.Hash)
		if err != nil {
			return nil, Errorf(ErrDeserialization, "Argument must be hexadecimal string (not %q)", a.Hash)
		}
		ops[i] = wire.OutPoint{Hash: h, Index: a.Index}
	}
	return ops, nil
}

// parseAddressList decodes an array of address strings for the network.
// With strict, an invalid one fails with btcd's -5 message; otherwise it
// is skipped (loadtxfilter's behaviour).
func parseAddressList(s *Server, raw json.RawMessage, strict bool) ([]address, error) {
	if raw == nil {
		return nil, nil
	}
	var strs []string
	if err := json.Unmarshal(raw, &strs); err != nil {
		return nil, NewError(ErrType, "Expected an array of address strings")
	}
	out := make([]address, 0, len(strs))
	for _, str := range strs {
		a, msg := decodeAddress(str, &s.cfg.Net)
		if msg != "" {
			if strict {
				return nil, Errorf(ErrInvalidAddress, "Invalid address or key: %v", str)
			}
			continue
		}
		out = append(out, a)
	}
	return out, nil
}

var errWatchTooLarge = Errorf(ErrInvalidParam, "Too many addresses and outpoints to watch (at most %d)", maxWatchEntries)

func wsNotifyMethods() []*wsMethod {
	hub := func(c *wsClient, fn func(sub *wsSubscriptions) error) (any, error) {
		h := c.s.hub()
		h.mu.Lock()
		defer h.mu.Unlock()
		return nil, fn(&c.sub)
	}
	addrArg := Arg{Name: "addresses", Type: ArgArr, Description: "The addresses"}
	opsArg := Arg{Name: "outpoints", Type: ArgArr, Description: "The outpoints, as {\"hash\": \"txid\", \"index\": n} objects"}
	return []*wsMethod{
		{Method: &Method{Name: "notifyblocks", Category: "websocket",
			Description: "Request notifications for whenever a block is connected or disconnected from the main (best) chain.\nNOTE: Deprecated. Use loadtxfilter instead with filteredblockconnected notifications."},
			handle: func(c *wsClient, _ *Params) (any, error) {
				return hub(c, func(sub *wsSubscriptions) error { sub.blocks = true; return nil })
			}},
		{Method: &Method{Name: "stopnotifyblocks", Category: "websocket",
			Description: "Cancel registered notifications for whenever a block is connected or disconnected from the main (best) chain."},
			handle: func(c *wsClient, _ *Params) (any, error) {
				return hub(c, func(sub *wsSubscriptions) error { sub.blocks = false; return nil })
			}},
		{Method: &Method{Name: "notifynewtransactions", Category: "websocket",
			Description: "Send either a txaccepted or a txacceptedverbose notification when a new transaction is added to the memory pool.",
			Args:        []Arg{{Name: "verbose", Type: ArgBool, Optional: true, Default: "false", Description: "Specifies which type of notification to receive. If verbose is true, then the caller receives txacceptedverbose, otherwise the caller receives txaccepted"}}},
			handle: func(c *wsClient, p *Params) (any, error) {
				v, err := p.Bool(0, false)
				if err != nil {
					return nil, err
				}
				return hub(c, func(sub *wsSubscriptions) error { sub.txs, sub.verbose = true, v; return nil })
			}},
		{Method: &Method{Name: "stopnotifynewtransactions", Category: "websocket",
			Description: "Stop sending either a txaccepted or a txacceptedverbose notification when a new transaction is added to the memory pool."},
			handle: func(c *wsClient, _ *Params) (any, error) {
				return hub(c, func(sub *wsSubscriptions) error { sub.txs = false; return nil })
			}},
		{Method: &Method{Name: "loadtxfilter", Category: "websocket",
			Description: "Load, add to, or reload a websocket client's transaction filter for mempool transactions, new blocks and rescanblocks.",
			Args: []Arg{{Name: "reload", Type: ArgBool, Description: "Load a new filter instead of adding data to an existing one"},
				{Name: "addresses", Type: ArgArr, Description: "Array of addresses to add to the transaction filter"},
				{Name: "outpoints", Type: ArgArr, Description: "Array of outpoints to add to the transaction filter"}}},
			handle: func(c *wsClient, p *Params) (any, error) {
				reload, err := p.Bool(0, false)
				if err != nil {
					return nil, err
				}
				addrs, err := parseAddressList(c.s, p.Raw(1), false)
				if err != nil {
					return nil, err
				}
				ops, err := parseOutPoints(p.Raw(2))
				if err != nil {
					return nil, Errorf(ErrInvalidParam, "%s", err.(*Error).Message)
				}
				return hub(c, func(sub *wsSubscriptions) error {
					if reload || sub.filter == nil {
						if len(addrs)+len(ops) > maxWatchEntries {
							return errWatchTooLarge
						}
						sub.filter = newWatchSet()
					} else if sub.filter.size()+len(addrs)+len(ops) > maxWatchEntries {
						return errWatchTooLarge
					}
					for _, a := range addrs {
						sub.filter.addAddress(a)
					}
					for _, op := range ops {
						sub.filter.ops[op] = struct{}{}
					}
					return nil
				})
			}},
		{Method: &Method{Name: "notifyreceived", Category: "websocket",
			Description: "Send a recvtx notification when a transaction added to mempool or appears in a newly-attached block contains a txout pkScript sending to any of the passed addresses.\nMatching outpoints are automatically registered for redeemingtx notifications.\nNOTE: Deprecated. Use loadtxfilter instead.",
			Args:        []Arg{addrArg}},
			handle: func(c *wsClient, p *Params) (any, error) {
				addrs, err := parseAddressList(c.s, p.Raw(0), true)
				if err != nil {
					return nil, err
				}
				return hub(c, func(sub *wsSubscriptions) error { return sub.addWatch(addrs, nil) })
			}},
		{Method: &Method{Name: "stopnotifyreceived", Category: "websocket",
			Description: "Cancel registered receive notifications for each passed address.",
			Args:        []Arg{addrArg}},
			handle: func(c *wsClient, p *Params) (any, error) {
				addrs, err := parseAddressList(c.s, p.Raw(0), true)
				if err != nil {
					return nil, err
				}
				return hub(c, func(sub *wsSubscriptions) error {
					for _, a := range addrs {
						if sub.watch != nil {
							sub.watch.removeAddress(a)
						}
					}
					return nil
				})
			}},
		{Method: &Method{Name: "notifyspent", Category: "websocket",
			Description: "Send a redeemingtx notification when a transaction spending an outpoint appears in mempool (if relayed to this btcd instance) and when such a transaction first appears in a newly-attached block.\nNOTE: Deprecated. Use loadtxfilter instead.",
			Args:        []Arg{opsArg}},
			handle: func(c *wsClient, p *Params) (any, error) {
				ops, err := parseOutPoints(p.Raw(0))
				if err != nil {
					return nil, err
				}
				if _, err := hub(c, func(sub *wsSubscriptions) error { return sub.addWatch(nil, ops) }); err != nil {
					return nil, err
				}
				c.notifyMempoolSpends(ops)
				return nil, nil
			}},
		{Method: &Method{Name: "stopnotifyspent", Category: "websocket",
			Description: "Cancel registered spending notifications for each passed outpoint.",
			Args:        []Arg{opsArg}},
			handle: func(c *wsClient, p *Params) (any, error) {
				ops, err := parseOutPoints(p.Raw(0))
				if err != nil {
					return nil, err
				}
				return hub(c, func(sub *wsSubscriptions) error {
					for _, op := range ops {
						if sub.watch != nil {
							delete(sub.watch.ops, op)
						}
					}
					return nil
				})
			}},
	}
}

// addWatch adds addresses and outpoints to the deprecated watch list.
// Called with the hub locked.
func (sub *wsSubscriptions) addWatch(addrs []address, ops []wire.OutPoint) error {
	if sub.watch == nil {
		sub.watch = newWatchSet()
	}
	if sub.watch.size()+len(addrs)+len(ops) > maxWatchEntries {
		return errWatchTooLarge
	}
	for _, a := range addrs {
		sub.watch.addAddress(a)
	}
	for _, op := range ops {
		sub.watch.ops[op] = struct{}{}
	}
	return nil
}

// notifyMempoolSpends sends redeemingtx for mempool transactions that
// already spend newly watched outpoints, as btcd does on notifyspent.
func (c *wsClient) notifyMempoolSpends(ops []wire.OutPoint) {
	mp, ch := c.s.cfg.Backend.Mempool, c.s.chain()
	if mp == nil || mp.SpentBy == nil || ch == nil || ch.Transaction == nil {
		return
	}
	seen := map[wire.Hash]bool{}
	for _, op := range ops {
		txid, ok, err := mp.SpentBy(op)
		if err != nil || !ok || seen[txid] {
			continue
		}
		seen[txid] = true
		if l, err := ch.Transaction(txid, nil); err == nil && l.Tx != nil {
			c.send(txNotification("redeemingtx", hex.EncodeToString(l.Tx.Bytes()), nil))
		}
	}
}
