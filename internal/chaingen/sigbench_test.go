package chaingen

import (
	"errors"
	"testing"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

func collect(t testing.TB, cfg Config) (*Collector, Stats) {
	t.Helper()
	col := NewCollector()
	st, err := Generate(cfg, col.Add)
	if err != nil {
		t.Fatal(err)
	}
	return col, st
}

func TestSigBench(t *testing.T) {
	col, st := collect(t, Config{Txs: 800, TxPerBlock: 400, Seed: 5, Keys: 64})
	r, err := SigBench(col.Txs, 2)
	if err != nil {
		t.Fatal(err)
	}
	if r.Signatures != st.Signatures || r.Inputs != st.Inputs || r.Transactions != st.Transactions {
		t.Fatalf("bench saw %d sigs/%d inputs/%d txs, generator made %d/%d/%d",
			r.Signatures, r.Inputs, r.Transactions, st.Signatures, st.Inputs, st.Transactions)
	}
	if r.Schnorr != st.InputTypes["p2tr-key"]+st.InputTypes["p2tr-script"] {
		t.Fatalf("%d schnorr signatures, %v", r.Schnorr, st.InputTypes)
	}

	// A corrupted signature must fail, so the benchmark really verifies.
	var checks []SigCheck
	for i := range col.Txs {
		hs := txscript.NewTxSigHashes(col.Txs[i].Tx, col.Txs[i].Prevs)
		if checks, err = AppendSigChecks(checks, &col.Txs[i], hs); err != nil {
			t.Fatal(err)
		}
	}
	seen := [2]bool{}
	for i := range checks {
		c := checks[i]
		if seen[boolInt(c.Schnorr)] {
			continue
		}
		seen[boolInt(c.Schnorr)] = true
		c.Hash[0] ^= 1
		if c.Verify() {
			t.Fatalf("tampered check %d (schnorr %v) verifies", i, c.Schnorr)
		}
	}
	col.Txs[0].Tx.TxIn[0].Witness = nil
	col.Txs[0].Tx.TxIn[0].SignatureScript = nil
	if _, err := SigBench(col.Txs[:1], 1); !errors.Is(err, ErrBadChain) {
		t.Fatalf("stripped input: %v", err)
	}
}

// BenchmarkVerifySig is one signature verification with plain btcec
// (parse key and signature, verify): over the generator's real mix, and
// for each algorithm alone.
func BenchmarkVerifySig(b *testing.B) {
	col, _ := collect(b, Config{Txs: 600, TxPerBlock: 600, Seed: 2, Keys: 64})
	var all, ec, sc []SigCheck
	var err error
	for i := range col.Txs {
		hs := txscript.NewTxSigHashes(col.Txs[i].Tx, col.Txs[i].Prevs)
		if all, err = AppendSigChecks(all, &col.Txs[i], hs); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range all {
		if c.Schnorr {
			sc = append(sc, c)
		} else {
			ec = append(ec, c)
		}
	}
	for _, bc := range []struct {
		name   string
		checks []SigCheck
	}{{"mix", all}, {"ecdsa", ec}, {"schnorr", sc}} {
		b.Run(bc.name, func(b *testing.B) {
			checks := bc.checks
			b.ReportAllocs()
			c0 := CPUSeconds()
			n := 0
			for ; b.Loop(); n++ {
				if !checks[n%len(checks)].Verify() {
					b.Fatal("bad signature")
				}
			}
			// CPU time per op stays meaningful when the machine is shared.
			b.ReportMetric((CPUSeconds()-c0)*1e9/float64(n), "cpu-ns/op")
		})
	}
}

// BenchmarkGenerateTx is the generator's cost per transaction (building,
// signing on all cores, mining, serializing).
func BenchmarkGenerateTx(b *testing.B) {
	b.ReportAllocs()
	n := 0
	c0 := CPUSeconds()
	for b.Loop() {
		st, err := Generate(Config{Txs: 2000, Seed: 3, Keys: 64}, func(int32, *wire.MsgBlock, []byte) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		n += st.Transactions
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/tx")
	b.ReportMetric((CPUSeconds()-c0)*1e9/float64(n), "cpu-ns/tx")
}
