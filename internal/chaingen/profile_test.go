package chaingen

import (
	"errors"
	"testing"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

func TestConfigForSize(t *testing.T) {
	c, err := ConfigForSize("mainnet-scale")
	if err != nil || c.Profile != ProfileMainnetScale || c.Txs < 5_000_000 || c.TxPerBlock != MainnetScaleTxPerBlock {
		t.Fatalf("mainnet-scale: %+v, %v", c, err)
	}
	if !c.Profile.Unsigned() || ProfileSigned.Unsigned() {
		t.Fatal("Unsigned")
	}
	c, err = ConfigForSize("medium")
	if err != nil || c.Profile != ProfileSigned || c.Txs != MediumTxs {
		t.Fatalf("medium: %+v, %v", c, err)
	}
	if _, err := ConfigForSize("huge"); !errors.Is(err, ErrConfig) {
		t.Fatal(err)
	}
	if _, err := New(Config{Txs: 1, Profile: numProfiles}); !errors.Is(err, ErrConfig) {
		t.Fatal(err)
	}
}

// TestMainnetScaleProfile generates the profile at a tiny scale (small
// blocks, so that coins reach every age of the window) and checks that
// the chain is valid, unsigned, grows the UTXO set fast enough for the
// full size to pass 10 million coins, and follows the spend-age mix.
func TestMainnetScaleProfile(t *testing.T) {
	// Enough blocks (700) for coins older than the 432-block window;
	// about 8 s, so -short runs it too.
	txs, perBlock := 24_000, 40
	cfg := Config{Txs: txs, TxPerBlock: perBlock, Seed: 5, Keys: 3, Profile: ProfileMainnetScale}
	blocks, st := rawChain(t, cfg)
	if st.Transactions != txs || st.Signatures != 0 {
		t.Fatalf("%d transactions, %d signatures", st.Transactions, st.Signatures)
	}
	p := &chaincfg.RegressionNetParams
	if n := verifyChain(t, p, blocks); n != st.Inputs {
		t.Fatalf("verified %d inputs, stats say %d", n, st.Inputs)
	}
	for k := range numKinds {
		if k < numSignedKinds && st.InputTypes[k.String()]+st.OutputTypes[k.String()] != 0 {
			t.Errorf("signed kind %v in an unsigned chain", k)
		}
		if k >= numSignedKinds && st.InputTypes[k.String()] == 0 {
			t.Errorf("no %v input", k)
		}
	}

	// Walk the chain: transaction shapes and the age of every spent coin.
	born := make(map[wire.OutPoint]int32)
	var ins, outs, txCount int
	var ages [4]int // same block, 1-6 blocks, 7-432 blocks, older
	measureFrom := int32(len(blocks) * 2 / 3)
	for i, raw := range blocks {
		h := int32(i + 1)
		var b wire.MsgBlock
		if _, err := b.Decode(raw); err != nil {
			t.Fatal(err)
		}
		for ti, tx := range b.Transactions {
			if ti > 0 {
				txCount++
				ins += len(tx.TxIn)
				outs += len(tx.TxOut)
				for _, in := range tx.TxIn {
					bh, ok := born[in.PreviousOutPoint]
					if !ok {
						t.Fatalf("block %d: unknown coin", h)
					}
					delete(born, in.PreviousOutPoint)
					if h < measureFrom {
						continue
					}
					switch age := h - bh; {
					case age == 0:
						ages[0]++
					case age <= hourBlocks:
						ages[1]++
					case age <= ageWindow:
						ages[2]++
					default:
						ages[3]++
					}
				}
			}
			txid := tx.TxHash()
			for oi, o := range tx.TxOut {
				if !txscript.IsUnspendable(o.PkScript) {
					born[wire.OutPoint{Hash: txid, Index: uint32(oi)}] = h
				}
			}
		}
	}
	inMean, outMean := float64(ins)/float64(txCount), float64(outs)/float64(txCount)
	if inMean < 1.35 || inMean > 1.55 || outMean < 3.3 || outMean > 3.7 {
		t.Errorf("%.2f inputs and %.2f outputs per transaction", inMean, outMean)
	}
	// Growth from transactions alone, without coinbase outputs.
	if g := outMean - inMean; g < 2.0 {
		t.Errorf("UTXO set grows by %.2f coins per transaction; the full size needs 2 for 10M", g)
	}
	total := ages[0] + ages[1] + ages[2] + ages[3]
	pct := func(i int) float64 { return 100 * float64(ages[i]) / float64(total) }
	t.Logf("%d blocks, %d unspent; ages over the last third: same %.1f%%, 1-6 %.1f%%, 7-432 %.1f%%, older %.1f%%",
		len(blocks), len(born), pct(0), pct(1), pct(2), pct(3))
	switch {
	case pct(0) < 7 || pct(0) > 13:
		t.Errorf("same-block spends %.1f%%, want about %d%%", pct(0), pctAgedSame)
	case pct(1) < 24 || pct(1) > 36:
		t.Errorf("spends of the last hour %.1f%%, want about %d%%", pct(1), pctAgedHour)
	case pct(2) < 38 || pct(2) > 52:
		t.Errorf("spends of 7-%d blocks %.1f%%, want about %d%%", ageWindow, pct(2), pctAgedDays)
	case pct(3) < 10 || pct(3) > 20:
		t.Errorf("older spends %.1f%%, want about %d%%", pct(3), 100-pctAgedSame-pctAgedHour-pctAgedDays)
	}
}
