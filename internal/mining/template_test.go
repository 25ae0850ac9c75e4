package mining

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/wire"
)

// TestTemplateWitnessCommitment: before segwit activates a template has
// no witness data (witness transactions and their descendants are left in
// the pool, the coinbase has no nonce) but, as Core's, the commitment
// output; from activation the coinbase commits to the block's witness
// root with a zero nonce in its witness.
func TestTemplateWitnessCommitment(t *testing.T) {
	h := newHarness(t, nil)
	legacy := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	legacy.TxIn[0].Witness = nil
	legacy.TxIn[0].SignatureScript = []byte{0x51}
	wit := spend([]wire.OutPoint{h.coin(100_000)}, 98_000)
	child := spend([]wire.OutPoint{outpoint(wit, 0)}, 97_000)
	child.TxIn[0].Witness = nil
	h.accept(legacy, wit, child)

	h.params.SegwitHeight = h.chain.tip.Height + 2
	tpl, err := h.miner.NewTemplate([]byte{0x51}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cb := tpl.Block.Transactions[0]
	if len(cb.TxOut) != 2 || !bytes.Equal(cb.TxOut[1].PkScript, tpl.WitnessCommitment) || cb.HasWitness() {
		t.Fatalf("before segwit: commitment %x, %d coinbase outputs", tpl.WitnessCommitment, len(cb.TxOut))
	}
	if len(tpl.Block.Transactions) != 2 || tpl.TxIDs[0] != legacy.TxHash() || tpl.TotalFees != 1000 {
		t.Fatalf("before segwit: %d transactions, fees %d", len(tpl.Block.Transactions), tpl.TotalFees)
	}
	if tpl.CoinbaseValue != blockchain.CalcBlockSubsidy(tpl.Height, h.params.SubsidyHalvingInterval)+1000 || cb.TxOut[0].Value != tpl.CoinbaseValue {
		t.Fatalf("coinbase value %d", cb.TxOut[0].Value)
	}

	h.params.SegwitHeight = h.chain.tip.Height + 1
	tpl, err = h.miner.NewTemplate([]byte{0x51}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cb = tpl.Block.Transactions[0]
	if len(tpl.Block.Transactions) != 4 || len(cb.TxOut) != 2 || !bytes.Equal(cb.TxOut[1].PkScript, tpl.WitnessCommitment) {
		t.Fatalf("after segwit: %d transactions, coinbase outputs %d", len(tpl.Block.Transactions), len(cb.TxOut))
	}
	root := tpl.Block.WitnessMerkleRoot()
	commit := blockchain.WitnessCommitment(&root, make([]byte, 32))
	if want := blockchain.AppendWitnessCommitmentScript(nil, &commit); !bytes.Equal(tpl.WitnessCommitment, want) {
		t.Fatalf("commitment %x, want %x", tpl.WitnessCommitment, want)
	}
	if len(cb.TxIn[0].Witness) != 1 || !bytes.Equal(cb.TxIn[0].Witness[0], make([]byte, 32)) {
		t.Fatal("coinbase witness nonce")
	}
	if mr, _ := tpl.Block.MerkleRoot(); mr != tpl.Block.Header.MerkleRoot {
		t.Fatal("merkle root")
	}
}

// TestTemplateVersionBits: a client template forces locked-in bits on,
// lists started deployments in vbavailable and active ones in rules, and
// a mandatory deployment follows the client's rules.
func TestTemplateVersionBits(t *testing.T) {
	mandatory := map[string]bool{}
	h := newHarness(t, func(c *Config) { c.MandatoryRules = mandatory })
	dummy := h.params.Deployments[chaincfg.DeploymentTestDummy]
	h.chain.states[chaincfg.DeploymentTaproot] = blockchain.ThresholdActive
	h.chain.states[chaincfg.DeploymentTestDummy] = blockchain.ThresholdLockedIn
	tpl, err := h.miner.NewTemplate(nil, nil, &Client{Rules: []string{"segwit"}})
	if err != nil {
		t.Fatal(err)
	}
	mask := int32(1) << dummy.Bit
	if tpl.Block.Header.Version != 0x20000000|mask || !slices.Equal(tpl.Rules, []string{"csv", "!segwit", "taproot"}) ||
		!maps.Equal(tpl.VBAvailable, map[string]int{"testdummy": int(dummy.Bit)}) {
		t.Fatalf("locked in: version %#x rules %v vbavailable %v", tpl.Block.Header.Version, tpl.Rules, tpl.VBAvailable)
	}
	// Generated blocks use the node's version as it is.
	if tpl, _ := h.miner.NewTemplate(nil, nil, nil); tpl.Block.Header.Version != 0x20000000 || tpl.Rules != nil {
		t.Fatalf("generate: version %#x", tpl.Block.Header.Version)
	}

	mandatory["testdummy"] = true
	tpl, _ = h.miner.NewTemplate(nil, nil, &Client{})
	if tpl.Block.Header.Version != 0x20000000 || tpl.VBAvailable["!testdummy"] != int(dummy.Bit) {
		t.Fatalf("mandatory, unsupported: version %#x vbavailable %v", tpl.Block.Header.Version, tpl.VBAvailable)
	}
	h.chain.states[chaincfg.DeploymentTestDummy] = blockchain.ThresholdActive
	_, err = h.miner.NewTemplate(nil, nil, &Client{})
	var ue *UnsupportedRuleError
	if !errors.As(err, &ue) || ue.Rule != "testdummy" {
		t.Fatalf("active mandatory rule without client support: %v", err)
	}
	tpl, err = h.miner.NewTemplate(nil, nil, &Client{Rules: []string{"testdummy"}})
	if err != nil || !slices.Equal(tpl.Rules, []string{"csv", "!segwit", "taproot", "!testdummy"}) {
		t.Fatalf("active mandatory, supported: %v %v", tpl, err)
	}
}

// TestGenerate: each block is solved, submitted through Config.Submit and
// built on the previous one; the mempool's transactions go in the first.
func TestGenerate(t *testing.T) {
	h := newHarness(t, nil)
	tx := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	h.accept(tx)
	hashes, err := h.miner.Generate(3, []byte{0x51}, 0, nil)
	if err != nil || len(hashes) != 3 || len(h.mined) != 3 {
		t.Fatalf("%d blocks, %v", len(hashes), err)
	}
	for i, blk := range h.mined {
		if blk.BlockHash() != hashes[i] || (i > 0 && blk.Header.PrevBlock != hashes[i-1]) {
			t.Fatalf("block %d not on the previous one", i)
		}
		target := chaincfg.CompactToBig(blk.Header.Bits)
		hash := blk.BlockHash()
		if blockchain.HashToBig(&hash).Cmp(target) > 0 {
			t.Fatalf("block %d not solved", i)
		}
	}
	if len(h.mined[0].Transactions) != 2 || h.mined[0].Transactions[1] != tx {
		t.Fatal("mempool transaction not mined")
	}
	// A submission error stops generation and is returned unchanged.
	stop := errors.New("refused")
	h2 := newHarness(t, func(c *Config) { c.Submit = func(*wire.MsgBlock) error { return stop } })
	if hs, err := h2.miner.Generate(2, nil, 0, nil); len(hs) != 0 || err != stop {
		t.Fatalf("%v %v", hs, err)
	}
}

// TestGenerateBlock: given transactions are checked (inputs from the UTXO
// set or earlier in the block, then the chain's template check) before
// the block is solved; submit=false returns the block.
func TestGenerateBlock(t *testing.T) {
	h := newHarness(t, nil)
	parent := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	child := spend([]wire.OutPoint{outpoint(parent, 0)}, 98_000)
	_, _, err := h.miner.GenerateBlock(nil, []*wire.MsgTx{child, parent}, true)
	var ve *ValidityError
	want := "TestBlockValidity failed: bad-txns-inputs-missingorspent, CheckTxInputs: inputs missing/spent in transaction " + child.TxHash().String()
	if !errors.As(err, &ve) || err.Error() != want {
		t.Fatalf("child first: %v", err)
	}
	hash, raw, err := h.miner.GenerateBlock(nil, []*wire.MsgTx{parent, child}, false)
	if err != nil || len(h.mined) != 0 {
		t.Fatalf("submit=false: %v, %d mined", err, len(h.mined))
	}
	var blk wire.MsgBlock
	if _, err := blk.Decode(raw); err != nil || blk.BlockHash() != hash || len(blk.Transactions) != 3 ||
		blk.Transactions[0].TxOut[0].Value != blockchain.CalcBlockSubsidy(h.chain.tip.Height+1, h.params.SubsidyHalvingInterval)+2000 {
		t.Fatalf("returned block: %v", err)
	}
	h.chain.checkErr = &blockchain.RuleError{Kind: blockchain.ErrBadCoinbaseHeight, Reason: "bad-cb-amount"}
	if _, _, err := h.miner.GenerateBlock(nil, nil, true); err == nil || err.Error() != "TestBlockValidity failed: bad-cb-amount" {
		t.Fatalf("invalid block: %v", err)
	}
	// A tip that moved while the block was checked is not a refusal.
	h.chain.checkErr = &blockchain.RuleError{Kind: blockchain.ErrPrevBlockNotBest}
	if _, _, err := h.miner.GenerateBlock(nil, nil, true); err != nil || len(h.mined) != 1 {
		t.Fatalf("stale tip: %v", err)
	}
}

// TestCheckProposal: known blocks are duplicates, a block on another tip
// is inconclusive, the chain's check decides the rest.
func TestCheckProposal(t *testing.T) {
	h := newHarness(t, nil)
	tpl, err := h.miner.NewTemplate(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := h.miner.CheckProposal(tpl.Block); r != "" || err != nil {
		t.Fatalf("valid: %q %v", r, err)
	}
	h.chain.checkErr = &blockchain.RuleError{Kind: blockchain.ErrBadMerkleRoot, Reason: "bad-txnmrklroot"}
	if r, _ := h.miner.CheckProposal(tpl.Block); r != "bad-txnmrklroot" {
		t.Fatalf("invalid: %q", r)
	}
	h.chain.blocks[tpl.Block.BlockHash()] = blockchain.BlockStatus{Valid: true}
	if r, _ := h.miner.CheckProposal(tpl.Block); r != "duplicate" {
		t.Fatalf("known: %q", r)
	}
	h.chain.setTip(wire.Hash{1})
	tpl.Block.Header.Nonce++
	if r, _ := h.miner.CheckProposal(tpl.Block); r != "inconclusive-not-best-prevblk" {
		t.Fatalf("other tip: %q", r)
	}
}
