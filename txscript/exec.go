package txscript

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
)

// evalScript is Core's EvalScript: it runs script on e.dstack under the
// rules of sv.
func (e *Engine) evalScript(script []byte, sv sigVersion) error {
	legacyLimits := sv == sigVersionBase || sv == sigVersionWitnessV0
	if legacyLimits && len(script) > MaxScriptSize {
		return ErrScriptSize
	}
	e.astack.reset()
	e.cond.reset()
	e.script, e.sv = script, sv
	e.codeHashStart, e.opCount = 0, 0
	e.codeSepPos = 0xffffffff
	requireMinimal := e.flags&ScriptVerifyMinimalData != 0
	t := scriptTokenizer{script: script}
	for opPos := uint32(0); t.pos < len(script); opPos++ {
		exec := e.cond.allTrue()
		if !t.next() {
			return ErrBadOpcode
		}
		op := t.op
		if len(t.data) > MaxScriptElementSize {
			return ErrPushSize
		}
		if legacyLimits && op > OP_16 {
			e.opCount++
			if e.opCount > MaxOpsPerScript {
				return ErrOpCount
			}
		}
		if isDisabled(op) {
			return ErrDisabledOpcode
		}
		if op == OP_CODESEPARATOR && sv == sigVersionBase &&
			e.flags&ScriptVerifyConstScriptCode != 0 {
			return ErrOpCodeSeparator
		}
		if exec && op <= OP_PUSHDATA4 {
			if requireMinimal && !checkMinimalPush(t.data, op) {
				return ErrMinimalData
			}
			e.dstack.push(t.data)
		} else if exec || (op >= OP_IF && op <= OP_ENDIF) {
			if err := e.execOp(op, exec, &t, opPos, requireMinimal); err != nil {
				return err
			}
		}
		if e.dstack.size()+e.astack.size() > MaxStackSize {
			return ErrStackSize
		}
	}
	if !e.cond.empty() {
		return ErrUnbalancedConditional
	}
	return nil
}

// execOp executes one non-push opcode (or a flow-control opcode in an
// unexecuted branch, where exec is false).
func (e *Engine) execOp(op byte, exec bool, t *scriptTokenizer, opPos uint32, minimal bool) error {
	s := &e.dstack
	need := func(n int) error {
		if s.size() < n {
			return ErrInvalidStackOperation
		}
		return nil
	}
	num := func(i int) (int64, error) {
		return parseScriptNum(s.top(i), minimal, defaultScriptNumLen)
	}
	switch op {
	case OP_1NEGATE, OP_1, OP_2, OP_3, OP_4, OP_5, OP_6, OP_7, OP_8, OP_9,
		OP_10, OP_11, OP_12, OP_13, OP_14, OP_15, OP_16:
		e.pushNum(int64(op) - (OP_1 - 1))

	case OP_NOP:

	case OP_CHECKLOCKTIMEVERIFY:
		if e.flags&ScriptVerifyCheckLockTimeVerify == 0 {
			return e.upgradableNop()
		}
		if err := need(1); err != nil {
			return err
		}
		lt, err := parseScriptNum(s.top(-1), minimal, lockTimeScriptNumLen)
		if err != nil {
			return err
		}
		if lt < 0 {
			return ErrNegativeLockTime
		}
		if !e.checkLockTime(lt) {
			return ErrUnsatisfiedLockTime
		}

	case OP_CHECKSEQUENCEVERIFY:
		if e.flags&ScriptVerifyCheckSequenceVerify == 0 {
			return e.upgradableNop()
		}
		if err := need(1); err != nil {
			return err
		}
		seq, err := parseScriptNum(s.top(-1), minimal, lockTimeScriptNumLen)
		if err != nil {
			return err
		}
		if seq < 0 {
			return ErrNegativeLockTime
		}
		if seq&sequenceDisableFlag != 0 {
			break
		}
		if !e.checkSequence(seq) {
			return ErrUnsatisfiedLockTime
		}

	case OP_NOP1, OP_NOP4, OP_NOP5, OP_NOP6, OP_NOP7, OP_NOP8, OP_NOP9, OP_NOP10:
		return e.upgradableNop()

	case OP_IF, OP_NOTIF:
		v := false
		if exec {
			// Core reports a missing condition as a malformed IF rather
			// than a stack underflow; reject reasons carry that wording.
			if s.size() < 1 {
				return ErrUnbalancedConditional
			}
			top := s.top(-1)
			if e.sv == sigVersionTapscript {
				if len(top) > 1 || (len(top) == 1 && top[0] != 1) {
					return ErrTapscriptMinimalIf
				}
			} else if e.sv == sigVersionWitnessV0 && e.flags&ScriptVerifyMinimalIf != 0 {
				if len(top) > 1 || (len(top) == 1 && top[0] != 1) {
					return ErrMinimalIf
				}
			}
			v = castToBool(top)
			if op == OP_NOTIF {
				v = !v
			}
			s.pop()
		}
		e.cond.push(v)

	case OP_ELSE:
		if e.cond.empty() {
			return ErrUnbalancedConditional
		}
		e.cond.toggleTop()

	case OP_ENDIF:
		if e.cond.empty() {
			return ErrUnbalancedConditional
		}
		e.cond.pop()

	case OP_VERIFY:
		if err := need(1); err != nil {
			return err
		}
		if !castToBool(s.top(-1)) {
			return ErrVerify
		}
		s.pop()

	case OP_RETURN:
		return ErrOpReturn

	case OP_TOALTSTACK:
		if err := need(1); err != nil {
			return err
		}
		e.astack.push(s.pop())

	case OP_FROMALTSTACK:
		if e.astack.size() < 1 {
			return ErrInvalidAltStackOperation
		}
		s.push(e.astack.pop())

	case OP_2DROP:
		if err := need(2); err != nil {
			return err
		}
		s.pop()
		s.pop()

	case OP_2DUP:
		if err := need(2); err != nil {
			return err
		}
		a, b := s.top(-2), s.top(-1)
		s.push(a)
		s.push(b)

	case OP_3DUP:
		if err := need(3); err != nil {
			return err
		}
		a, b, c := s.top(-3), s.top(-2), s.top(-1)
		s.push(a)
		s.push(b)
		s.push(c)

	case OP_2OVER:
		if err := need(4); err != nil {
			return err
		}
		a, b := s.top(-4), s.top(-3)
		s.push(a)
		s.push(b)

	case OP_2ROT:
		if err := need(6); err != nil {
			return err
		}
		a, b := s.top(-6), s.top(-5)
		s.erase(-6)
		s.erase(-5)
		s.push(a)
		s.push(b)

	case OP_2SWAP:
		if err := need(4); err != nil {
			return err
		}
		n := len(s.items)
		s.items[n-4], s.items[n-2] = s.items[n-2], s.items[n-4]
		s.items[n-3], s.items[n-1] = s.items[n-1], s.items[n-3]

	case OP_IFDUP:
		if err := need(1); err != nil {
			return err
		}
		if v := s.top(-1); castToBool(v) {
			s.push(v)
		}

	case OP_DEPTH:
		e.pushNum(int64(s.size()))

	case OP_DROP:
		if err := need(1); err != nil {
			return err
		}
		s.pop()

	case OP_DUP:
		if err := need(1); err != nil {
			return err
		}
		s.push(s.top(-1))

	case OP_NIP:
		if err := need(2); err != nil {
			return err
		}
		s.erase(-2)

	case OP_OVER:
		if err := need(2); err != nil {
			return err
		}
		s.push(s.top(-2))

	case OP_PICK, OP_ROLL:
		if err := need(2); err != nil {
			return err
		}
		n64, err := num(-1)
		if err != nil {
			return err
		}
		n := clampInt32(n64)
		s.pop()
		if n < 0 || n >= s.size() {
			return ErrInvalidStackOperation
		}
		v := s.top(-n - 1)
		if op == OP_ROLL {
			s.erase(-n - 1)
		}
		s.push(v)

	case OP_ROT:
		if err := need(3); err != nil {
			return err
		}
		n := len(s.items)
		s.items[n-3], s.items[n-2] = s.items[n-2], s.items[n-3]
		s.items[n-2], s.items[n-1] = s.items[n-1], s.items[n-2]

	case OP_SWAP:
		if err := need(2); err != nil {
			return err
		}
		n := len(s.items)
		s.items[n-2], s.items[n-1] = s.items[n-1], s.items[n-2]

	case OP_TUCK:
		if err := need(2); err != nil {
			return err
		}
		v := s.top(-1)
		n := len(s.items)
		s.items = append(s.items, nil)
		copy(s.items[n-1:], s.items[n-2:n])
		s.items[n-2] = v

	case OP_SIZE:
		if err := need(1); err != nil {
			return err
		}
		e.pushNum(int64(len(s.top(-1))))

	case OP_EQUAL, OP_EQUALVERIFY:
		if err := need(2); err != nil {
			return err
		}
		eq := bytes.Equal(s.top(-2), s.top(-1))
		s.pop()
		s.pop()
		e.pushBool(eq)
		if op == OP_EQUALVERIFY {
			if !eq {
				return ErrEqualVerify
			}
			s.pop()
		}

	case OP_1ADD, OP_1SUB, OP_NEGATE, OP_ABS, OP_NOT, OP_0NOTEQUAL:
		if err := need(1); err != nil {
			return err
		}
		n, err := num(-1)
		if err != nil {
			return err
		}
		switch op {
		case OP_1ADD:
			n++
		case OP_1SUB:
			n--
		case OP_NEGATE:
			n = -n
		case OP_ABS:
			if n < 0 {
				n = -n
			}
		case OP_NOT:
			n = b2i(n == 0)
		case OP_0NOTEQUAL:
			n = b2i(n != 0)
		}
		s.pop()
		e.pushNum(n)

	case OP_ADD, OP_SUB, OP_BOOLAND, OP_BOOLOR, OP_NUMEQUAL, OP_NUMEQUALVERIFY,
		OP_NUMNOTEQUAL, OP_LESSTHAN, OP_GREATERTHAN, OP_LESSTHANOREQUAL,
		OP_GREATERTHANOREQUAL, OP_MIN, OP_MAX:
		if err := need(2); err != nil {
			return err
		}
		a, err := num(-2)
		if err != nil {
			return err
		}
		b, err := num(-1)
		if err != nil {
			return err
		}
		var r int64
		switch op {
		case OP_ADD:
			r = a + b
		case OP_SUB:
			r = a - b
		case OP_BOOLAND:
			r = b2i(a != 0 && b != 0)
		case OP_BOOLOR:
			r = b2i(a != 0 || b != 0)
		case OP_NUMEQUAL, OP_NUMEQUALVERIFY:
			r = b2i(a == b)
		case OP_NUMNOTEQUAL:
			r = b2i(a != b)
		case OP_LESSTHAN:
			r = b2i(a < b)
		case OP_GREATERTHAN:
			r = b2i(a > b)
		case OP_LESSTHANOREQUAL:
			r = b2i(a <= b)
		case OP_GREATERTHANOREQUAL:
			r = b2i(a >= b)
		case OP_MIN:
			r = min(a, b)
		case OP_MAX:
			r = max(a, b)
		}
		s.pop()
		s.pop()
		e.pushNum(r)
		if op == OP_NUMEQUALVERIFY {
			if r == 0 {
				return ErrNumEqualVerify
			}
			s.pop()
		}

	case OP_WITHIN:
		if err := need(3); err != nil {
			return err
		}
		x, err := num(-3)
		if err != nil {
			return err
		}
		lo, err := num(-2)
		if err != nil {
			return err
		}
		hi, err := num(-1)
		if err != nil {
			return err
		}
		s.pop()
		s.pop()
		s.pop()
		e.pushBool(lo <= x && x < hi)

	case OP_RIPEMD160, OP_SHA1, OP_SHA256, OP_HASH160, OP_HASH256:
		if err := need(1); err != nil {
			return err
		}
		v := s.pop()
		switch op {
		case OP_RIPEMD160:
			h := ripemd160Sum(v)
			e.pushCopy(h[:])
		case OP_SHA1:
			h := sha1.Sum(v)
			e.pushCopy(h[:])
		case OP_SHA256:
			h := sha256.Sum256(v)
			e.pushCopy(h[:])
		case OP_HASH160:
			h := Hash160(v)
			e.pushCopy(h[:])
		case OP_HASH256:
			h := sha256.Sum256(v)
			h = sha256.Sum256(h[:])
			e.pushCopy(h[:])
		}

	case OP_CODESEPARATOR:
		e.codeHashStart = t.pos
		e.codeSepPos = opPos

	case OP_CHECKSIG, OP_CHECKSIGVERIFY:
		if err := need(2); err != nil {
			return err
		}
		ok, err := e.evalChecksig(s.top(-2), s.top(-1))
		if err != nil {
			return err
		}
		s.pop()
		s.pop()
		e.pushBool(ok)
		if op == OP_CHECKSIGVERIFY {
			if !ok {
				return ErrCheckSigVerify
			}
			s.pop()
		}

	case OP_CHECKSIGADD:
		if e.sv == sigVersionBase || e.sv == sigVersionWitnessV0 {
			return ErrBadOpcode
		}
		if err := need(3); err != nil {
			return err
		}
		n, err := num(-2)
		if err != nil {
			return err
		}
		ok, err := e.evalChecksigTapscript(s.top(-3), s.top(-1))
		if err != nil {
			return err
		}
		s.pop()
		s.pop()
		s.pop()
		e.pushNum(n + b2i(ok))

	case OP_CHECKMULTISIG, OP_CHECKMULTISIGVERIFY:
		if e.sv == sigVersionTapscript {
			return ErrTapscriptCheckMultiSig
		}
		ok, err := e.checkMultiSig(minimal)
		if err != nil {
			return err
		}
		if op == OP_CHECKMULTISIGVERIFY {
			if !ok {
				return ErrCheckMultiSigVerify
			}
			s.pop()
		}

	default:
		return ErrBadOpcode
	}
	return nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (e *Engine) upgradableNop() error {
	if e.flags&ScriptVerifyDiscourageUpgradableNops != 0 {
		return ErrDiscourageUpgradableNops
	}
	return nil
}

// checkLockTime is Core's CheckLockTime (BIP65).
func (e *Engine) checkLockTime(lt int64) bool {
	txLT := int64(e.tx.LockTime)
	if !((txLT < lockTimeThreshold && lt < lockTimeThreshold) ||
		(txLT >= lockTimeThreshold && lt >= lockTimeThreshold)) {
		return false
	}
	if lt > txLT {
		return false
	}
	// A final input would let the lock time be ignored by nLockTime rules.
	return e.tx.TxIn[e.idx].Sequence != maxSequence
}

// checkSequence is Core's CheckSequence (BIP112).
func (e *Engine) checkSequence(seq int64) bool {
	txSeq := int64(e.tx.TxIn[e.idx].Sequence)
	if e.tx.Version < 2 {
		return false
	}
	if txSeq&sequenceDisableFlag != 0 {
		return false
	}
	const mask = sequenceTypeFlag | sequenceLockTimeMask
	txM, m := txSeq&mask, seq&mask
	if !((txM < sequenceTypeFlag && m < sequenceTypeFlag) ||
		(txM >= sequenceTypeFlag && m >= sequenceTypeFlag)) {
		return false
	}
	return m <= txM
}
