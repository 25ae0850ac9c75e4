package rpc

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// fakeChain is a two-block chain: a genesis block with the mainnet genesis
// coinbase and block 1 with a coinbase and the first bitcoin spend.
type fakeChain struct {
	blocks []*wire.MsgBlock
	hashes []wire.Hash
}

func decodeTxMust(h string) *wire.MsgTx {
	var tx wire.MsgTx
	if _, err := tx.Decode(mustHex(h)); err != nil {
		panic(err)
	}
	return &tx
}

func newFakeChain() *fakeChain {
	cb := decodeTxMust(genesisCoinbaseHex)
	g := &wire.MsgBlock{Header: wire.BlockHeader{Version: 1, Timestamp: 1296688602, Bits: 0x207fffff, Nonce: 2}, Transactions: []*wire.MsgTx{cb}}
	g.Header.MerkleRoot = cb.TxHash()
	cb1 := &wire.MsgTx{Version: 2, TxIn: []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Index: wire.MaxPrevOutIndex}, SignatureScript: []byte{1, 1}, Sequence: 0xffffffff}},
		TxOut: []wire.TxOut{{Value: 5000000000, PkScript: mustHex("0014751e76e8199196d454941c45d1b3a323f1433bd6")}}}
	b1 := &wire.MsgBlock{Header: wire.BlockHeader{Version: 0x20000000, PrevBlock: g.BlockHash(), Timestamp: 1296688700, Bits: 0x207fffff},
		Transactions: []*wire.MsgTx{cb1, decodeTxMust(firstSpendHex)}}
	return &fakeChain{blocks: []*wire.MsgBlock{g, b1}, hashes: []wire.Hash{g.BlockHash(), b1.BlockHash()}}
}

func (f *fakeChain) find(h wire.Hash) int {
	for i, x := range f.hashes {
		if x == h {
			return i
		}
	}
	return -1
}

func (f *fakeChain) backend() *ChainBackend {
	return &ChainBackend{
		BestBlock: func() (wire.Hash, int32, error) { return f.hashes[1], 1, nil },
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
			info := &BlockHeaderInfo{Height: int32(i), Confirmations: int64(2 - i), MedianTime: int64(f.blocks[i].Header.Timestamp),
				ChainWork: strings.Repeat("0", 63) + string(rune('2'+2*i)), NTx: len(f.blocks[i].Transactions)}
			if i == 0 {
				info.NextHash = f.hashes[1].String()
			}
			return &f.blocks[i].Header, info, nil
		},
		Block: func(h wire.Hash) (*wire.MsgBlock, error) {
			if i := f.find(h); i >= 0 {
				return f.blocks[i], nil
			}
			return nil, ErrBlockNotFound
		},
		BlockPrevOuts: func(h wire.Hash) ([][]PrevOut, error) {
			if f.find(h) != 1 {
				return nil, nil
			}
			return [][]PrevOut{{{Generated: true, Height: 9, Value: 5000000000, PkScript: f.blocks[0].Transactions[0].TxOut[0].PkScript}}}, nil
		},
		BlockchainInfo: func() (*BlockchainInfo, error) {
			return &BlockchainInfo{Chain: "regtest", Blocks: 1, Headers: 1, BestBlockHash: f.hashes[1].String(), Bits: BitsHex(0x207fffff),
				Target: TargetHex(0x207fffff), Difficulty: GetDifficulty(0x207fffff), Warnings: []string{}}, nil
		},
		ChainTips: func() ([]ChainTip, error) {
			return []ChainTip{{Height: 1, Hash: f.hashes[1].String(), Status: "active"}}, nil
		},
		BlockStats: func(h wire.Hash) (*BlockStats, error) { return &BlockStats{Height: int32(f.find(h)), Txs: 2}, nil },
		TxOut: func(op wire.OutPoint, mem bool) (*TxOutInfo, error) {
			if op.Index != 0 {
				return nil, nil
			}
			return &TxOutInfo{BestBlock: f.hashes[1], Confirmations: 1, Value: 100, PkScript: []byte{0x51}}, nil
		},
		Transaction: func(txid wire.Hash, bh *wire.Hash) (*TxLookup, error) {
			tx := f.blocks[1].Transactions[1]
			if txid != tx.TxHash() {
				return nil, ErrTxNotFound
			}
			b := f.hashes[1]
			return &TxLookup{Tx: tx, BlockHash: &b, Confirmations: 1, BlockTime: 1296688700}, nil
		},
	}
}

func TestChainMethods(t *testing.T) {
	f := newFakeChain()
	_, url := startServer(t, func(c *Config) { c.Backend.Chain = f.backend() })

	if got := mustResult(t, url, "getbestblockhash", nil); got != f.hashes[1].String() {
		t.Errorf("getbestblockhash %v", got)
	}
	if got := mustResult(t, url, "getblockcount", nil); got != json.Number("1") {
		t.Errorf("getblockcount %v", got)
	}
	if got := mustResult(t, url, "getblockhash", []any{0}); got != f.hashes[0].String() {
		t.Errorf("getblockhash %v", got)
	}
	e := mustError(t, url, "getblockhash", []any{5}, ErrInvalidParam)
	if e.Message != "Block height out of range" {
		t.Errorf("%q", e.Message)
	}
	r := rpcCall(t, url, "getdifficulty", nil)
	if string(r.Result) != "4.656542373906925e-10" {
		t.Errorf("getdifficulty %s", r.Result)
	}

	hdrShape := shape{"hash": "string", "confirmations": "number", "height": "number", "version": "number", "versionHex": "string",
		"merkleroot": "string", "time": "number", "mediantime": "number", "nonce": "number", "bits": "string", "target": "string",
		"difficulty": "number", "chainwork": "string", "nTx": "number", "previousblockhash": "string?", "nextblockhash": "string?"}
	v := mustResult(t, url, "getblockheader", []any{f.hashes[1].String()})
	checkShape(t, "getblockheader", v, hdrShape)
	h := v.(map[string]any)
	if h["versionHex"] != "20000000" || h["bits"] != "207fffff" || h["previousblockhash"] != f.hashes[0].String() || h["nextblockhash"] != nil {
		t.Errorf("header %v", h)
	}
	g := mustResult(t, url, "getblockheader", []any{f.hashes[0].String()}).(map[string]any)
	if g["previousblockhash"] != nil || g["nextblockhash"] != f.hashes[1].String() {
		t.Errorf("genesis header %v", g)
	}
	raw := mustResult(t, url, "getblockheader", []any{f.hashes[1].String(), false}).(string)
	if len(raw) != 160 {
		t.Errorf("raw header %s", raw)
	}
	mustError(t, url, "getblockheader", []any{strings.Repeat("0", 64)}, ErrInvalidAddress)
	e = mustError(t, url, "getblockheader", []any{"xyz"}, ErrInvalidParam)
	if e.Message != "blockhash must be of length 64 (not 3, for 'xyz')" {
		t.Errorf("%q", e.Message)
	}

	blockShape := shape{"strippedsize": "number", "size": "number", "weight": "number", "tx": "array"}
	for k, v := range hdrShape {
		blockShape[k] = v
	}
	hexBlock := mustResult(t, url, "getblock", []any{f.hashes[1].String(), 0}).(string)
	if hexBlock != hex.EncodeToString(f.blocks[1].Bytes()) {
		t.Errorf("getblock 0")
	}
	if got := mustResult(t, url, "getblock", []any{f.hashes[1].String(), false}); got != hexBlock {
		t.Errorf("getblock false")
	}
	for _, verb := range []any{nil, 1, true} {
		params := []any{f.hashes[1].String()}
		if verb != nil {
			params = append(params, verb)
		}
		v = mustResult(t, url, "getblock", params)
		checkShape(t, "getblock 1", v, blockShape)
		txs := v.(map[string]any)["tx"].([]any)
		if len(txs) != 2 || txs[1] != "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16" {
			t.Errorf("getblock %v tx %v", verb, txs)
		}
	}
	v = mustResult(t, url, "getblock", []any{f.hashes[1].String(), 2})
	txs := v.(map[string]any)["tx"].([]any)
	tx1 := txs[1].(map[string]any)
	if tx1["fee"] != json.Number("0.00000000") || tx1["hex"] != firstSpendHex {
		t.Errorf("verbosity 2 tx %v", tx1)
	}
	if _, ok := tx1["vin"].([]any)[0].(map[string]any)["prevout"]; ok {
		t.Errorf("verbosity 2 has prevout")
	}
	v = mustResult(t, url, "getblock", map[string]any{"blockhash": f.hashes[1].String(), "verbosity": 3})
	po := v.(map[string]any)["tx"].([]any)[1].(map[string]any)["vin"].([]any)[0].(map[string]any)["prevout"]
	checkShape(t, "prevout", po, shape{"generated": "boolean", "height": "number", "value": "number", "scriptPubKey": "object"})
	mustError(t, url, "getblock", []any{f.hashes[1].String(), "x"}, ErrType)

	v = mustResult(t, url, "getblockchaininfo", nil)
	checkShape(t, "getblockchaininfo", v, shape{"chain": "string", "blocks": "number", "headers": "number", "bestblockhash": "string",
		"bits": "string", "target": "string", "difficulty": "number", "time": "number", "mediantime": "number",
		"verificationprogress": "number", "initialblockdownload": "boolean", "chainwork": "string", "size_on_disk": "number",
		"pruned": "boolean", "warnings": "array"})
	v = mustResult(t, url, "getchaintips", nil)
	checkShape(t, "chaintip", v.([]any)[0], shape{"height": "number", "hash": "string", "branchlen": "number", "status": "string"})

	v = mustResult(t, url, "getblockstats", []any{1, []any{"height", "txs"}})
	if m := v.(map[string]any); len(m) != 2 || m["txs"] != json.Number("2") || m["height"] != json.Number("1") {
		t.Errorf("getblockstats %v", v)
	}
	if m := mustResult(t, url, "getblockstats", []any{f.hashes[0].String()}).(map[string]any); len(m) != len(blockStatNames) {
		t.Errorf("getblockstats all: %d fields", len(m))
	}
	e = mustError(t, url, "getblockstats", []any{1, []any{"bogus"}}, ErrInvalidParam)
	if e.Message != "Invalid selected statistic 'bogus'" {
		t.Errorf("%q", e.Message)
	}
	mustError(t, url, "getblockstats", []any{7}, ErrInvalidParam)

	v = mustResult(t, url, "gettxout", []any{f.hashes[0].String(), 0})
	checkShape(t, "gettxout", v, shape{"bestblock": "string", "confirmations": "number", "value": "number", "scriptPubKey": "object", "coinbase": "boolean"})
	if r := rpcCall(t, url, "gettxout", []any{f.hashes[0].String(), 1}); string(r.Result) != "null" || r.Error != nil {
		t.Errorf("spent gettxout: %s", r.Result)
	}

	txid := "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16"
	if got := mustResult(t, url, "getrawtransaction", []any{txid}); got != firstSpendHex {
		t.Errorf("getrawtransaction hex %v", got)
	}
	for _, verb := range []any{true, 1} {
		v = mustResult(t, url, "getrawtransaction", []any{txid, verb})
		want := shape{"hex": "string", "blockhash": "string", "confirmations": "number", "time": "number", "blocktime": "number"}
		for k, s := range txShape {
			want[k] = s
		}
		checkShape(t, "getrawtransaction", v, want)
	}
	e = mustError(t, url, "getrawtransaction", []any{strings.Repeat("1", 64)}, ErrInvalidAddress)
	if !strings.HasPrefix(e.Message, "No such mempool or blockchain transaction") {
		t.Errorf("%q", e.Message)
	}

	// Methods whose backend function is missing are not found.
	mustError(t, url, "getchaintxstats", nil, ErrMethodNotFound)
	mustError(t, url, "getmempoolinfo", nil, ErrMethodNotFound)
	mustError(t, url, "getmininginfo", nil, ErrMethodNotFound)
	mustError(t, url, "getpeerinfo", nil, ErrMethodNotFound)
}

func TestMempoolMiningNetMethods(t *testing.T) {
	var lastRate atomic.Int64
	var genScript atomic.Value
	tx := decodeTxMust(firstSpendHex)
	t2 := true
	_, url := startServer(t, func(c *Config) {
		c.Backend.Mempool = &MempoolBackend{
			TxIDs: func() ([]wire.Hash, uint64, error) { return []wire.Hash{tx.TxHash()}, 42, nil },
			Entry: func(h wire.Hash) (*MempoolEntry, error) {
				return &MempoolEntry{VSize: 10, WTxID: h.String(), Fees: MempoolFees{Base: FormatBTC(1), Modified: FormatBTC(1), Ancestor: FormatBTC(1), Descendant: FormatBTC(1)}, Depends: []string{}, SpentBy: []string{}}, nil
			},
			Send: func(m *wire.MsgTx, rate int64) (wire.Hash, error) {
				lastRate.Store(rate)
				return m.TxHash(), nil
			},
			TestAccept: func(txs []*wire.MsgTx, rate int64) ([]MempoolAcceptResult, error) {
				return []MempoolAcceptResult{{TxID: txs[0].TxHash().String(), WTxID: txs[0].WitnessHash().String(), Allowed: &t2, VSize: 100,
					Fees: &MempoolAcceptFees{Base: FormatBTC(100), EffectiveFeeRate: FormatBTC(1000), EffectiveIncludes: []string{}}}}, nil
			},
			EstimateSmartFee: func(n int64, mode string) (*EstimateSmartFeeResult, error) {
				return &EstimateSmartFeeResult{FeeRate: FormatBTC(1000), Blocks: n}, nil
			},
		}
		c.Backend.Mining = &MiningBackend{
			Generate: func(n int64, script []byte, tries uint64) ([]wire.Hash, error) {
				genScript.Store(hex.EncodeToString(script))
				return make([]wire.Hash, n), nil
			},
			NetworkHashPS: func(n, h int64) (float64, error) { return 1.0 / 3, nil },
		}
		c.Backend.Net = &NetBackend{
			PeerInfo: func() ([]PeerInfo, error) {
				return []PeerInfo{{ID: 1, Addr: "127.0.0.1:18444", Network: "ipv4", Services: "0000000000000409", ServicesNames: []string{"NETWORK", "WITNESS"},
					MinFeeFilter: FormatBTC(0), Inflight: []int32{}, Permissions: []string{}, BytesSentPerMsg: map[string]int64{}, BytesRecvPerMsg: map[string]int64{},
					ConnectionType: "outbound-full-relay", TransportProtocolType: "v1"}}, nil
			},
			ConnectionCount: func() (int, error) { return 3, nil },
		}
	})
	txid := tx.TxHash().String()
	if got := mustResult(t, url, "getrawmempool", nil).([]any); len(got) != 1 || got[0] != txid {
		t.Errorf("getrawmempool %v", got)
	}
	v := mustResult(t, url, "getrawmempool", []any{true}).(map[string]any)
	checkShape(t, "mempool entry", v[txid], shape{"vsize": "number", "weight": "number", "time": "number", "height": "number",
		"descendantcount": "number", "descendantsize": "number", "ancestorcount": "number", "ancestorsize": "number", "wtxid": "string",
		"fees": "object", "depends": "array", "spentby": "array", "bip125-replaceable": "boolean", "unbroadcast": "boolean"})
	seq := mustResult(t, url, "getrawmempool", []any{false, true}).(map[string]any)
	if seq["mempool_sequence"] != json.Number("42") {
		t.Errorf("mempool_sequence %v", seq)
	}
	mustError(t, url, "getrawmempool", []any{true, true}, ErrInvalidParam)

	for _, c := range []struct {
		params []any
		rate   int64
	}{
		{[]any{firstSpendHex}, 10000000},
		{[]any{firstSpendHex, true}, 0},
		{[]any{firstSpendHex, false}, 10000000},
		{[]any{firstSpendHex, 0.05}, 5000000},
		{[]any{firstSpendHex, "0"}, 0},
	} {
		if got := mustResult(t, url, "sendrawtransaction", c.params); got != txid {
			t.Errorf("sendrawtransaction %v", got)
		}
		if lastRate.Load() != c.rate {
			t.Errorf("%v: maxfeerate %d, want %d", c.params[1:], lastRate.Load(), c.rate)
		}
	}
	mustError(t, url, "sendrawtransaction", []any{firstSpendHex, 1}, ErrInvalidParam)
	e := mustError(t, url, "sendrawtransaction", []any{"00"}, ErrDeserialization)
	if e.Message != "TX decode failed. Make sure the tx has at least one input." {
		t.Errorf("%q", e.Message)
	}
	v2 := mustResult(t, url, "testmempoolaccept", []any{[]any{firstSpendHex}}).([]any)
	checkShape(t, "testmempoolaccept", v2[0], shape{"txid": "string", "wtxid": "string", "allowed": "boolean", "vsize": "number", "fees": "object"})
	checkShape(t, "estimatesmartfee", mustResult(t, url, "estimatesmartfee", []any{6}), shape{"feerate": "number", "blocks": "number"})
	mustError(t, url, "estimatesmartfee", []any{0}, ErrInvalidParam)

	hs := mustResult(t, url, "generatetoaddress", []any{2, "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"}).([]any)
	if len(hs) != 2 || genScript.Load() != "0014751e76e8199196d454941c45d1b3a323f1433bd6" {
		t.Errorf("generatetoaddress %v %v", hs, genScript.Load())
	}
	e = mustError(t, url, "generatetoaddress", []any{1, "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"}, ErrInvalidAddress)
	if e.Message != "Error: Invalid address" {
		t.Errorf("%q", e.Message)
	}
	mustResult(t, url, "generatetodescriptor", []any{1, "raw(51)"})
	if genScript.Load() != "51" {
		t.Errorf("generatetodescriptor script %v", genScript.Load())
	}
	if r := rpcCall(t, url, "getnetworkhashps", nil); string(r.Result) != "0.3333333333333333" {
		t.Errorf("getnetworkhashps %s", r.Result)
	}

	peers := mustResult(t, url, "getpeerinfo", nil).([]any)
	checkShape(t, "peer", peers[0], shape{"id": "number", "addr": "string", "network": "string", "services": "string",
		"servicesnames": "array", "relaytxes": "boolean", "lastsend": "number", "lastrecv": "number", "last_transaction": "number",
		"last_block": "number", "bytessent": "number", "bytesrecv": "number", "conntime": "number", "timeoffset": "number",
		"version": "number", "subver": "string", "inbound": "boolean", "bip152_hb_to": "boolean", "bip152_hb_from": "boolean",
		"startingheight": "number", "presynced_headers": "number", "synced_headers": "number", "synced_blocks": "number",
		"inflight": "array", "addr_relay_enabled": "boolean", "addr_processed": "number", "addr_rate_limited": "number",
		"permissions": "array", "minfeefilter": "number", "bytessent_per_msg": "object", "bytesrecv_per_msg": "object",
		"connection_type": "string", "transport_protocol_type": "string", "session_id": "string"})
	if got := mustResult(t, url, "getconnectioncount", nil); got != json.Number("3") {
		t.Errorf("getconnectioncount %v", got)
	}
	mustError(t, url, "addnode", []any{"x", "add"}, ErrMethodNotFound)
}
