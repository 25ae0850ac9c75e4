package node

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// TestRPCMethodsAgainstNode starts one regtest node, mines 110 blocks and
// a few transactions, and checks every chain, mempool, mining and network
// method's result shape (field names and JSON types as bitcoind documents
// them), a few values, and the errors for bad parameters; then JSON-RPC
// 1.0/2.0 and batch behaviour.
func TestRPCMethodsAgainstNode(t *testing.T) {
	fx := newRPCFixture(t)
	t.Run("mempool", fx.mempool)
	t.Run("getblocktemplate", fx.blockTemplate)
	fx.blockHash = fx.n.mine(t, 1)[0].String() // confirms both in block 111
	for _, c := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"getblock", fx.getBlock},
		{"getblockstats", fx.blockStats},
		{"getchaintxstats", fx.chainTxStats},
		{"txoutproof", fx.txOutProof},
		{"chain", fx.chain},
		{"invalidate", fx.invalidate},
		{"generate", fx.generate},
		{"network", fx.network},
		{"wait", fx.wait},
		{"help", fx.help},
		{"jsonrpc", fx.jsonRPC},
	} {
		t.Run(c.name, c.run)
	}
}

// rpcFixture is TestRPCMethodsAgainstNode's node: 110 blocks, then a
// parent with two outputs and a child spending one, both in the mempool
// until blockHash (block 111) confirms them. Each area's checks are a
// method, in rpc_methods_<area>_test.go; they run in order on one node.
type rpcFixture struct {
	n                 *testNode
	parent, child     *wire.MsgTx
	parentID, childID string
	blockHash         string
}

func newRPCFixture(t *testing.T) *rpcFixture {
	n := newTestNode(t, "--txindex")
	n.mine(t, 110)
	op, v := n.coinbaseOut(t, 1)
	parent := opTrueSpend(op, v, 2, 5_000)
	child := opTrueSpend(wire.OutPoint{Hash: parent.TxHash(), Index: 0}, parent.TxOut[0].Value, 1, 3_000)
	for _, tx := range []*wire.MsgTx{parent, child} {
		n.must(t, "sendrawtransaction", hex.EncodeToString(tx.AppendTo(nil, true)))
	}
	return &rpcFixture{n: n, parent: parent, child: child,
		parentID: parent.TxHash().String(), childID: child.TxHash().String()}
}

// TestRPCPruneNode: a node in prune mode reports its pruning state in
// getblockchaininfo and answers pruneblockchain with bitcoind's errors.
func TestRPCPruneNode(t *testing.T) {
	n := newTestNode(t, "--prune=1536")
	n.mine(t, 5)
	info := checkShape(t, "getblockchaininfo", n.must(t, "getblockchaininfo"), shape{
		"chain": "string", "blocks": "number", "headers": "number", "bestblockhash": "string",
		"bits": "string", "target": "string", "difficulty": "number", "time": "number",
		"mediantime": "number", "verificationprogress": "number", "initialblockdownload": "boolean",
		"chainwork": "string", "size_on_disk": "number", "pruned": "boolean", "pruneheight": "number",
		"automatic_pruning": "boolean", "prune_target_size": "number", "warnings": "array",
	})
	if string(info["pruned"]) != "true" || string(info["pruneheight"]) != "0" {
		t.Errorf("getblockchaininfo %v", info)
	}
	// Regtest prunes nothing below height 1000.
	if _, rerr := n.rpcCall(t, "pruneblockchain", 3); rerr == nil || rerr.Code != -1 || !strings.Contains(rerr.Message, "too short") {
		t.Errorf("pruneblockchain on a short chain: %v", rerr)
	}
	if _, rerr := n.rpcCall(t, "pruneblockchain", -1); rerr == nil || rerr.Code != -8 {
		t.Errorf("pruneblockchain negative: %v", rerr)
	}
	if _, rerr := n.rpcCall(t, "pruneblockchain", 4_000_000_000); rerr == nil || rerr.Code != -8 {
		t.Errorf("pruneblockchain future timestamp: %v", rerr)
	}
	if res := n.must(t, "verifychain", 4, 0); string(res) != "true" {
		t.Errorf("verifychain on a pruning node: %s", res)
	}
}

// TestRPCNodeAddresses: getnodeaddresses reports the address manager's
// entries with bitcoind's fields and filters by network. The node uses
// --connect (to a closed loopback port), which turns automatic outbound
// connections off, so it never dials the public addresses it is given.
func TestRPCNodeAddresses(t *testing.T) {
	n := newTestNode(t, "--connect=127.0.0.1:1")
	now := uint32(time.Now().Unix())
	addrs := []wire.NetAddressV2{
		{Timestamp: now, Services: wire.SFNodeNetwork | wire.SFNodeWitness, NetworkID: wire.NetIPv4, Addr: []byte{1, 2, 3, 4}, Port: 18444},
		{Timestamp: now, Services: wire.SFNodeNetwork, NetworkID: wire.NetIPv6, Addr: []byte{0x2a, 0x00, 15: 1}, Port: 18445},
	}
	src := wire.NetAddressV2{NetworkID: wire.NetIPv4, Addr: []byte{198, 51, 100, 1}, Port: 18444}
	if k := n.s.addrs.AddAddresses(addrs, src, 0); k != 2 {
		t.Skipf("address manager took %d of the test addresses", k)
	}
	var all []json.RawMessage
	json.Unmarshal(n.must(t, "getnodeaddresses", 0), &all)
	if len(all) != 2 {
		t.Fatalf("getnodeaddresses 0: %d entries", len(all))
	}
	for _, a := range all {
		checkShape(t, "getnodeaddresses", a, shape{"time": "number", "services": "number", "address": "string", "port": "number", "network": "string"})
	}
	var v4 []struct {
		Address  string `json:"address"`
		Port     int    `json:"port"`
		Network  string `json:"network"`
		Services uint64 `json:"services"`
	}
	json.Unmarshal(n.must(t, "getnodeaddresses", 0, "ipv4"), &v4)
	if len(v4) != 1 || v4[0].Address != "1.2.3.4" || v4[0].Port != 18444 || v4[0].Network != "ipv4" || v4[0].Services != 9 {
		t.Errorf("getnodeaddresses ipv4: %+v", v4)
	}
	json.Unmarshal(n.must(t, "getnodeaddresses"), &all)
	if len(all) != 1 {
		t.Errorf("getnodeaddresses default count: %d entries", len(all))
	}
}
