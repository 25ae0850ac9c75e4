package node

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btclog"
)

// TestRPCSmoke drives a running node over HTTP JSON-RPC.
func TestRPCSmoke(t *testing.T) {
	n := newTestNode(t)
	var count int
	res, rerr := n.rpcCall(t, "getblockcount")
	if rerr != nil || json.Unmarshal(res, &count) != nil || count != 0 {
		t.Fatalf("getblockcount: %s %v", res, rerr)
	}

	// P2WSH(OP_TRUE) as a regtest bech32 address.
	addr := "bcrt1qft5p2uhsdcdc3l2ua4ap5qqfg4pjaqlp250x7us7a8qqhrxrxfsqseac85"
	res, rerr = n.rpcCall(t, "generatetoaddress", 3, addr)
	if rerr != nil {
		t.Fatalf("generatetoaddress: %v", rerr.Message)
	}
	var hashes []string
	if err := json.Unmarshal(res, &hashes); err != nil || len(hashes) != 3 {
		t.Fatalf("generatetoaddress result %s", res)
	}
	res, _ = n.rpcCall(t, "getblockcount")
	if string(res) != "3" {
		t.Fatalf("getblockcount after generate: %s", res)
	}
	res, _ = n.rpcCall(t, "getbestblockhash")
	if string(res) != `"`+hashes[2]+`"` {
		t.Fatalf("getbestblockhash %s, want %s", res, hashes[2])
	}
	res, _ = n.rpcCall(t, "getblockhash", 3)
	if string(res) != `"`+hashes[2]+`"` {
		t.Fatalf("getblockhash 3: %s", res)
	}

	var blk struct {
		Hash          string   `json:"hash"`
		Height        int      `json:"height"`
		Confirmations int      `json:"confirmations"`
		Tx            []string `json:"tx"`
	}
	res, rerr = n.rpcCall(t, "getblock", hashes[1])
	if rerr != nil || json.Unmarshal(res, &blk) != nil || blk.Height != 2 || blk.Confirmations != 2 || len(blk.Tx) != 1 {
		t.Fatalf("getblock: %s %v", res, rerr)
	}
	var raw string
	res, _ = n.rpcCall(t, "getblock", hashes[2], 0)
	if json.Unmarshal(res, &raw) != nil || len(raw) < 160 {
		t.Fatalf("getblock verbosity 0: %s", res)
	}
	res, rerr = n.rpcCall(t, "getblock", hashes[2], 2)
	if rerr != nil || !strings.Contains(string(res), `"vin"`) {
		t.Fatalf("getblock verbosity 2: %s %v", res, rerr)
	}
	res, rerr = n.rpcCall(t, "getblockheader", hashes[2])
	if rerr != nil || !strings.Contains(string(res), `"height":3`) {
		t.Fatalf("getblockheader: %s %v", res, rerr)
	}

	var info struct {
		Chain   string `json:"chain"`
		Blocks  int    `json:"blocks"`
		Headers int    `json:"headers"`
		Best    string `json:"bestblockhash"`
	}
	res, rerr = n.rpcCall(t, "getblockchaininfo")
	if rerr != nil || json.Unmarshal(res, &info) != nil || info.Chain != "regtest" || info.Blocks != 3 || info.Headers != 3 || info.Best != hashes[2] {
		t.Fatalf("getblockchaininfo: %s %v", res, rerr)
	}

	// submitblock of a known block answers "duplicate"; a new block
	// built by generateblock without submitting answers null.
	res, rerr = n.rpcCall(t, "submitblock", raw)
	if rerr != nil || string(res) != `"duplicate"` {
		t.Fatalf("submitblock duplicate: %s %v", res, rerr)
	}
	res, rerr = n.rpcCall(t, "generateblock", addr, []string{}, false)
	if rerr != nil {
		t.Fatalf("generateblock: %v", rerr.Message)
	}
	var gb struct {
		Hash string `json:"hash"`
		Hex  string `json:"hex"`
	}
	if err := json.Unmarshal(res, &gb); err != nil || gb.Hex == "" {
		t.Fatalf("generateblock result %s", res)
	}
	if _, err := hex.DecodeString(gb.Hex); err != nil {
		t.Fatal(err)
	}
	res, rerr = n.rpcCall(t, "submitblock", gb.Hex)
	if rerr != nil || string(res) != "null" {
		t.Fatalf("submitblock new: %s %v", res, rerr)
	}
	res, _ = n.rpcCall(t, "getbestblockhash")
	if string(res) != `"`+gb.Hash+`"` {
		t.Fatalf("tip %s after submitblock, want %s", res, gb.Hash)
	}

	for _, m := range []string{"getchaintips", "getdifficulty", "getmempoolinfo", "getrawmempool",
		"getpeerinfo", "getconnectioncount", "getnetworkinfo", "listbanned", "uptime"} {
		if _, rerr := n.rpcCall(t, m); rerr != nil {
			t.Errorf("%s: %d %s", m, rerr.Code, rerr.Message)
		}
	}
	defer syncLog.SetLevel(syncLog.Level())
	res, rerr = n.rpcCall(t, "logging", []string{"cmpctblock"})
	if rerr != nil || !strings.Contains(string(res), `"cmpctblock":true`) || syncLog.Level() > btclog.LevelDebug {
		t.Errorf("logging: %s %v", res, rerr)
	}
	if _, rerr := n.rpcCall(t, "setban", "10.1.2.3", "add"); rerr != nil {
		t.Errorf("setban: %v", rerr.Message)
	}
	res, _ = n.rpcCall(t, "listbanned")
	if !strings.Contains(string(res), "10.1.2.3/32") {
		t.Errorf("listbanned after setban: %s", res)
	}
	if _, rerr := n.rpcCall(t, "clearbanned"); rerr != nil {
		t.Errorf("clearbanned: %v", rerr.Message)
	}
	res, rerr = n.rpcCall(t, "gettxoutsetinfo", "none")
	if rerr != nil || !strings.Contains(string(res), `"txouts":4`) {
		t.Errorf("gettxoutsetinfo: %s %v", res, rerr)
	}
	res, rerr = n.rpcCall(t, "gettxout", gbCoinbase(t, n, hashes[0]), 0)
	if rerr != nil || !strings.Contains(string(res), `"confirmations":4`) {
		t.Errorf("gettxout: %s %v", res, rerr)
	}
}

func gbCoinbase(t *testing.T, n *testNode, hash string) string {
	res, _ := n.rpcCall(t, "getblock", hash)
	var b struct {
		Tx []string `json:"tx"`
	}
	json.Unmarshal(res, &b)
	return b.Tx[0]
}

// TestRPCCookieAuth: without --rpcuser the server writes a cookie file in
// the data directory, which authenticates.
func TestRPCCookieAuth(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, "--regtest", "--appdata="+dir, "--datadir="+dir, "--nolisten", "--rpclisten=127.0.0.1:0")
	defer s.Stop()
	b, err := os.ReadFile(filepath.Join(s.cfg.DataDir, ".cookie"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "__cookie__:") {
		t.Fatalf("cookie %q", b)
	}
}

// TestRPCTransactions: testmempoolaccept, sendrawtransaction, mempool
// queries, and getrawtransaction from the mempool and (with --txindex)
// from the chain.
func TestRPCTransactions(t *testing.T) {
	n := newTestNode(t, "--txindex")
	n.mine(t, 101)
	op, v := n.coinbaseOut(t, 1)
	tx := opTrueSpend(op, v, 2, 5_000)
	raw := hex.EncodeToString(tx.AppendTo(nil, true))
	txid := tx.TxHash().String()

	res, rerr := n.rpcCall(t, "testmempoolaccept", []string{raw})
	if rerr != nil || !strings.Contains(string(res), `"allowed":true`) {
		t.Fatalf("testmempoolaccept: %s %v", res, rerr)
	}
	res, rerr = n.rpcCall(t, "sendrawtransaction", raw)
	if rerr != nil || string(res) != `"`+txid+`"` {
		t.Fatalf("sendrawtransaction: %s %v", res, rerr)
	}
	res, rerr = n.rpcCall(t, "getrawmempool")
	if rerr != nil || !strings.Contains(string(res), txid) {
		t.Fatalf("getrawmempool: %s %v", res, rerr)
	}
	if res, rerr = n.rpcCall(t, "getmempoolentry", txid); rerr != nil || !strings.Contains(string(res), `"vsize"`) {
		t.Fatalf("getmempoolentry: %s %v", res, rerr)
	}
	if res, rerr = n.rpcCall(t, "getrawtransaction", txid); rerr != nil || string(res) != `"`+raw+`"` {
		t.Fatalf("getrawtransaction (mempool): %s %v", res, rerr)
	}
	res, rerr = n.rpcCall(t, "getblocktemplate", map[string]any{"rules": []string{"segwit"}})
	if rerr != nil || !strings.Contains(string(res), txid) || !strings.Contains(string(res), `"height":102`) ||
		!strings.Contains(string(res), `"default_witness_commitment":"6a24aa21a9ed`) {
		t.Fatalf("getblocktemplate: %s %v", res, rerr)
	}
	if _, rerr = n.rpcCall(t, "getblocktemplate"); rerr == nil || rerr.Code != -8 {
		t.Fatalf("getblocktemplate without segwit rule: %v", rerr)
	}
	for _, m := range []string{"getmininginfo", "getnetworkhashps"} {
		if res, rerr = n.rpcCall(t, m); rerr != nil {
			t.Fatalf("%s: %s %v", m, res, rerr)
		}
	}
	n.mine(t, 1)
	res, rerr = n.rpcCall(t, "getrawtransaction", txid, true)
	if rerr != nil || !strings.Contains(string(res), `"confirmations":1`) {
		t.Fatalf("getrawtransaction (txindex): %s %v", res, rerr)
	}
	if _, rerr = n.rpcCall(t, "getrawtransaction", strings.Repeat("ab", 32)); rerr == nil || rerr.Code != -5 {
		t.Fatalf("getrawtransaction of unknown tx: %v", rerr)
	}
}

// TestRPCPeers: addnode, getpeerinfo, getconnectioncount, disconnectnode.
func TestRPCPeers(t *testing.T) {
	a := newTestNode(t)
	b := newTestNode(t)
	if _, rerr := b.rpcCall(t, "addnode", a.s.p2pAddr(), "onetry"); rerr != nil {
		t.Fatalf("addnode: %v", rerr.Message)
	}
	waitFor(t, 30*time.Second, "connection", func() bool {
		res, _ := b.rpcCall(t, "getpeerinfo")
		return strings.Contains(string(res), a.s.p2pAddr())
	})
	res, _ := b.rpcCall(t, "getconnectioncount")
	if string(res) != "1" {
		t.Fatalf("getconnectioncount %s", res)
	}
	if _, rerr := b.rpcCall(t, "disconnectnode", a.s.p2pAddr()); rerr != nil {
		t.Fatalf("disconnectnode: %v", rerr.Message)
	}
	waitFor(t, 30*time.Second, "disconnection", func() bool {
		res, _ := b.rpcCall(t, "getconnectioncount")
		return string(res) == "0"
	})
	if _, rerr := b.rpcCall(t, "disconnectnode", a.s.p2pAddr()); rerr == nil || rerr.Code != -29 {
		t.Fatalf("disconnectnode of unknown peer: %v", rerr)
	}
}
