package chaingen

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
)

// SpendTx is a non-coinbase transaction with the outputs it spends.
type SpendTx struct {
	Tx    *wire.MsgTx
	Prevs []wire.TxOut
}

// Collector is a BlockSink that decodes every block and keeps its
// transactions with their spent outputs, for the signature benchmark.
type Collector struct {
	Txs   []SpendTx
	utxos map[wire.OutPoint]wire.TxOut
}

// NewCollector returns an empty collector.
func NewCollector() *Collector {
	return &Collector{utxos: make(map[wire.OutPoint]wire.TxOut)}
}

// Add is the BlockSink: it decodes a private copy of raw.
func (c *Collector) Add(h int32, _ *wire.MsgBlock, raw []byte) error {
	b := new(wire.MsgBlock)
	if _, err := b.Decode(append([]byte(nil), raw...)); err != nil {
		return wrapErr(ErrBadChain, err, "decode block %d", h)
	}
	txids := b.TxHashes()
	for ti, tx := range b.Transactions {
		if ti > 0 {
			prevs := make([]wire.TxOut, len(tx.TxIn))
			for i := range tx.TxIn {
				op := tx.TxIn[i].PreviousOutPoint
				out, ok := c.utxos[op]
				if !ok {
					return errorf(ErrBadChain, "block %d spends unknown %v", h, op)
				}
				delete(c.utxos, op)
				prevs[i] = out
			}
			c.Txs = append(c.Txs, SpendTx{Tx: tx, Prevs: prevs})
		}
		for i, o := range tx.TxOut {
			if !txscript.IsUnspendable(o.PkScript) {
				c.utxos[wire.OutPoint{Hash: txids[ti], Index: uint32(i)}] = o
			}
		}
	}
	return nil
}

// SigCheck is one signature to verify: the message hash, the key and the
// signature as they appear in the chain (DER without the hash type byte
// for ECDSA, 64 bytes for BIP340 Schnorr).
type SigCheck struct {
	Schnorr bool
	Hash    [32]byte
	PubKey  []byte
	Sig     []byte
}

// Verify parses the key and signature and verifies, as a node must.
func (c *SigCheck) Verify() bool {
	if c.Schnorr {
		pk, err := schnorr.ParsePubKey(c.PubKey)
		if err != nil {
			return false
		}
		sig, err := schnorr.ParseSignature(c.Sig)
		return err == nil && sig.Verify(c.Hash[:], pk)
	}
	pk, err := btcec.ParsePubKey(c.PubKey)
	if err != nil {
		return false
	}
	sig, err := ecdsa.ParseDERSignature(c.Sig)
	return err == nil && sig.Verify(c.Hash[:], pk)
}

// VerifyOwn is Verify with txscript's own verifier (the one the node
// uses) instead of btcec's.
func (c *SigCheck) VerifyOwn() bool {
	if c.Schnorr {
		return txscript.VerifySchnorr(c.Sig, c.PubKey, &c.Hash)
	}
	return txscript.VerifyECDSA(c.Sig, c.PubKey, &c.Hash)
}

// AppendSigChecks computes the signature hashes of every input of t and
// appends one SigCheck per signature. It understands exactly the script
// templates the generator produces (for 2-of-3 P2WSH the two signatures
// belong to the first two keys), and reports ErrBadChain otherwise.
func AppendSigChecks(dst []SigCheck, t *SpendTx, hashes *txscript.TxSigHashes) ([]SigCheck, error) {
	tx := t.Tx
	for i := range tx.TxIn {
		in := &tx.TxIn[i]
		pk := t.Prevs[i].PkScript
		amount := t.Prevs[i].Value
		w := in.Witness
		bad := errorf(ErrBadChain, "tx %v input %d: unexpected spend", tx.TxHash(), i)
		switch {
		case len(pk) == 25 && pk[0] == 0x76: // P2PKH
			s := in.SignatureScript
			if len(s) < 2 || int(s[0])+2 > len(s) || s[0] < 2 {
				return dst, bad
			}
			sig := s[1 : 1+s[0]]
			rest := s[1+s[0]:]
			if len(rest) < 1 || int(rest[0])+1 != len(rest) {
				return dst, bad
			}
			h := txscript.CalcSignatureHash(pk, uint32(sig[len(sig)-1]), tx, i)
			dst = append(dst, SigCheck{Hash: h, PubKey: rest[1:], Sig: sig[:len(sig)-1]})
		case (len(pk) == 23 && pk[0] == 0xa9) || (len(pk) == 22 && pk[0] == 0x00): // P2SH-P2WPKH, P2WPKH
			if len(w) != 2 || len(w[0]) < 2 {
				return dst, bad
			}
			kh := txscript.Hash160(w[1])
			code := txscript.PayToPubKeyHashScript(kh[:])
			sig := w[0]
			h := txscript.CalcWitnessSigHash(code, hashes, uint32(sig[len(sig)-1]), i, amount)
			dst = append(dst, SigCheck{Hash: h, PubKey: w[1], Sig: sig[:len(sig)-1]})
		case len(pk) == 34 && pk[0] == 0x00: // P2WSH 2-of-3
			if len(w) != 4 {
				return dst, bad
			}
			_, keys, ok := txscript.MultiSigInfo(w[3])
			if !ok || len(keys) < 2 {
				return dst, bad
			}
			for s := range 2 {
				sig := w[1+s]
				if len(sig) < 2 {
					return dst, bad
				}
				h := txscript.CalcWitnessSigHash(w[3], hashes, uint32(sig[len(sig)-1]), i, amount)
				dst = append(dst, SigCheck{Hash: h, PubKey: keys[s], Sig: sig[:len(sig)-1]})
			}
		case len(pk) == 34 && pk[0] == 0x51: // P2TR
			if len(w) == 0 {
				return dst, bad
			}
			sig := w[0]
			ht := byte(txscript.SigHashDefault)
			if len(sig) == 65 {
				ht = sig[64]
				sig = sig[:64]
			}
			var opts *txscript.TaprootSigHashOpts
			pub := pk[2:]
			switch len(w) {
			case 1:
			case 3:
				leaf := w[1]
				if len(leaf) != 34 || len(w[2]) < 33 {
					return dst, bad
				}
				lh := txscript.TapLeafHash(w[2][0]&0xfe, leaf)
				opts = &txscript.TaprootSigHashOpts{LeafHash: &lh, CodeSepPos: 0xffffffff}
				pub = leaf[1:33]
			default:
				return dst, bad
			}
			h, err := txscript.CalcTaprootSigHash(hashes, ht, i, opts)
			if err != nil {
				return dst, wrapErr(ErrBadChain, err, "taproot sighash")
			}
			dst = append(dst, SigCheck{Schnorr: true, Hash: h, PubKey: pub, Sig: sig})
		default:
			return dst, bad
		}
	}
	return dst, nil
}

// SigBenchResult is the JSON line of -sigbench: the lower bound on script
// verification for a chain, with plain btcec on one core and on all.
// Every phase reports wall seconds and process CPU seconds: on a shared
// machine the CPU figure of a single-goroutine phase is the steadier one.
type SigBenchResult struct {
	Transactions int `json:"transactions"`
	Inputs       int `json:"inputs"`
	Signatures   int `json:"signatures"`
	ECDSA        int `json:"ecdsa"`
	Schnorr      int `json:"schnorr"`
	Cores        int `json:"cores"`

	// Verify: pure signature verification (parse key and signature,
	// verify) with the sighashes precomputed.
	Verify1 Timing `json:"verify_1core"`
	VerifyN Timing `json:"verify_ncore"`
	// Sighash: only the signature hashes (midstates per transaction, one
	// hash per signature), on one core.
	Sighash1 Timing `json:"sighash_only_1core"`
	// Full: per transaction, midstates, every input's sighash, verify.
	Full1 Timing `json:"sighash_verify_1core"`
	FullN Timing `json:"sighash_verify_ncore"`
	// OwnFull: Full with txscript's own verifier, the one the node runs
	// (faster than btcec's since its scalar multiplication was rewritten),
	// so that the node's script overhead can be told from the speed of
	// the signature arithmetic.
	OwnFull1 Timing `json:"own_sighash_verify_1core"`
	OwnFullN Timing `json:"own_sighash_verify_ncore"`
}

// Timing is one measured phase.
type Timing struct {
	Seconds       float64 `json:"s"`
	CPUSeconds    float64 `json:"cpu_s"`
	SigsPerSec    float64 `json:"sigs_per_s"`
	SigsPerCPUSec float64 `json:"sigs_per_cpu_s"`
}

// measure times fn in wall and process CPU seconds.
func measure(sigs int, fn func() error) (Timing, error) {
	c0, t0 := CPUSeconds(), time.Now()
	err := fn()
	t := Timing{Seconds: time.Since(t0).Seconds(), CPUSeconds: CPUSeconds() - c0}
	if t.Seconds > 0 {
		t.SigsPerSec = float64(sigs) / t.Seconds
	}
	if t.CPUSeconds > 0 {
		t.SigsPerCPUSec = float64(sigs) / t.CPUSeconds
	}
	return t, err
}

// parallel runs fn(i) for i in [0,n) on workers goroutines, claiming
// chunks of indices so the cost of coordination stays negligible.
func parallel(n, workers, chunk int, fn func(i int) bool) bool {
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				start := int(next.Add(int64(chunk))) - chunk
				if start >= n {
					return
				}
				for i := start; i < min(start+chunk, n); i++ {
					if !fn(i) {
						failed.Store(true)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	return !failed.Load()
}

// SigBench measures the signature lower bound of txs with workers
// goroutines for the parallel runs (GOMAXPROCS if 0).
func SigBench(txs []SpendTx, workers int) (SigBenchResult, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	r := SigBenchResult{Transactions: len(txs), Cores: workers}
	var checks []SigCheck
	var err error
	for i := range txs {
		r.Inputs += len(txs[i].Tx.TxIn)
		hs := txscript.NewTxSigHashes(txs[i].Tx, txs[i].Prevs)
		if checks, err = AppendSigChecks(checks, &txs[i], hs); err != nil {
			return r, err
		}
	}
	r.Signatures = len(checks)
	for i := range checks {
		if checks[i].Schnorr {
			r.Schnorr++
		} else {
			r.ECDSA++
		}
	}
	n := r.Signatures
	badSig := errorf(ErrBadChain, "a signature does not verify")

	if r.Verify1, err = measure(n, func() error {
		for i := range checks {
			if !checks[i].Verify() {
				return badSig
			}
		}
		return nil
	}); err != nil {
		return r, err
	}
	if r.VerifyN, err = measure(n, func() error {
		if !parallel(len(checks), workers, 64, func(i int) bool { return checks[i].Verify() }) {
			return badSig
		}
		return nil
	}); err != nil {
		return r, err
	}

	var buf []SigCheck
	if r.Sighash1, err = measure(n, func() error {
		var err error
		for i := range txs {
			hs := txscript.NewTxSigHashes(txs[i].Tx, txs[i].Prevs)
			if buf, err = AppendSigChecks(buf[:0], &txs[i], hs); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return r, err
	}

	own := false
	full := func(i int, buf *[]SigCheck) bool {
		hs := txscript.NewTxSigHashes(txs[i].Tx, txs[i].Prevs)
		var err error
		*buf, err = AppendSigChecks((*buf)[:0], &txs[i], hs)
		if err != nil {
			return false
		}
		for j := range *buf {
			c := &(*buf)[j]
			if own && !c.VerifyOwn() || !own && !c.Verify() {
				return false
			}
		}
		return true
	}
	for _, o := range []bool{false, true} {
		own = o
		full1, fullN := &r.Full1, &r.FullN
		if own {
			full1, fullN = &r.OwnFull1, &r.OwnFullN
		}
		if *full1, err = measure(n, func() error {
			for i := range txs {
				if !full(i, &buf) {
					return badSig
				}
			}
			return nil
		}); err != nil {
			return r, err
		}
		// Each worker needs its own scratch buffer; a pool hands them out.
		pool := sync.Pool{New: func() any { return new([]SigCheck) }}
		if *fullN, err = measure(n, func() error {
			ok := parallel(len(txs), workers, 16, func(i int) bool {
				b := pool.Get().(*[]SigCheck)
				ok := full(i, b)
				pool.Put(b)
				return ok
			})
			if !ok {
				return badSig
			}
			return nil
		}); err != nil {
			return r, err
		}
	}
	return r, nil
}
