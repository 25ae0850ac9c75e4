package txscript

import "bytes"

// evalChecksig dispatches OP_CHECKSIG(VERIFY) by sigversion.
func (e *Engine) evalChecksig(sig, pk []byte) (bool, error) {
	if e.sv == sigVersionBase || e.sv == sigVersionWitnessV0 {
		return e.evalChecksigPreTapscript(sig, pk)
	}
	return e.evalChecksigTapscript(sig, pk)
}

func (e *Engine) evalChecksigPreTapscript(sig, pk []byte) (bool, error) {
	scriptCode := e.script[e.codeHashStart:]
	if e.sv == sigVersionBase {
		var found int
		scriptCode, found = findAndDelete(scriptCode, sig)
		if found > 0 && e.flags&ScriptVerifyConstScriptCode != 0 {
			return false, ErrSigFindAndDelete
		}
	}
	if err := checkSignatureEncoding(sig, e.flags); err != nil {
		return false, err
	}
	if err := checkPubKeyEncoding(pk, e.flags, e.sv); err != nil {
		return false, err
	}
	ok := e.checkECDSA(sig, pk, scriptCode)
	if !ok && e.flags&ScriptVerifyNullFail != 0 && len(sig) != 0 {
		return false, ErrSigNullFail
	}
	return ok, nil
}

// checkECDSA is Core's CheckECDSASignature: sig carries the hash type byte.
func (e *Engine) checkECDSA(sig, pk, scriptCode []byte) bool {
	if !pubKeySizeValid(pk) || len(sig) == 0 {
		return false
	}
	hashType := uint32(sig[len(sig)-1])
	der := sig[:len(sig)-1]
	var h [32]byte
	if e.sv == sigVersionBase {
		legacySigHash(e.hw, scriptCode, e.tx, e.idx, hashType, &h)
	} else {
		witnessV0SigHash(e.hw, scriptCode, e.hashes, e.idx, e.amount, hashType, &h)
	}
	var key [32]byte
	if e.cache != nil {
		key = e.cache.key(sigKindECDSA, &h, der, pk)
		if e.cache.has(&key) {
			return true
		}
	}
	if !verifyECDSA(der, pk, &h) {
		return false
	}
	if e.cache != nil && !e.noStore {
		e.cache.add(&key)
	}
	return true
}

// evalChecksigTapscript is Core's EvalChecksigTapscript (BIP342).
func (e *Engine) evalChecksigTapscript(sig, pk []byte) (bool, error) {
	success := len(sig) != 0
	if success {
		e.weightLeft -= validationWeightPerSig
		if e.weightLeft < 0 {
			return false, ErrTapscriptValidationWeight
		}
	}
	switch {
	case len(pk) == 0:
		return false, ErrTapscriptEmptyPubKey
	case len(pk) == 32:
		if success {
			if err := e.checkSchnorr(sig, pk, sigVersionTapscript); err != nil {
				return false, err
			}
		}
	default:
		if e.flags&ScriptVerifyDiscourageUpgradablePubKeyType != 0 {
			return false, ErrDiscourageUpgradablePubKeyType
		}
	}
	return success, nil
}

// checkSchnorr is Core's CheckSchnorrSignature for key path (taproot) and
// script path (tapscript) spends.
func (e *Engine) checkSchnorr(sig, pk []byte, sv sigVersion) error {
	if len(sig) != 64 && len(sig) != 65 {
		return ErrSchnorrSigSize
	}
	hashType := byte(SigHashDefault)
	if len(sig) == 65 {
		hashType = sig[64]
		if hashType == byte(SigHashDefault) {
			return ErrSchnorrSigHashType
		}
		sig = sig[:64]
	}
	opts := TaprootSigHashOpts{CodeSepPos: e.codeSepPos}
	if e.annexPresent {
		opts.AnnexHash = &e.annexHash
	}
	if sv == sigVersionTapscript {
		opts.LeafHash = &e.tapleafHash
	}
	var h [32]byte
	if err := taprootSigHash(e.hw, e.hashes, e.idx, hashType, &opts, &h); err != nil {
		return err
	}
	var key [32]byte
	if e.cache != nil {
		key = e.cache.key(sigKindSchnorr, &h, sig, pk)
		if e.cache.has(&key) {
			return nil
		}
	}
	if !verifySchnorr(sig, pk, &h) {
		return ErrSchnorrSig
	}
	if e.cache != nil && !e.noStore {
		e.cache.add(&key)
	}
	return nil
}

// checkMultiSig is Core's OP_CHECKMULTISIG; it leaves the result on the
// stack and returns it.
func (e *Engine) checkMultiSig(minimal bool) (bool, error) {
	s := &e.dstack
	i := 1
	if s.size() < i {
		return false, ErrInvalidStackOperation
	}
	nk64, err := parseScriptNum(s.top(-i), minimal, defaultScriptNumLen)
	if err != nil {
		return false, err
	}
	nKeys := clampInt32(nk64)
	if nKeys < 0 || nKeys > MaxPubKeysPerMultiSig {
		return false, ErrPubKeyCount
	}
	e.opCount += nKeys
	if e.opCount > MaxOpsPerScript {
		return false, ErrOpCount
	}
	i++
	ikey := i
	// ikey2 counts the pubkey slots that NULLFAIL must not inspect.
	ikey2 := nKeys + 2
	i += nKeys
	if s.size() < i {
		return false, ErrInvalidStackOperation
	}
	ns64, err := parseScriptNum(s.top(-i), minimal, defaultScriptNumLen)
	if err != nil {
		return false, err
	}
	nSigs := clampInt32(ns64)
	if nSigs < 0 || nSigs > nKeys {
		return false, ErrSigCount
	}
	i++
	isig := i
	i += nSigs
	if s.size() < i {
		return false, ErrInvalidStackOperation
	}
	scriptCode := e.script[e.codeHashStart:]
	if e.sv == sigVersionBase {
		for k := 0; k < nSigs; k++ {
			var found int
			scriptCode, found = findAndDelete(scriptCode, s.top(-isig-k))
			if found > 0 && e.flags&ScriptVerifyConstScriptCode != 0 {
				return false, ErrSigFindAndDelete
			}
		}
	}
	success := true
	for success && nSigs > 0 {
		sig, pk := s.top(-isig), s.top(-ikey)
		if err := checkSignatureEncoding(sig, e.flags); err != nil {
			return false, err
		}
		if err := checkPubKeyEncoding(pk, e.flags, e.sv); err != nil {
			return false, err
		}
		if e.checkECDSA(sig, pk, scriptCode) {
			isig++
			nSigs--
		}
		ikey++
		nKeys--
		// Too few keys left for the remaining signatures.
		if nSigs > nKeys {
			success = false
		}
	}
	for ; i > 1; i-- {
		if !success && e.flags&ScriptVerifyNullFail != 0 && ikey2 == 0 && len(s.top(-1)) != 0 {
			return false, ErrSigNullFail
		}
		if ikey2 > 0 {
			ikey2--
		}
		s.pop()
	}
	// The extra element consumed by Satoshi's off-by-one bug.
	if s.size() < 1 {
		return false, ErrInvalidStackOperation
	}
	if e.flags&ScriptVerifyNullDummy != 0 && len(s.top(-1)) != 0 {
		return false, ErrSigNullDummy
	}
	s.pop()
	e.pushBool(success)
	return success, nil
}

// findAndDelete is Core's FindAndDelete(script, CScript() << sig): it
// removes every occurrence, at an opcode boundary, of the exact canonical
// push encoding of sig. Matching other encodings of the same data would
// diverge from consensus (CVE-2024-38365). It allocates only when
// something is found.
func findAndDelete(script, sig []byte) ([]byte, int) {
	var pre [5]byte
	p := appendPushPrefix(pre[:0], len(sig))
	plen := len(p) + len(sig)
	match := func(at int) bool {
		return len(script)-at >= plen && bytes.Equal(script[at:at+len(p)], p) &&
			bytes.Equal(script[at+len(p):at+plen], sig)
	}
	scan := func(out []byte, build bool) ([]byte, int) {
		found := 0
		pc, pc2 := 0, 0
		t := scriptTokenizer{script: script}
		for {
			if build {
				out = append(out, script[pc2:pc]...)
			}
			for match(pc) {
				pc += plen
				found++
			}
			pc2 = pc
			t.pos = pc
			if !t.next() {
				break
			}
			pc = t.pos
		}
		if build {
			out = append(out, script[pc2:]...)
		}
		return out, found
	}
	if _, n := scan(nil, false); n == 0 {
		return script, 0
	}
	return scan(make([]byte, 0, len(script)), true)
}
