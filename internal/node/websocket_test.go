package node

import (
	"bytes"
	"encoding/hex"
	"testing"
	"time"

	btcaddress "github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/btcjson"
	"github.com/btcsuite/btcd/btcutil/v2"
	btccfg "github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/rpcclient"
	btcwire "github.com/btcsuite/btcd/wire/v2"

	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// wsEvents collects what btcd's rpcclient reports, one channel per
// notification kind.
type wsEvents struct {
	connected   chan [2]any // hash, height
	filtered    chan [3]any // height, header hash, tx count
	accepted    chan chainhash.Hash
	verbose     chan *btcjson.TxRawResult
	relevant    chan []byte
	recv        chan *btcjson.BlockDetails
	rescanDone  chan int32
	disconnects chan int32
}

func newWSEvents() *wsEvents {
	return &wsEvents{
		connected: make(chan [2]any, 16), filtered: make(chan [3]any, 16), accepted: make(chan chainhash.Hash, 16),
		verbose: make(chan *btcjson.TxRawResult, 16), relevant: make(chan []byte, 16), recv: make(chan *btcjson.BlockDetails, 16),
		rescanDone: make(chan int32, 4), disconnects: make(chan int32, 4),
	}
}

func (e *wsEvents) handlers() *rpcclient.NotificationHandlers {
	return &rpcclient.NotificationHandlers{
		//lint:ignore SA1019 the deprecated notifications are still what btcwallet's rescans use
		OnBlockConnected: func(h *chainhash.Hash, height int32, _ time.Time) { e.connected <- [2]any{*h, height} },
		OnFilteredBlockConnected: func(height int32, hdr *btcwire.BlockHeader, txs []*btcutil.Tx) {
			e.filtered <- [3]any{height, hdr.BlockHash(), len(txs)}
		},
		//lint:ignore SA1019 the deprecated notifications are still what btcwallet's rescans use
		OnBlockDisconnected:  func(_ *chainhash.Hash, height int32, _ time.Time) { e.disconnects <- height },
		OnTxAccepted:         func(h *chainhash.Hash, _ btcutil.Amount) { e.accepted <- *h },
		OnTxAcceptedVerbose:  func(tx *btcjson.TxRawResult) { e.verbose <- tx },
		OnRelevantTxAccepted: func(tx []byte) { e.relevant <- tx },
		//lint:ignore SA1019 the deprecated notifications are still what btcwallet's rescans use
		OnRecvTx: func(_ *btcutil.Tx, d *btcjson.BlockDetails) { e.recv <- d },
		//lint:ignore SA1019 the deprecated notifications are still what btcwallet's rescans use
		OnRescanFinished: func(_ *chainhash.Hash, height int32, _ time.Time) { e.rescanDone <- height },
	}
}

// recvWithin waits for one value from ch.
func recvWithin[T any](t *testing.T, ch chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(15 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

// wsPayment spends the mature coinbase at height to a P2WPKH output
// paying script.
func wsPayment(t *testing.T, n *testNode, height int32, script []byte) *wire.MsgTx {
	t.Helper()
	op, v := n.coinbaseOut(t, height)
	return &wire.MsgTx{Version: 2,
		TxIn:  []wire.TxIn{{PreviousOutPoint: op, Witness: [][]byte{{0x51}}, Sequence: wire.MaxTxInSequenceNum}},
		TxOut: []wire.TxOut{{Value: v - 10_000, PkScript: script}},
	}
}

// toBtcd converts a transaction to rpcclient's type.
func toBtcd(t *testing.T, tx *wire.MsgTx) *btcwire.MsgTx {
	t.Helper()
	out := btcwire.NewMsgTx(2)
	if err := out.Deserialize(bytes.NewReader(tx.Bytes())); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWebsocketRPCClient drives a regtest node with btcd v0.26.2's
// rpcclient over the /ws endpoint, as btcwallet and lnd's btcd backend
// do.
func TestWebsocketRPCClient(t *testing.T) {
	n := newTestNode(t, "--blockfilterindex")
	n.mine(t, 101)
	ev := newWSEvents()
	client, err := rpcclient.New(&rpcclient.ConnConfig{
		Host: n.s.rpcAddr(), Endpoint: "ws", User: "u", Pass: "p",
		DisableTLS: true, DisableAutoReconnect: true,
	}, ev.handlers())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Shutdown()

	// Blocks.
	if err := client.NotifyBlocks(); err != nil {
		t.Fatal(err)
	}
	mined := n.mine(t, 1)[0]
	c := recvWithin(t, ev.connected, "blockconnected")
	if c[0].(chainhash.Hash) != chainhash.Hash(mined) || c[1].(int32) != 102 {
		t.Fatalf("blockconnected %v, mined %v at 102", c, mined)
	}
	f := recvWithin(t, ev.filtered, "filteredblockconnected")
	if f[0].(int32) != 102 || f[1].(chainhash.Hash) != chainhash.Hash(mined) || f[2].(int) != 0 {
		t.Fatalf("filteredblockconnected %v", f)
	}

	// Mempool transactions, plain then verbose.
	if err := client.NotifyNewTransactions(false); err != nil {
		t.Fatal(err)
	}
	tx1 := wsPayment(t, n, 1, opTrueScript)
	txid, err := client.SendRawTransaction(toBtcd(t, tx1), false)
	if err != nil {
		t.Fatalf("sendrawtransaction: %v", err)
	}
	if got := recvWithin(t, ev.accepted, "txaccepted"); got != *txid || got != chainhash.Hash(tx1.TxHash()) {
		t.Fatalf("txaccepted %v, sent %v", got, txid)
	}
	if err := client.NotifyNewTransactions(true); err != nil {
		t.Fatal(err)
	}
	tx2 := wsPayment(t, n, 2, opTrueScript)
	if _, err := client.SendRawTransaction(toBtcd(t, tx2), false); err != nil {
		t.Fatal(err)
	}
	if v := recvWithin(t, ev.verbose, "txacceptedverbose"); v.Txid != tx2.TxHash().String() || len(v.Vout) != 1 {
		t.Fatalf("txacceptedverbose %+v", v)
	}

	// The transaction filter: a payment to a loaded address is relevant
	// in the mempool, in its block and in rescanblocks.
	var prog [20]byte
	prog[0] = 0x42
	addr, err := btcaddress.NewAddressWitnessPubKeyHash(prog[:], &btccfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	script := append([]byte{0x00, 0x14}, prog[:]...)
	if err := client.LoadTxFilter(true, []btcaddress.Address{addr}, nil); err != nil {
		t.Fatal(err)
	}
	pay := wsPayment(t, n, 3, script)
	if _, err := client.SendRawTransaction(toBtcd(t, pay), false); err != nil {
		t.Fatal(err)
	}
	if raw := recvWithin(t, ev.relevant, "relevanttxaccepted"); !bytes.Equal(raw, pay.Bytes()) {
		t.Fatal("relevanttxaccepted carries another transaction")
	}
	recvWithin(t, ev.verbose, "txacceptedverbose of the payment")
	payBlock := n.mine(t, 1)[0]
	recvWithin(t, ev.connected, "blockconnected")
	if f := recvWithin(t, ev.filtered, "filteredblockconnected"); f[2].(int) != 1 {
		t.Fatalf("filtered block with the payment carries %d txs", f[2])
	}
	found, err := client.RescanBlocks([]chainhash.Hash{chainhash.Hash(mined), chainhash.Hash(payBlock)})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Hash != payBlock.String() || len(found[0].Transactions) != 1 {
		t.Fatalf("rescanblocks %+v", found)
	}

	// btcd's extension methods.
	best, height, err := client.GetBestBlock()
	if err != nil || *best != chainhash.Hash(payBlock) || height != 103 {
		t.Fatalf("getbestblock %v %d %v", best, height, err)
	}
	if net, err := client.GetCurrentNet(); err != nil || uint32(net) != uint32(n.s.cfg.params.Net) {
		t.Fatalf("getcurrentnet %v %v", net, err)
	}
	if v, err := client.Version(); err != nil || v["btcdjsonrpcapi"].Major != 1 {
		t.Fatalf("version %v %v", v, err)
	}
	info, err := client.GetInfo()
	if err != nil || info.Blocks != 103 || info.Version != rpc.BtcdAPIVersion {
		t.Fatalf("getinfo %+v %v", info, err)
	}
	var cf *btcwire.MsgCFilter
	waitFor(t, 15*time.Second, "the filter index to reach the tip", func() bool {
		cf, err = client.GetCFilter((*chainhash.Hash)(&payBlock), btcwire.GCSFilterRegular)
		return err == nil
	})
	bf, rerr := n.rpcCall(t, "getblockfilter", payBlock.String())
	if rerr != nil || !bytes.Contains(bf, []byte(`"filter":"`+hex.EncodeToString(cf.Data)+`"`)) {
		t.Fatalf("getcfilter %x differs from getblockfilter %s", cf.Data, bf)
	}

	// The deprecated rescan finds the payment and finishes at the tip.
	genesis := chainhash.Hash(n.s.cfg.params.GenesisHash)
	//lint:ignore SA1019 the deprecated rescan is tested on purpose
	if err := client.Rescan(&genesis, []btcaddress.Address{addr}, nil); err != nil {
		t.Fatalf("rescan: %v", err)
	}
	if d := recvWithin(t, ev.recv, "recvtx"); d == nil || d.Hash != payBlock.String() || d.Height != 103 {
		t.Fatalf("recvtx details %+v", d)
	}
	if h := recvWithin(t, ev.rescanDone, "rescanfinished"); h != 103 {
		t.Fatalf("rescanfinished at %d", h)
	}

	// A disconnected tip is reported.
	if err := n.s.chain.InvalidateBlock(&payBlock); err != nil {
		t.Fatal(err)
	}
	if h := recvWithin(t, ev.disconnects, "blockdisconnected"); h != 103 {
		t.Fatalf("blockdisconnected at %d", h)
	}
}
