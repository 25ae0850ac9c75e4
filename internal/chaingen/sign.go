package chaingen

import (
	"sync"
	"sync/atomic"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
)

// sigJob is one input to sign; its result lands in its own slot so the
// block does not depend on which worker signed what, or when.
type sigJob struct {
	p         *ptx
	in        int
	sigScript []byte
	witness   [][]byte
	err       error
}

// signChunk is how many inputs a worker claims at a time.
const signChunk = 16

// signAll signs every input of txs on cfg.Workers goroutines. Signing is
// deterministic (RFC6979 nonces for ECDSA, BIP340's derived nonce for
// Schnorr), so the result is the same for any worker count.
func (g *Generator) signAll(txs []*ptx) error {
	n := 0
	for _, p := range txs {
		p.hashes = txscript.NewTxSigHashes(&p.tx, p.prev)
		n += len(p.coins)
	}
	jobs := make([]sigJob, 0, n)
	for _, p := range txs {
		for i := range p.coins {
			jobs = append(jobs, sigJob{p: p, in: i})
		}
	}
	var next atomic.Int64
	work := func() {
		for {
			start := int(next.Add(signChunk)) - signChunk
			if start >= len(jobs) {
				return
			}
			for j := start; j < min(start+signChunk, len(jobs)); j++ {
				g.signInput(&jobs[j])
			}
		}
	}
	workers := min(g.cfg.Workers, (len(jobs)+signChunk-1)/signChunk)
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
	for i := range jobs {
		j := &jobs[i]
		if j.err != nil {
			return j.err
		}
		in := &j.p.tx.TxIn[j.in]
		if j.sigScript != nil {
			in.SignatureScript = j.sigScript
		}
		in.Witness = j.witness
		g.stats.Signatures += 1 + boolInt(j.p.coins[j.in].kind == P2WSHMultisig)
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ecdsaSig returns a DER signature with SIGHASH_ALL appended.
func ecdsaSig(k *keyInfo, hash *[32]byte) []byte {
	der := ecdsa.Sign(k.priv, hash[:]).Serialize()
	return append(der, byte(txscript.SigHashAll))
}

// signInput produces the scriptSig and witness of one input.
func (g *Generator) signInput(j *sigJob) {
	p, i := j.p, j.in
	c := p.coins[i]
	k := &g.keys[c.key]
	all := uint32(txscript.SigHashAll)
	switch c.kind {
	case P2WPKH, P2SHP2WPKH:
		h := txscript.CalcWitnessSigHash(k.scriptCode, p.hashes, all, i, c.value)
		j.witness = [][]byte{ecdsaSig(k, &h), k.pub}
	case P2PKH:
		h := txscript.CalcSignatureHash(k.scriptCode, all, &p.tx, i)
		sig := ecdsaSig(k, &h)
		s := make([]byte, 0, 2+len(sig)+len(k.pub))
		s = append(s, byte(len(sig)))
		s = append(s, sig...)
		s = append(s, byte(len(k.pub)))
		j.sigScript = append(s, k.pub...)
	case P2WSHMultisig:
		h := txscript.CalcWitnessSigHash(k.msScript, p.hashes, all, i, c.value)
		j.witness = [][]byte{{},
			ecdsaSig(&g.keys[k.msSigner[0]], &h),
			ecdsaSig(&g.keys[k.msSigner[1]], &h),
			k.msScript}
	case P2TRKey:
		h, err := txscript.CalcTaprootSigHash(p.hashes, byte(txscript.SigHashDefault), i, nil)
		if err != nil {
			j.err = wrapErr(ErrInternal, err, "taproot sighash")
			return
		}
		sig, err := schnorr.Sign(k.trPriv, h[:], schnorr.FastSign())
		if err != nil {
			j.err = wrapErr(ErrInternal, err, "schnorr sign")
			return
		}
		j.witness = [][]byte{sig.Serialize()}
	case P2TRScript:
		opts := txscript.TaprootSigHashOpts{LeafHash: &k.leafHash, CodeSepPos: 0xffffffff}
		h, err := txscript.CalcTaprootSigHash(p.hashes, byte(txscript.SigHashDefault), i, &opts)
		if err != nil {
			j.err = wrapErr(ErrInternal, err, "tapscript sighash")
			return
		}
		sig, err := schnorr.Sign(g.keys[k.leafSigner].priv, h[:], schnorr.FastSign())
		if err != nil {
			j.err = wrapErr(ErrInternal, err, "schnorr sign")
			return
		}
		j.witness = [][]byte{sig.Serialize(), k.leafScript, k.control}
	}
}
