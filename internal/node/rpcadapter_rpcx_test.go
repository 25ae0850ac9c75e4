package node

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// regtestWIF is the wallet key in WIF (regtest, compressed).
func (w *mpWallet) regtestWIF() string {
	k := w.key.Key.Bytes()
	b := append([]byte{0xef}, k[:]...)
	b = append(b, 1)
	sum := sha256.Sum256(b)
	sum = sha256.Sum256(sum[:])
	return txscript.Base58Encode(append(b, sum[:4]...))
}

func decodeObj(t *testing.T, raw json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not an object: %s", raw)
	}
	return m
}

// TestNodeSignRawTransactionWithKey signs spends of a confirmed and of an
// unconfirmed output found through the UTXO set and the mempool.
func TestNodeSignRawTransactionWithKey(t *testing.T) {
	n, w := mempoolNode(t, 101)
	in := n.coinbaseCoin(t, 1)
	tx := &wire.MsgTx{Version: 2, TxIn: []wire.TxIn{{PreviousOutPoint: in.op, Sequence: wire.MaxTxInSequenceNum}},
		TxOut: []wire.TxOut{{Value: in.value - 10_000, PkScript: w.pkScript}}}
	for i, unsigned := range []*wire.MsgTx{tx, nil} {
		if unsigned == nil {
			// The child spends the parent while it is unconfirmed.
			parent := tx.TxHash()
			unsigned = &wire.MsgTx{Version: 2, TxIn: []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: parent}, Sequence: wire.MaxTxInSequenceNum}},
				TxOut: []wire.TxOut{{Value: tx.TxOut[0].Value - 10_000, PkScript: w.pkScript}}}
		}
		res := decodeObj(t, n.must(t, "signrawtransactionwithkey", txHex(unsigned), []string{w.regtestWIF()}))
		if string(res["complete"]) != "true" || res["errors"] != nil {
			t.Fatalf("tx %d: %s", i, res["errors"])
		}
		n.must(t, "sendrawtransaction", unquote(t, res["hex"]))
		if i == 0 {
			signed, _ := hex.DecodeString(unquote(t, res["hex"]))
			if _, err := tx.Decode(signed); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n.s.pool.Count() != 2 {
		t.Fatalf("mempool holds %d transactions", n.s.pool.Count())
	}
	// A spent or unknown input is reported per input.
	res := decodeObj(t, n.must(t, "signrawtransactionwithkey", txHex(&wire.MsgTx{Version: 2,
		TxIn: []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Index: 7}}}, TxOut: tx.TxOut}), []string{w.regtestWIF()}))
	if string(res["complete"]) != "false" || !strings.Contains(string(res["errors"]), "Input not found or already spent") {
		t.Fatalf("unknown input: %s", res["errors"])
	}
}

// TestNodeScanBlocksAndActivity finds mined coinbases through the filter
// index and reports them as descriptor activity.
func TestNodeScanBlocksAndActivity(t *testing.T) {
	n := newTestNode(t, "--blockfilterindex")
	hs := n.mine(t, 3)
	n.must(t, "syncwithvalidationinterfacequeue")
	desc := "raw(" + hex.EncodeToString(opTrueScript) + ")"
	var res struct {
		From     int32    `json:"from_height"`
		To       int32    `json:"to_height"`
		Blocks   []string `json:"relevant_blocks"`
		Complete bool     `json:"completed"`
	}
	waitFor(t, 10*time.Second, "filters of the mined blocks", func() bool {
		if err := json.Unmarshal(n.must(t, "scanblocks", "start", []string{desc}), &res); err != nil {
			t.Fatal(err)
		}
		return len(res.Blocks) == 3
	})
	if res.From != 0 || res.To != 3 || !res.Complete || res.Blocks[0] != hs[0].String() {
		t.Fatalf("scanblocks %+v", res)
	}
	var act struct {
		Activity []struct {
			Type      string          `json:"type"`
			Amount    json.Number     `json:"amount"`
			BlockHash string          `json:"blockhash"`
			Height    int32           `json:"height"`
			Vout      int             `json:"vout"`
			SPK       json.RawMessage `json:"output_spk"`
		} `json:"activity"`
	}
	if err := json.Unmarshal(n.must(t, "getdescriptoractivity", []string{hs[1].String()}, []string{desc}), &act); err != nil {
		t.Fatal(err)
	}
	if len(act.Activity) != 1 || act.Activity[0].Type != "receive" || act.Activity[0].Height != 2 || act.Activity[0].Amount != "50.00000000" {
		t.Fatalf("activity %+v", act)
	}
	if _, rerr := n.rpcCall(t, "getdescriptoractivity", []string{strings.Repeat("11", 32)}, []string{desc}); rerr == nil || rerr.Message != "Block not found" {
		t.Fatalf("unknown block: %+v", rerr)
	}

	// Without the index scanblocks says so.
	m := newTestNode(t)
	if _, rerr := m.rpcCall(t, "scanblocks", "start", []string{desc}); rerr == nil || rerr.Message != "Index is not enabled for filtertype basic" {
		t.Fatalf("no index: %+v", rerr)
	}
}

// TestNodeAddPeerAddressAndRawFee covers the address manager and fee
// estimator adapters.
func TestNodeAddPeerAddressAndRawFee(t *testing.T) {
	n := newTestNode(t)
	for _, c := range []struct {
		addr  string
		tried bool
		want  string
	}{
		{"1.2.3.4", false, `{"success":true}`},
		{"1.2.3.4", true, `{"success":false,"error":"failed-adding-to-new"}`},
		{"", false, `{"success":false}`},
		{"not an address", false, `{"success":false}`},
		{"2.3.4.5", true, `{"success":true}`},
	} {
		if got := string(n.must(t, "addpeeraddress", c.addr, 8333, c.tried)); got != c.want {
			t.Errorf("addpeeraddress(%q, %v) = %s, want %s", c.addr, c.tried, got, c.want)
		}
	}
	if nNew, nTried := n.s.addrs.Counts(); nNew != 1 || nTried != 1 {
		t.Errorf("address manager: %d new, %d tried", nNew, nTried)
	}

	res := decodeObj(t, n.must(t, "estimaterawfee", 2))
	for _, h := range []string{"short", "medium", "long"} {
		o := decodeObj(t, res[h])
		if o["errors"] == nil || o["decay"] == nil || o["scale"] == nil || o["fail"] == nil {
			t.Errorf("%s without data: %s", h, res[h])
		}
	}
	res = decodeObj(t, n.must(t, "estimaterawfee", 13, 0.5))
	if res["short"] != nil || res["medium"] == nil || res["long"] == nil {
		t.Errorf("target 13: %v", res)
	}
	if _, rerr := n.rpcCall(t, "estimaterawfee", 1009); rerr == nil || rerr.Code != -8 {
		t.Errorf("target 1009: %+v", rerr)
	}
}

// TestNodeGetBlockFromPeer fetches a block of a competing chain whose
// header came from the peer.
func TestNodeGetBlockFromPeer(t *testing.T) {
	a := newTestNode(t)
	b := newTestNode(t)
	// A's chain has less work, so B keeps only its headers.
	aHashes := a.mineTo(t, 2, otherScript)
	b.mine(t, 3)
	if _, rerr := b.rpcCall(t, "getblockfrompeer", aHashes[1].String(), 0); rerr == nil || rerr.Message != "Block header missing" {
		t.Fatalf("unknown header: %+v", rerr)
	}
	if err := b.s.connect(a.s.p2pAddr(), true); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "A's headers", func() bool {
		_, ok := b.s.chain.LookupBlock(&aHashes[1])
		return ok
	})
	var peers []struct {
		ID int64 `json:"id"`
	}
	json.Unmarshal(b.must(t, "getpeerinfo"), &peers)
	if len(peers) != 1 {
		t.Fatalf("peers %v", peers)
	}
	if _, rerr := b.rpcCall(t, "getblockfrompeer", aHashes[1].String(), peers[0].ID+1); rerr == nil || rerr.Message != "Peer does not exist" {
		t.Fatalf("unknown peer: %+v", rerr)
	}
	if got := string(b.must(t, "getblockfrompeer", aHashes[1].String(), peers[0].ID)); got != "{}" {
		t.Fatalf("result %s", got)
	}
	waitFor(t, 20*time.Second, "the fetched block", func() bool { return b.s.chain.HaveBlock(&aHashes[1]) })
	if _, rerr := b.rpcCall(t, "getblockfrompeer", aHashes[1].String(), peers[0].ID); rerr == nil || rerr.Message != "Block already downloaded" {
		t.Fatalf("stored block: %+v", rerr)
	}
}

// TestNodeRPCWhitelistOptions checks the option validation and that a
// whitelisted user is held to its list.
func TestNodeRPCWhitelistOptions(t *testing.T) {
	n := newTestNode(t, "--rpcwhitelist=u:getblockcount,getbestblockhash", "--rpcwhitelist=u:getblockcount")
	if st, _ := n.postRaw(t, `{"method":"getblockcount"}`); st != http.StatusOK {
		t.Errorf("listed method: %d", st)
	}
	if st, _ := n.postRaw(t, `{"method":"getbestblockhash"}`); st != http.StatusForbidden {
		t.Errorf("method dropped by the second entry: %d", st)
	}
	dir := t.TempDir()
	base := []string{"--regtest", "--appdata=" + dir, "--datadir=" + filepath.Join(dir, "data"), "--logdir=" + filepath.Join(dir, "logs")}
	for _, c := range []struct {
		opt string
		ok  bool
	}{
		{"--rpccookieperms=group", true}, {"--rpccookieperms=all", true}, {"--rpccookieperms=world", false},
		{"--rpcwhitelistdefault=1", true}, {"--rpcwhitelistdefault=0", true}, {"--rpcwhitelistdefault=maybe", false},
	} {
		cfg, err := loadConfig(append(base, c.opt))
		if (err == nil) != c.ok {
			t.Errorf("%s: %v", c.opt, err)
		}
		if err == nil && c.opt == "--rpccookieperms=group" && cfg.rpcCookiePerms != 0o640 {
			t.Errorf("%s: mode %v", c.opt, cfg.rpcCookiePerms)
		}
	}
}
