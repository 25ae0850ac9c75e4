package txscript

import "strings"

// ScriptFlags selects the verification rules, bit for bit Core's
// SCRIPT_VERIFY_* flags (names without the prefix in FlagsFromString).
type ScriptFlags uint32

// Verification flags, named after Core's SCRIPT_VERIFY_* constants.
const (
	ScriptVerifyNone ScriptFlags = 0
	ScriptVerifyP2SH ScriptFlags = 1 << (iota - 1)
	ScriptVerifyStrictEnc
	ScriptVerifyDERSig
	ScriptVerifyLowS
	ScriptVerifyNullDummy
	ScriptVerifySigPushOnly
	ScriptVerifyMinimalData
	ScriptVerifyDiscourageUpgradableNops
	ScriptVerifyCleanStack
	ScriptVerifyCheckLockTimeVerify
	ScriptVerifyCheckSequenceVerify
	ScriptVerifyWitness
	ScriptVerifyDiscourageUpgradableWitnessProgram
	ScriptVerifyMinimalIf
	ScriptVerifyNullFail
	ScriptVerifyWitnessPubKeyType
	ScriptVerifyConstScriptCode
	ScriptVerifyTaproot
	ScriptVerifyDiscourageUpgradableTaprootVersion
	ScriptVerifyDiscourageOpSuccess
	ScriptVerifyDiscourageUpgradablePubKeyType
)

// MandatoryVerifyFlags are the consensus rules every block since taproot
// activation obeys (Core's MANDATORY_SCRIPT_VERIFY_FLAGS); a mempool
// failure under these is "mandatory-script-verify-flag-failed".
const MandatoryVerifyFlags = ScriptVerifyP2SH | ScriptVerifyDERSig |
	ScriptVerifyNullDummy | ScriptVerifyCheckLockTimeVerify |
	ScriptVerifyCheckSequenceVerify | ScriptVerifyWitness | ScriptVerifyTaproot

// StandardVerifyFlags is Core's STANDARD_SCRIPT_VERIFY_FLAGS, the policy
// rules applied to transactions entering the mempool.
const StandardVerifyFlags = MandatoryVerifyFlags | ScriptVerifyStrictEnc |
	ScriptVerifyMinimalData | ScriptVerifyDiscourageUpgradableNops |
	ScriptVerifyCleanStack | ScriptVerifyMinimalIf | ScriptVerifyNullFail |
	ScriptVerifyLowS | ScriptVerifyDiscourageUpgradableWitnessProgram |
	ScriptVerifyWitnessPubKeyType | ScriptVerifyConstScriptCode |
	ScriptVerifyDiscourageUpgradableTaprootVersion |
	ScriptVerifyDiscourageOpSuccess | ScriptVerifyDiscourageUpgradablePubKeyType

// Deployments says which script soft forks are active for a block; the
// blockchain package fills it from chain parameters and the block height.
type Deployments struct {
	BIP16, BIP66, BIP65, CSV, Segwit, Taproot bool
}

// ConsensusFlags returns the script flags a block must satisfy given which
// deployments are active at its height: BIP16 gives P2SH, BIP66 DERSIG,
// BIP65 CHECKLOCKTIMEVERIFY, CSV CHECKSEQUENCEVERIFY, Segwit WITNESS and
// NULLDUMMY, Taproot TAPROOT.
//
// Core's GetBlockScriptFlags enforces P2SH, WITNESS and TAPROOT for every
// block except two historical exceptions (which is equivalent on the real
// chains); a caller wanting that behaviour passes BIP16 and Taproot true and
// ORs ScriptVerifyWitness in itself, since NULLDUMMY must still wait for
// the segwit height.
func ConsensusFlags(d Deployments) ScriptFlags {
	var f ScriptFlags
	if d.BIP16 {
		f |= ScriptVerifyP2SH
	}
	if d.BIP66 {
		f |= ScriptVerifyDERSig
	}
	if d.BIP65 {
		f |= ScriptVerifyCheckLockTimeVerify
	}
	if d.CSV {
		f |= ScriptVerifyCheckSequenceVerify
	}
	if d.Segwit {
		f |= ScriptVerifyWitness | ScriptVerifyNullDummy
	}
	if d.Taproot {
		f |= ScriptVerifyTaproot
	}
	return f
}

var flagNames = []struct {
	name string
	flag ScriptFlags
}{
	{"P2SH", ScriptVerifyP2SH},
	{"STRICTENC", ScriptVerifyStrictEnc},
	{"DERSIG", ScriptVerifyDERSig},
	{"LOW_S", ScriptVerifyLowS},
	{"NULLDUMMY", ScriptVerifyNullDummy},
	{"SIGPUSHONLY", ScriptVerifySigPushOnly},
	{"MINIMALDATA", ScriptVerifyMinimalData},
	{"DISCOURAGE_UPGRADABLE_NOPS", ScriptVerifyDiscourageUpgradableNops},
	{"CLEANSTACK", ScriptVerifyCleanStack},
	{"CHECKLOCKTIMEVERIFY", ScriptVerifyCheckLockTimeVerify},
	{"CHECKSEQUENCEVERIFY", ScriptVerifyCheckSequenceVerify},
	{"WITNESS", ScriptVerifyWitness},
	{"DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM", ScriptVerifyDiscourageUpgradableWitnessProgram},
	{"MINIMALIF", ScriptVerifyMinimalIf},
	{"NULLFAIL", ScriptVerifyNullFail},
	{"WITNESS_PUBKEYTYPE", ScriptVerifyWitnessPubKeyType},
	{"CONST_SCRIPTCODE", ScriptVerifyConstScriptCode},
	{"TAPROOT", ScriptVerifyTaproot},
	{"DISCOURAGE_UPGRADABLE_TAPROOT_VERSION", ScriptVerifyDiscourageUpgradableTaprootVersion},
	{"DISCOURAGE_OP_SUCCESS", ScriptVerifyDiscourageOpSuccess},
	{"DISCOURAGE_UPGRADABLE_PUBKEYTYPE", ScriptVerifyDiscourageUpgradablePubKeyType},
}

// AllVerifyFlags is every flag this package knows.
const AllVerifyFlags = ScriptVerifyDiscourageUpgradablePubKeyType<<1 - 1

// FlagsFromString parses Core's comma separated flag names ("P2SH,WITNESS";
// "" and "NONE" mean no flags). ok is false if a name is unknown.
func FlagsFromString(s string) (ScriptFlags, bool) {
	var f ScriptFlags
	if s == "" || s == "NONE" {
		return 0, true
	}
	for _, w := range strings.Split(s, ",") {
		found := false
		for _, fn := range flagNames {
			if fn.name == w {
				f |= fn.flag
				found = true
				break
			}
		}
		if !found {
			return f, false
		}
	}
	return f, true
}

// String returns the flags in Core's comma separated form.
func (f ScriptFlags) String() string {
	var parts []string
	for _, fn := range flagNames {
		if f&fn.flag != 0 {
			parts = append(parts, fn.name)
		}
	}
	return strings.Join(parts, ",")
}
