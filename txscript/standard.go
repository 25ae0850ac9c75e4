package txscript

// ScriptClass is the standard form of an output script (Core's TxoutType).
type ScriptClass uint8

// Script classes.
const (
	NonStandardTy ScriptClass = iota
	PubKeyTy
	PubKeyHashTy
	ScriptHashTy
	MultiSigTy
	NullDataTy
	WitnessV0PubKeyHashTy
	WitnessV0ScriptHashTy
	WitnessV1TaprootTy
	AnchorTy
	WitnessUnknownTy
)

var classNames = [...]string{
	NonStandardTy:         "nonstandard",
	PubKeyTy:              "pubkey",
	PubKeyHashTy:          "pubkeyhash",
	ScriptHashTy:          "scripthash",
	MultiSigTy:            "multisig",
	NullDataTy:            "nulldata",
	WitnessV0PubKeyHashTy: "witness_v0_keyhash",
	WitnessV0ScriptHashTy: "witness_v0_scripthash",
	WitnessV1TaprootTy:    "witness_v1_taproot",
	AnchorTy:              "anchor",
	WitnessUnknownTy:      "witness_unknown",
}

// String returns Core's name for the class (as in decodescript "type").
func (c ScriptClass) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "nonstandard"
}

// pubKeyValidSize is CPubKey::ValidSize: the header byte decides the length.
func pubKeyValidSize(b []byte) bool { return pubKeySizeValid(b) }

// smallOrPushNumber is Core's GetScriptNumber for multisig templates.
func smallOrPushNumber(op byte, data []byte, lo, hi int) (int, bool) {
	var n int
	switch {
	case op >= OP_1 && op <= OP_16:
		n = DecodeSmallInt(op)
	case op > OP_0 && op <= OP_PUSHDATA4:
		if !checkMinimalPush(data, op) {
			return 0, false
		}
		v, err := parseScriptNum(data, true, defaultScriptNumLen)
		if err != nil {
			return 0, false
		}
		n = clampInt32(v)
	default:
		return 0, false
	}
	return n, n >= lo && n <= hi
}

// multiSigInfo parses a bare multisig script: required signatures and
// the public keys.
func multiSigInfo(s []byte) (required int, keys [][]byte, ok bool) {
	if len(s) < 1 || s[len(s)-1] != OP_CHECKMULTISIG {
		return 0, nil, false
	}
	t := scriptTokenizer{script: s}
	if !t.next() {
		return 0, nil, false
	}
	required, ok = smallOrPushNumber(t.op, t.data, 1, MaxPubKeysPerMultiSig)
	if !ok {
		return 0, nil, false
	}
	for t.next() && t.op <= OP_PUSHDATA4 && pubKeyValidSize(t.data) {
		keys = append(keys, t.data)
	}
	if t.err {
		return 0, nil, false
	}
	n, ok := smallOrPushNumber(t.op, t.data, required, MaxPubKeysPerMultiSig)
	if !ok || n != len(keys) {
		return 0, nil, false
	}
	return required, keys, t.pos == len(s)-1
}

// GetScriptClass classifies an output script as Core's Solver does.
func GetScriptClass(s []byte) ScriptClass {
	if IsPayToScriptHash(s) {
		return ScriptHashTy
	}
	if v, prog, ok := IsWitnessProgram(s); ok {
		switch {
		case v == 0 && len(prog) == 20:
			return WitnessV0PubKeyHashTy
		case v == 0 && len(prog) == 32:
			return WitnessV0ScriptHashTy
		case v == 1 && len(prog) == 32:
			return WitnessV1TaprootTy
		case v == 1 && len(prog) == 2 && prog[0] == 0x4e && prog[1] == 0x73:
			return AnchorTy
		case v != 0:
			return WitnessUnknownTy
		}
		return NonStandardTy
	}
	if len(s) >= 1 && s[0] == OP_RETURN && IsPushOnly(s[1:]) {
		return NullDataTy
	}
	if (len(s) == 35 && s[0] == 33 || len(s) == 67 && s[0] == 65) &&
		s[len(s)-1] == OP_CHECKSIG && pubKeyValidSize(s[1:len(s)-1]) {
		return PubKeyTy
	}
	if isP2PKH(s) {
		return PubKeyHashTy
	}
	if _, _, ok := multiSigInfo(s); ok {
		return MultiSigTy
	}
	return NonStandardTy
}

// MultiSigInfo returns the required signature count and keys of a bare
// multisig script.
func MultiSigInfo(s []byte) (required int, keys [][]byte, ok bool) { return multiSigInfo(s) }

// GetSigOpCount is Core's CScript::GetSigOpCount. In accurate mode a
// CHECKMULTISIG preceded by OP_1..OP_16 counts that many; otherwise 20.
func GetSigOpCount(s []byte, accurate bool) int {
	n := 0
	last := byte(OP_INVALIDOPCODE)
	t := scriptTokenizer{script: s}
	for t.next() {
		switch t.op {
		case OP_CHECKSIG, OP_CHECKSIGVERIFY:
			n++
		case OP_CHECKMULTISIG, OP_CHECKMULTISIGVERIFY:
			if accurate && last >= OP_1 && last <= OP_16 {
				n += DecodeSmallInt(last)
			} else {
				n += MaxPubKeysPerMultiSig
			}
		}
		last = t.op
	}
	return n
}

// GetP2SHSigOpCount counts the sigops of the redeem script that a P2SH
// scriptSig reveals (accurate mode), as Core's GetP2SHSigOpCount does per
// input. It returns 0 when pkScript is not P2SH, so callers can sum it
// over every input of a transaction.
func GetP2SHSigOpCount(sigScript, pkScript []byte) int {
	if !IsPayToScriptHash(pkScript) {
		return 0
	}
	var last []byte
	t := scriptTokenizer{script: sigScript}
	for t.pos < len(sigScript) {
		if !t.next() || t.op > OP_16 {
			return 0
		}
		last = t.data
	}
	return GetSigOpCount(last, true)
}

// CountWitnessSigOps is Core's CountWitnessSigOps for one input.
func CountWitnessSigOps(sigScript, pkScript []byte, witness [][]byte, flags ScriptFlags) int {
	if flags&ScriptVerifyWitness == 0 {
		return 0
	}
	if v, prog, ok := IsWitnessProgram(pkScript); ok {
		return witnessSigOps(v, prog, witness)
	}
	if IsPayToScriptHash(pkScript) && IsPushOnly(sigScript) {
		var last []byte
		t := scriptTokenizer{script: sigScript}
		for t.next() {
			last = t.data
		}
		if v, prog, ok := IsWitnessProgram(last); ok {
			return witnessSigOps(v, prog, witness)
		}
	}
	return 0
}

func witnessSigOps(v int, prog []byte, witness [][]byte) int {
	if v != 0 {
		return 0
	}
	if len(prog) == 20 {
		return 1
	}
	if len(prog) == 32 && len(witness) > 0 {
		return GetSigOpCount(witness[len(witness)-1], true)
	}
	return 0
}

// PushedData returns the data pushes of a script (nil if it does not
// parse).
func PushedData(s []byte) [][]byte {
	var out [][]byte
	t := scriptTokenizer{script: s}
	for t.next() {
		if t.op <= OP_PUSHDATA4 {
			out = append(out, t.data)
		}
	}
	if t.err {
		return nil
	}
	return out
}

// IsUnspendable reports outputs that can never be spent (OP_RETURN or
// oversized), which need not enter the UTXO set.
func IsUnspendable(s []byte) bool {
	return (len(s) > 0 && s[0] == OP_RETURN) || len(s) > MaxScriptSize
}
