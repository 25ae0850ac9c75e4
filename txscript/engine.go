package txscript

import (
	"crypto/sha256"
	"sync"

	"github.com/btcnode/btcd/wire"
)

// sigVersion is Core's SigVersion: which rule set a script runs under.
type sigVersion uint8

const (
	sigVersionBase sigVersion = iota
	sigVersionWitnessV0
	sigVersionTaproot
	sigVersionTapscript
)

// Taproot constants from BIP341/342.
const (
	annexTag               = 0x50
	TaprootLeafMask        = 0xfe
	TapscriptLeafVersion   = 0xc0
	taprootControlBaseSize = 33
	taprootControlNodeSize = 32
	taprootControlMaxNodes = 128
	validationWeightPerSig = 50
	validationWeightOffset = 50
	lockTimeThreshold      = 500000000
	sequenceDisableFlag    = 1 << 31
	sequenceTypeFlag       = 1 << 22
	sequenceLockTimeMask   = 0x0000ffff
	maxSequence            = 0xffffffff
)

var (
	elemEmpty = []byte{}
	elemTrue  = []byte{1}
)

// Engine holds reusable state for verifying inputs. One Engine serves one
// goroutine at a time; reuse it (or use VerifyInput, which pools them) so
// that verification does not allocate stacks and buffers per input.
type Engine struct {
	tx      *wire.MsgTx
	idx     int
	amount  int64
	flags   ScriptFlags
	hashes  *TxSigHashes
	cache   *SigCache
	ownHash TxSigHashes
	// noStore keeps successful checks out of cache (SetCacheStore).
	noStore bool

	dstack, astack, saved stack
	cond                  condStack
	arena                 []byte
	hw                    *hashWriter

	// Per-script evaluation state.
	script        []byte
	sv            sigVersion
	codeHashStart int
	opCount       int

	// Taproot execution data (Core's ScriptExecutionData).
	annexPresent bool
	annexHash    [32]byte
	tapleafHash  [32]byte
	codeSepPos   uint32
	weightLeft   int64

	p2wpkhScript [25]byte
}

// SetCacheStore chooses whether checks that succeed are added to the
// signature cache passed to Verify (the default) or only looked up in it.
// Block connection looks up only, as Core's ConnectBlock does: a
// connected block's signatures are never checked again, so storing them
// would only evict the entries of mempool transactions still to come in
// blocks, and during IBD every add of a full cache is an eviction.
func (e *Engine) SetCacheStore(store bool) { e.noStore = !store }

// NewEngine returns an Engine ready for Verify.
func NewEngine() *Engine {
	return &Engine{hw: newHashWriter(), arena: make([]byte, 0, 4096)}
}

var enginePool = sync.Pool{New: func() any { return NewEngine() }}

// VerifyInput verifies input idx of tx, which spends prevOut, under flags.
// hashes holds the transaction's signature-hash midstates (build it once
// per transaction with NewTxSigHashes and share it across inputs); if nil
// it is computed here, which costs allocations. cache may be nil.
func VerifyInput(tx *wire.MsgTx, idx int, prevOut *wire.TxOut, flags ScriptFlags, cache *SigCache, hashes *TxSigHashes) error {
	e := enginePool.Get().(*Engine)
	err := e.Verify(tx, idx, prevOut, flags, cache, hashes)
	enginePool.Put(e)
	return err
}

// Verify is VerifyInput using this engine's reusable state.
func (e *Engine) Verify(tx *wire.MsgTx, idx int, prevOut *wire.TxOut, flags ScriptFlags, cache *SigCache, hashes *TxSigHashes) error {
	if idx < 0 || idx >= len(tx.TxIn) {
		return ErrUnknown
	}
	if hashes == nil || hashes.tx != tx {
		var prevs []wire.TxOut
		if len(tx.TxIn) == 1 {
			prevs = []wire.TxOut{*prevOut}
		}
		e.ownHash.Init(tx, prevs)
		hashes = &e.ownHash
	}
	e.tx, e.idx, e.amount, e.flags = tx, idx, prevOut.Value, flags
	e.hashes, e.cache = hashes, cache
	e.arena = e.arena[:0]
	in := &tx.TxIn[idx]
	err := e.verifyScript(in.SignatureScript, prevOut.PkScript, in.Witness)
	e.release()
	return err
}

// release drops references so a pooled engine does not pin transactions.
func (e *Engine) release() {
	e.dstack.reset()
	e.astack.reset()
	e.saved.reset()
	e.tx, e.hashes, e.cache, e.script = nil, nil, nil, nil
	e.ownHash.Init(nil, nil)
}

// verifyScript is Core's VerifyScript.
func (e *Engine) verifyScript(sigScript, pkScript []byte, witness [][]byte) error {
	flags := e.flags
	if flags&ScriptVerifySigPushOnly != 0 && !IsPushOnly(sigScript) {
		return ErrSigPushOnly
	}
	e.dstack.reset()
	if err := e.evalScript(sigScript, sigVersionBase); err != nil {
		return err
	}
	if flags&ScriptVerifyP2SH != 0 {
		e.saved.items = append(e.saved.items[:0], e.dstack.items...)
	}
	if err := e.evalScript(pkScript, sigVersionBase); err != nil {
		return err
	}
	if e.dstack.size() == 0 || !castToBool(e.dstack.top(-1)) {
		return ErrEvalFalse
	}
	hadWitness := false
	if flags&ScriptVerifyWitness != 0 {
		if ver, prog, ok := IsWitnessProgram(pkScript); ok {
			hadWitness = true
			if len(sigScript) != 0 {
				return ErrWitnessMalleated
			}
			if err := e.verifyWitnessProgram(witness, ver, prog, false); err != nil {
				return err
			}
			// The outer stack only has to look clean for CLEANSTACK.
			e.dstack.items = e.dstack.items[:1]
		}
	}
	if flags&ScriptVerifyP2SH != 0 && IsPayToScriptHash(pkScript) {
		if !IsPushOnly(sigScript) {
			return ErrSigPushOnly
		}
		e.dstack, e.saved = e.saved, e.dstack
		if e.dstack.size() == 0 {
			return ErrEvalFalse // unreachable: the hash check needs a push
		}
		redeem := e.dstack.pop()
		if err := e.evalScript(redeem, sigVersionBase); err != nil {
			return err
		}
		if e.dstack.size() == 0 || !castToBool(e.dstack.top(-1)) {
			return ErrEvalFalse
		}
		if flags&ScriptVerifyWitness != 0 {
			if ver, prog, ok := IsWitnessProgram(redeem); ok {
				hadWitness = true
				if !isCanonicalSinglePush(sigScript, redeem) {
					return ErrWitnessMalleatedP2SH
				}
				if err := e.verifyWitnessProgram(witness, ver, prog, true); err != nil {
					return err
				}
				e.dstack.items = e.dstack.items[:1]
			}
		}
	}
	if flags&ScriptVerifyCleanStack != 0 && e.dstack.size() != 1 {
		return ErrCleanStack
	}
	if flags&ScriptVerifyWitness != 0 && !hadWitness && len(witness) != 0 {
		return ErrWitnessUnexpected
	}
	return nil
}

// verifyWitnessProgram is Core's VerifyWitnessProgram.
func (e *Engine) verifyWitnessProgram(witness [][]byte, ver int, prog []byte, isP2SH bool) error {
	switch {
	case ver == 0:
		switch len(prog) {
		case 32:
			if len(witness) == 0 {
				return ErrWitnessProgramWitnessEmpty
			}
			script := witness[len(witness)-1]
			if sha256.Sum256(script) != [32]byte(prog) {
				return ErrWitnessProgramMismatch
			}
			return e.executeWitnessScript(witness[:len(witness)-1], script, sigVersionWitnessV0)
		case 20:
			if len(witness) != 2 {
				return ErrWitnessProgramMismatch
			}
			s := e.p2wpkhScript[:]
			s[0], s[1], s[2] = OP_DUP, OP_HASH160, OP_DATA_20
			copy(s[3:23], prog)
			s[23], s[24] = OP_EQUALVERIFY, OP_CHECKSIG
			return e.executeWitnessScript(witness, s, sigVersionWitnessV0)
		}
		return ErrWitnessProgramWrongLength
	case ver == 1 && len(prog) == 32 && !isP2SH:
		if e.flags&ScriptVerifyTaproot == 0 {
			return nil
		}
		st := witness
		if len(st) == 0 {
			return ErrWitnessProgramWitnessEmpty
		}
		e.annexPresent = false
		if last := st[len(st)-1]; len(st) >= 2 && len(last) > 0 && last[0] == annexTag {
			e.hw.reset()
			e.hw.varBytes(last)
			e.hw.sum(&e.annexHash)
			e.annexPresent = true
			st = st[:len(st)-1]
		}
		if len(st) == 1 {
			return e.checkSchnorr(st[0], prog, sigVersionTaproot)
		}
		control := st[len(st)-1]
		script := st[len(st)-2]
		st = st[:len(st)-2]
		if len(control) < taprootControlBaseSize ||
			len(control) > taprootControlBaseSize+taprootControlNodeSize*taprootControlMaxNodes ||
			(len(control)-taprootControlBaseSize)%taprootControlNodeSize != 0 {
			return ErrTaprootWrongControlSize
		}
		e.tapleafHash = tapLeafHash(e.hw, control[0]&TaprootLeafMask, script)
		if !verifyTaprootCommitment(e.hw, control, prog, &e.tapleafHash) {
			return ErrWitnessProgramMismatch
		}
		if control[0]&TaprootLeafMask == TapscriptLeafVersion {
			e.weightLeft = int64(witnessSerializeSize(witness)) + validationWeightOffset
			return e.executeWitnessScript(st, script, sigVersionTapscript)
		}
		if e.flags&ScriptVerifyDiscourageUpgradableTaprootVersion != 0 {
			return ErrDiscourageUpgradableTaprootVersion
		}
		return nil
	case ver == 1 && !isP2SH && len(prog) == 2 && prog[0] == 0x4e && prog[1] == 0x73:
		// Pay-to-anchor (BIP 433) is spendable by anyone and is exempt
		// from the upgradable-witness-program policy so that anchors can
		// be spent in relayed transactions.
		return nil
	}
	if e.flags&ScriptVerifyDiscourageUpgradableWitnessProgram != 0 {
		return ErrDiscourageUpgradableWitnessProgram
	}
	return nil
}

func witnessSerializeSize(w [][]byte) int {
	n := wire.VarIntSerializeSize(uint64(len(w)))
	for _, it := range w {
		n += wire.VarIntSerializeSize(uint64(len(it))) + len(it)
	}
	return n
}

// executeWitnessScript is Core's ExecuteWitnessScript.
func (e *Engine) executeWitnessScript(items [][]byte, script []byte, sv sigVersion) error {
	if sv == sigVersionTapscript {
		// OP_SUCCESSx overrides every other rule, even a later parse error.
		t := scriptTokenizer{script: script}
		for t.next() {
			if IsOpSuccess(t.op) {
				if e.flags&ScriptVerifyDiscourageOpSuccess != 0 {
					return ErrDiscourageOpSuccess
				}
				return nil
			}
		}
		if t.err {
			return ErrBadOpcode
		}
		if len(items) > MaxStackSize {
			return ErrStackSize
		}
	}
	for _, it := range items {
		if len(it) > MaxScriptElementSize {
			return ErrPushSize
		}
	}
	e.dstack.reset()
	e.dstack.items = append(e.dstack.items, items...)
	if err := e.evalScript(script, sv); err != nil {
		return err
	}
	if e.dstack.size() != 1 {
		return ErrCleanStack
	}
	if !castToBool(e.dstack.top(-1)) {
		return ErrEvalFalse
	}
	return nil
}

// alloc returns n fresh bytes from the engine's arena. Chunks are never
// reused while a verification runs, so earlier results stay valid.
func (e *Engine) alloc(n int) []byte {
	if cap(e.arena)-len(e.arena) < n {
		size := 4096
		if n > size {
			size = n
		}
		e.arena = make([]byte, 0, size)
	}
	s := len(e.arena)
	e.arena = e.arena[:s+n]
	return e.arena[s : s+n : s+n]
}

func (e *Engine) pushNum(n int64) {
	if n == 0 {
		e.dstack.push(elemEmpty)
		return
	}
	var tmp [9]byte
	b := appendScriptNum(tmp[:0], n)
	out := e.alloc(len(b))
	copy(out, b)
	e.dstack.push(out)
}

func (e *Engine) pushBool(v bool) {
	if v {
		e.dstack.push(elemTrue)
	} else {
		e.dstack.push(elemEmpty)
	}
}

func (e *Engine) pushCopy(b []byte) {
	out := e.alloc(len(b))
	copy(out, b)
	e.dstack.push(out)
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }
