package node

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// Helpers for mempool_test.go: a one-key P2WPKH wallet that signs
// for real, RPC wrappers and a raw-TCP peer that records what it hears.

// mpWallet owns one secp256k1 key and spends P2WPKH outputs paying to it.
type mpWallet struct {
	key      *btcec.PrivateKey
	pub      []byte
	pkScript []byte // P2WPKH
	code     []byte // BIP143 script code (P2PKH form)
}

func newMPWallet() *mpWallet {
	seed := sha256.Sum256([]byte("mempool test key"))
	key, _ := btcec.PrivKeyFromBytes(seed[:])
	w := &mpWallet{key: key, pub: key.PubKey().SerializeCompressed()}
	h := txscript.Hash160(w.pub)
	w.pkScript = append([]byte{0x00, 0x14}, h[:]...)
	w.code = append(append([]byte{0x76, 0xa9, 0x14}, h[:]...), 0x88, 0xac)
	return w
}

// mpCoin is an output the wallet can spend.
type mpCoin struct {
	op    wire.OutPoint
	value int64
}

// sign fills every input's witness with a SIGHASH_ALL P2WPKH signature.
func (w *mpWallet) sign(tx *wire.MsgTx, ins []mpCoin) {
	prevs := make([]wire.TxOut, len(ins))
	for i, c := range ins {
		prevs[i] = wire.TxOut{Value: c.value, PkScript: w.pkScript}
	}
	hashes := txscript.NewTxSigHashes(tx, prevs)
	for i := range tx.TxIn {
		h := txscript.CalcWitnessSigHash(w.code, hashes, 1, i, ins[i].value)
		sig := append(ecdsa.Sign(w.key, h[:]).Serialize(), 1)
		tx.TxIn[i].Witness = [][]byte{sig, w.pub}
	}
}

// build makes a version 2 transaction spending ins to outs, with final
// sequences, and signs it.
func (w *mpWallet) build(ins []mpCoin, outs []wire.TxOut) *wire.MsgTx {
	tx := &wire.MsgTx{Version: 2, TxOut: outs}
	for _, c := range ins {
		tx.TxIn = append(tx.TxIn, wire.TxIn{PreviousOutPoint: c.op, Sequence: wire.MaxTxInSequenceNum})
	}
	w.sign(tx, ins)
	return tx
}

// split spends in into k equal P2WPKH outputs paying fee and returns the
// transaction and its outputs as coins.
func (w *mpWallet) split(in mpCoin, k int, fee int64) (*wire.MsgTx, []mpCoin) {
	each := (in.value - fee) / int64(k)
	outs := make([]wire.TxOut, k)
	for i := range outs {
		outs[i] = wire.TxOut{Value: each, PkScript: w.pkScript}
	}
	tx := w.build([]mpCoin{in}, outs)
	return tx, txCoins(tx)
}

// txCoins returns tx's outputs as coins.
func txCoins(tx *wire.MsgTx) []mpCoin {
	id := tx.TxHash()
	out := make([]mpCoin, len(tx.TxOut))
	for i := range tx.TxOut {
		out[i] = mpCoin{op: wire.OutPoint{Hash: id, Index: uint32(i)}, value: tx.TxOut[i].Value}
	}
	return out
}

// mempoolNode starts a regtest node and mines blocks coinbases paying to
// the wallet's P2WPKH script.
func mempoolNode(t *testing.T, blocks int, extra ...string) (*testNode, *mpWallet) {
	t.Helper()
	n := newTestNode(t, extra...)
	w := newMPWallet()
	if _, err := n.s.generate(blocks, w.pkScript, 0, nil, false); err != nil {
		t.Fatal(err)
	}
	return n, w
}

// coinbaseCoin returns the coinbase output of the main-chain block at
// height.
func (n *testNode) coinbaseCoin(t testing.TB, height int32) mpCoin {
	op, v := n.coinbaseOut(t, height)
	return mpCoin{op: op, value: v}
}

func txHex(tx *wire.MsgTx) string { return hex.EncodeToString(tx.Bytes()) }

// sendTx submits tx with sendrawtransaction and returns the RPC error
// message ("" when accepted).
func (n *testNode) sendTx(t testing.TB, tx *wire.MsgTx) string {
	t.Helper()
	_, rerr := n.rpcCall(t, "sendrawtransaction", txHex(tx))
	if rerr != nil {
		return rerr.Message
	}
	return ""
}

// mustSend submits tx and fails the test if it is rejected.
func (n *testNode) mustSend(t testing.TB, tx *wire.MsgTx) {
	t.Helper()
	if msg := n.sendTx(t, tx); msg != "" {
		t.Fatalf("sendrawtransaction %v: %s", tx.TxHash(), msg)
	}
}

// testAccept runs testmempoolaccept on tx and returns the reject reason
// ("" when it would be accepted).
func (n *testNode) testAccept(t *testing.T, tx *wire.MsgTx) string {
	t.Helper()
	raw := n.must(t, "testmempoolaccept", []string{txHex(tx)})
	var res []struct {
		Allowed      bool   `json:"allowed"`
		RejectReason string `json:"reject-reason"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res) != 1 {
		t.Fatalf("testmempoolaccept result %s: %v", raw, err)
	}
	if res[0].Allowed {
		return ""
	}
	if res[0].RejectReason == "" {
		t.Fatalf("rejected without a reason: %s", raw)
	}
	return res[0].RejectReason
}

// wantReason fails unless got starts with want (Core appends details).
func wantReason(t *testing.T, what, got, want string) {
	t.Helper()
	if got == "" {
		t.Errorf("%s: accepted, want rejection %q", what, want)
		return
	}
	if !strings.HasPrefix(got, want) {
		t.Errorf("%s: rejected with %q, want %q", what, got, want)
	}
}
