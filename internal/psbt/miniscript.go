package psbt

import (
	"bytes"

	"github.com/btcnode/btcd/internal/descriptor"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// lockTimeThreshold is LOCKTIME_THRESHOLD: lock times from it on are
// times, below it heights.
const lockTimeThreshold = 500_000_000

// spendContext is the transaction and input index a satisfaction is for:
// timelocks are checked against them.
type spendContext struct {
	tx  *wire.MsgTx
	idx int
}

// inputSatisfier answers a miniscript satisfaction's questions from one
// input's PSBT data: partial signatures (P2WSH) or script path signatures
// for one leaf (tapscript), the keys the input names, the hash preimages,
// and the transaction's lock time and the input's sequence.
type inputSatisfier struct {
	in   *Input
	ctx  spendContext
	leaf *[32]byte // the tapscript leaf's hash; nil for P2WSH
	sigs map[string][]byte
	// sol collects the keys without a signature (P2WSH only: Core's
	// taproot signing reports none).
	sol *solution
}

// Signature returns the input's signature by pub.
func (s *inputSatisfier) Signature(pub []byte) []byte {
	if s.leaf != nil {
		return s.sigs[string(pub)+string(s.leaf[:])]
	}
	for _, ps := range s.in.PartialSigs {
		if bytes.Equal(ps.PubKey, pub) {
			return ps.Sig
		}
	}
	if s.sol != nil {
		// Not deduplicated: Core lists a key once per time the
		// satisfaction asks for it.
		s.sol.missingSigs = append(s.sol.missingSigs, txscript.Hash160(pub))
	}
	return nil
}

// PubKey returns a key the input names (in a signature or a derivation)
// whose HASH160 is h.
func (s *inputSatisfier) PubKey(h [20]byte) []byte {
	if s.leaf == nil {
		return s.in.pubKeyFor(h[:])
	}
	for _, ts := range s.in.TapScriptSigs {
		if txscript.Hash160(ts.XOnly) == h {
			return ts.XOnly
		}
	}
	for _, d := range s.in.TapBip32 {
		if txscript.Hash160(d.XOnly) == h {
			return d.XOnly
		}
	}
	return nil
}

// Preimage returns the input's preimage of hash under fn. A preimage
// that does not hash to it fails the script check that follows
// satisfaction.
func (s *inputSatisfier) Preimage(fn descriptor.HashFunc, hash []byte) []byte {
	list := map[descriptor.HashFunc][]Preimage{
		descriptor.HashSHA256: s.in.Sha256, descriptor.HashHash256: s.in.Hash256,
		descriptor.HashRipemd160: s.in.Ripemd160, descriptor.HashHash160: s.in.Hash160,
	}[fn]
	for _, p := range list {
		if bytes.Equal(p.Hash, hash) {
			return p.Preimage
		}
	}
	return nil
}

// After reports whether OP_CHECKLOCKTIMEVERIFY passes for n: a lock of
// the same kind (height or time) as n and at least n, on an input whose
// sequence does not disable it.
func (s *inputSatisfier) After(n uint32) bool {
	lock := s.ctx.tx.LockTime
	if (lock < lockTimeThreshold) != (n < lockTimeThreshold) || n > lock {
		return false
	}
	return s.ctx.tx.TxIn[s.ctx.idx].Sequence != wire.MaxTxInSequenceNum
}

// Older reports whether OP_CHECKSEQUENCEVERIFY passes for n (BIP112): a
// version 2 transaction whose input's relative lock is enabled, of n's
// kind, and at least n.
func (s *inputSatisfier) Older(n uint32) bool {
	const mask = wire.SequenceLockTimeIsSeconds | wire.SequenceLockTimeMask
	seq := s.ctx.tx.TxIn[s.ctx.idx].Sequence
	if s.ctx.tx.Version < 2 || seq&wire.SequenceLockTimeDisabled != 0 {
		return false
	}
	n, seq = n&mask, seq&mask
	if (n < wire.SequenceLockTimeIsSeconds) != (seq < wire.SequenceLockTimeIsSeconds) {
		return false
	}
	return n <= seq
}

// satisfyWitnessScript is the stack satisfying a P2WSH witness script
// that is miniscript (Core's fallback once no standard template matches),
// or nil; keys without a signature are noted in sol.
func (in *Input) satisfyWitnessScript(script []byte, ctx spendContext, sol *solution) [][]byte {
	stack, ok := descriptor.SatisfyScript(script, false, &inputSatisfier{in: in, ctx: ctx, sol: sol})
	if !ok {
		return nil
	}
	return stack
}

// signingSatisfier signs, for a P2WSH witness script that is miniscript,
// every key the satisfaction asks for that the signer holds (Core's
// signer signs while it satisfies); it answers nothing else, the
// finalizer satisfying afterwards from what the input then holds.
type signingSatisfier struct {
	e      *ecdsaSigner
	script []byte
}

func (s signingSatisfier) Signature(pub []byte) []byte {
	s.e.sign(pub, s.script)
	return nil
}

func (s signingSatisfier) PubKey(h [20]byte) []byte {
	if k := s.e.s.pubs[h]; k != nil {
		return k
	}
	return s.e.p.Inputs[s.e.i].pubKeyFor(h[:])
}

func (signingSatisfier) Preimage(descriptor.HashFunc, []byte) []byte { return nil }
func (signingSatisfier) Older(uint32) bool                           { return false }
func (signingSatisfier) After(uint32) bool                           { return false }

// signMiniscript signs a witness script no template matched as
// miniscript.
func (e *ecdsaSigner) signMiniscript(script []byte) {
	if txscript.GetScriptClass(script) == txscript.NonStandardTy {
		descriptor.SatisfyScript(script, false, signingSatisfier{e: e, script: script})
	}
}

// tapSigningSatisfier signs, for a tapscript leaf that is miniscript,
// the keys the satisfaction asks for, resolving those named by hash
// (pk_h) from the signer's keys and the input's derivations.
type tapSigningSatisfier struct {
	s    *Signer
	in   *Input
	sign func(x [32]byte)
}

func (t tapSigningSatisfier) Signature(x []byte) []byte {
	t.sign([32]byte(x))
	return nil
}

func (t tapSigningSatisfier) PubKey(h [20]byte) []byte {
	for x := range t.s.xprivs {
		if txscript.Hash160(x[:]) == h {
			return bytes.Clone(x[:])
		}
	}
	for _, d := range t.in.TapBip32 {
		if txscript.Hash160(d.XOnly) == h {
			return d.XOnly
		}
	}
	return nil
}

func (tapSigningSatisfier) Preimage(descriptor.HashFunc, []byte) []byte { return nil }
func (tapSigningSatisfier) Older(uint32) bool                           { return false }
func (tapSigningSatisfier) After(uint32) bool                           { return false }
