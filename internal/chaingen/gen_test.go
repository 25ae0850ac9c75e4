package chaingen

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// rawChain generates a chain and keeps every serialized block.
func rawChain(t testing.TB, cfg Config) ([][]byte, Stats) {
	t.Helper()
	var blocks [][]byte
	st, err := Generate(cfg, func(h int32, _ *wire.MsgBlock, raw []byte) error {
		if int(h) != len(blocks)+1 {
			return fmt.Errorf("height %d after %d blocks", h, len(blocks))
		}
		blocks = append(blocks, bytes.Clone(raw))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return blocks, st
}

// verifyChain checks blocks the way a node would, without the node: the
// header chain and proof of work, merkle roots, witness commitments,
// BIP34, subsidy plus fees, weight, coinbase maturity, double spends, fee
// rates, and every input's script under standard flags with txscript's
// engine. It returns the number of inputs verified.
func verifyChain(t *testing.T, p *chaincfg.Params, blocks [][]byte) int {
	t.Helper()
	type utxo struct {
		out      wire.TxOut
		height   int32
		coinbase bool
	}
	utxos := make(map[wire.OutPoint]utxo)
	prev := p.GenesisHash
	prevTime := p.GenesisBlock.Header.Timestamp
	target := chaincfg.CompactToBig(p.PowLimitBits)
	flags := txscript.StandardVerifyFlags
	inputs := 0
	for i, raw := range blocks {
		h := int32(i + 1)
		var b wire.MsgBlock
		n, err := b.Decode(raw)
		if err != nil || n != len(raw) {
			t.Fatalf("block %d: decode: %v (%d of %d bytes)", h, err, n, len(raw))
		}
		if !bytes.Equal(b.AppendTo(nil, true), raw) {
			t.Fatalf("block %d does not re-encode to the same bytes", h)
		}
		hash := b.BlockHash()
		if b.Header.PrevBlock != prev {
			t.Fatalf("block %d: wrong parent", h)
		}
		if b.Header.Timestamp <= prevTime {
			t.Fatalf("block %d: timestamp not increasing", h)
		}
		if hashBig(hash).Cmp(target) > 0 || b.Header.Bits != p.PowLimitBits {
			t.Fatalf("block %d: proof of work", h)
		}
		if w := b.Weight(); w > wire.MaxBlockWeight {
			t.Fatalf("block %d: weight %d", h, w)
		}
		root, mutated := b.MerkleRoot()
		if root != b.Header.MerkleRoot || mutated {
			t.Fatalf("block %d: merkle root", h)
		}
		cb := b.Transactions[0]
		if !cb.IsCoinBase() {
			t.Fatalf("block %d: first tx is not a coinbase", h)
		}
		if !bytes.HasPrefix(cb.TxIn[0].SignatureScript, appendHeight(nil, h)) {
			t.Fatalf("block %d: BIP34 height", h)
		}
		commit := cb.TxOut[len(cb.TxOut)-1].PkScript
		if len(commit) != 38 || !bytes.Equal(commit[:6], []byte{0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed}) {
			t.Fatalf("block %d: no witness commitment", h)
		}
		wroot := b.WitnessMerkleRoot()
		w := cb.TxIn[0].Witness
		if len(w) != 1 || len(w[0]) != 32 {
			t.Fatalf("block %d: coinbase witness nonce", h)
		}
		want := wire.DoubleHashH(append(wroot[:], w[0]...))
		if !bytes.Equal(commit[6:], want[:]) {
			t.Fatalf("block %d: witness commitment mismatch", h)
		}

		// Contextual checks first (sequential: the UTXO map), scripts
		// afterwards on every core.
		type check struct {
			tx     *wire.MsgTx
			prevs  []wire.TxOut
			hashes *txscript.TxSigHashes
		}
		checks := make([]check, 0, len(b.Transactions)-1)
		var fees int64
		txids := b.TxHashes()
		for ti, tx := range b.Transactions {
			if ti > 0 {
				if tx.IsCoinBase() {
					t.Fatalf("block %d: second coinbase", h)
				}
				var in int64
				prevs := make([]wire.TxOut, len(tx.TxIn))
				for ii := range tx.TxIn {
					op := tx.TxIn[ii].PreviousOutPoint
					u, ok := utxos[op]
					if !ok {
						t.Fatalf("block %d tx %d input %d: missing or spent %v", h, ti, ii, op)
					}
					if u.coinbase && h-u.height < p.CoinbaseMaturity {
						t.Fatalf("block %d: immature coinbase spend", h)
					}
					delete(utxos, op)
					prevs[ii] = u.out
					in += u.out.Value
				}
				var out int64
				for _, o := range tx.TxOut {
					out += o.Value
				}
				fee := in - out
				if vsize := (tx.Weight() + 3) / 4; fee < vsize {
					t.Fatalf("block %d tx %d: fee %d below 1 sat/vB for %d vB", h, ti, fee, vsize)
				}
				fees += fee
				checks = append(checks, check{tx, prevs, txscript.NewTxSigHashes(tx, prevs)})
				inputs += len(tx.TxIn)
			}
			for oi, o := range tx.TxOut {
				if txscript.IsUnspendable(o.PkScript) {
					continue
				}
				utxos[wire.OutPoint{Hash: txids[ti], Index: uint32(oi)}] = utxo{o, h, ti == 0}
			}
		}
		var cbOut int64
		for _, o := range cb.TxOut {
			cbOut += o.Value
		}
		sub := int64(50*100_000_000) >> uint(h/p.SubsidyHalvingInterval)
		if cbOut != sub+fees {
			t.Fatalf("block %d: coinbase pays %d, want subsidy %d + fees %d", h, cbOut, sub, fees)
		}

		var wg sync.WaitGroup
		errs := make([]error, len(checks))
		par := runtime.GOMAXPROCS(0)
		for wkr := range par {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ci := wkr; ci < len(checks); ci += par {
					c := &checks[ci]
					for ii := range c.tx.TxIn {
						if err := txscript.VerifyInput(c.tx, ii, &c.prevs[ii], flags, nil, c.hashes); err != nil {
							errs[ci] = fmt.Errorf("input %d: %w", ii, err)
							break
						}
					}
				}
			}()
		}
		wg.Wait()
		for ci, err := range errs {
			if err != nil {
				t.Fatalf("block %d tx %d: %v", h, ci+1, err)
			}
		}
		prev, prevTime = hash, b.Header.Timestamp
	}
	return inputs
}

func TestSmallChainValid(t *testing.T) {
	txs := SmallTxs
	if testing.Short() {
		txs = 3000
	}
	p := &chaincfg.RegressionNetParams
	blocks, st := rawChain(t, Config{Txs: txs, Seed: 1})
	if st.Transactions != txs {
		t.Fatalf("generated %d transactions, want %d", st.Transactions, txs)
	}
	n := verifyChain(t, p, blocks)
	if n != st.Inputs {
		t.Fatalf("verified %d inputs, stats say %d", n, st.Inputs)
	}
	for k := range numSignedKinds {
		if st.InputTypes[k.String()] == 0 {
			t.Errorf("no %v input in the chain", k)
		}
	}
	if st.SameBlockSpends == 0 {
		t.Error("no same-block spends")
	}
	if st.Outputs <= st.Inputs {
		t.Errorf("UTXO set does not grow: %d outputs, %d inputs", st.Outputs, st.Inputs)
	}
	t.Logf("%d blocks, %d txs, %d inputs verified, types %v", st.Blocks, st.Transactions, n, st.InputTypes)
}

// TestDeterministic checks that the worker count does not change a byte.
func TestDeterministic(t *testing.T) {
	cfg := Config{Txs: 1500, TxPerBlock: 400, Seed: 7, Keys: 64}
	digest := func(workers int) ([32]byte, Stats) {
		c := cfg
		c.Workers = workers
		h := sha256.New()
		st, err := Generate(c, func(_ int32, _ *wire.MsgBlock, raw []byte) error {
			h.Write(raw)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return [32]byte(h.Sum(nil)), st
	}
	a, sa := digest(1)
	b, sb := digest(4)
	if a != b || sa.Tip != sb.Tip {
		t.Fatalf("output depends on the worker count: %x vs %x", a, b)
	}
	cfg.Seed = 8
	c, _ := digest(2)
	if c == a {
		t.Fatal("seed does not change the chain")
	}
}

// TestFileWriter writes a chain in Core's framing across several files
// and reads it back with the node's block file reader.
func TestFileWriter(t *testing.T) {
	dir := t.TempDir()
	p := &chaincfg.RegressionNetParams
	fw, err := NewFileWriter(dir, 300_000, p.Net)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]byte
	_, err = Generate(Config{Txs: 600, TxPerBlock: 300, Seed: 3, Keys: 32}, func(_ int32, _ *wire.MsgBlock, raw []byte) error {
		want = append(want, bytes.Clone(raw))
		return fw.WriteBlock(raw)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	if len(fw.Files) < 2 {
		t.Fatalf("expected several files, got %v", fw.Files)
	}
	first, err := os.ReadFile(filepath.Join(dir, "blk00000.dat"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first[:4], []byte{0xfa, 0xbf, 0xb5, 0xda}) {
		t.Fatalf("magic % x", first[:4])
	}
	var got [][]byte
	for _, path := range fw.Files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		if st.Size() > 300_000 {
			t.Errorf("%s is %d bytes", path, st.Size())
		}
		br := database.NewBlockFileReader(f, p.Net)
		for {
			raw, err := br.Next()
			if err != nil {
				break
			}
			got = append(got, bytes.Clone(raw))
		}
		f.Close()
	}
	if len(got) != len(want) {
		t.Fatalf("read %d blocks, wrote %d", len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("block %d differs", i+1)
		}
	}
	if _, err := NewFileWriter(dir, 0, p.Net); !errors.Is(err, ErrConfig) {
		t.Fatalf("reusing a directory with block files: %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{{}, {Txs: 1, TxPerBlock: -1}, {Txs: 1, Keys: 2}} {
		if _, err := New(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if _, err := TxsForSize("huge"); !errors.Is(err, ErrConfig) {
		t.Error(err)
	}
}
