package txscript

// ErrorKind identifies why a script failed. Each kind corresponds to one of
// Bitcoin Core's ScriptError values; Name returns the spelling used by Core's
// test vectors and Message the text Core puts in reject reasons. ErrorKind
// implements error itself, so failures are plain comparable values that
// errors.Is matches and that cost no allocation to return.
type ErrorKind uint8

// Script error kinds, one per Core ScriptError.
const (
	ErrOK ErrorKind = iota
	ErrUnknown
	ErrEvalFalse
	ErrOpReturn
	ErrScriptSize
	ErrPushSize
	ErrOpCount
	ErrStackSize
	ErrSigCount
	ErrPubKeyCount
	ErrVerify
	ErrEqualVerify
	ErrCheckMultiSigVerify
	ErrCheckSigVerify
	ErrNumEqualVerify
	ErrBadOpcode
	ErrDisabledOpcode
	ErrInvalidStackOperation
	ErrInvalidAltStackOperation
	ErrUnbalancedConditional
	ErrNegativeLockTime
	ErrUnsatisfiedLockTime
	ErrSigHashType
	ErrSigDER
	ErrMinimalData
	ErrSigPushOnly
	ErrSigHighS
	ErrSigNullDummy
	ErrPubKeyType
	ErrCleanStack
	ErrMinimalIf
	ErrSigNullFail
	ErrDiscourageUpgradableNops
	ErrDiscourageUpgradableWitnessProgram
	ErrDiscourageUpgradableTaprootVersion
	ErrDiscourageOpSuccess
	ErrDiscourageUpgradablePubKeyType
	ErrWitnessProgramWrongLength
	ErrWitnessProgramWitnessEmpty
	ErrWitnessProgramMismatch
	ErrWitnessMalleated
	ErrWitnessMalleatedP2SH
	ErrWitnessUnexpected
	ErrWitnessPubKeyType
	ErrSchnorrSigSize
	ErrSchnorrSigHashType
	ErrSchnorrSig
	ErrTaprootWrongControlSize
	ErrTapscriptValidationWeight
	ErrTapscriptCheckMultiSig
	ErrTapscriptMinimalIf
	ErrTapscriptEmptyPubKey
	ErrOpCodeSeparator
	ErrSigFindAndDelete
	ErrScriptNum
	// ErrMissingPrevOuts is not a Core script error: it reports that a
	// taproot signature hash was needed but the spent outputs of every
	// input were not supplied (Core fails the check the same way).
	ErrMissingPrevOuts
	numErrorKinds
)

var errorNames = [numErrorKinds]string{
	ErrOK:                                 "OK",
	ErrUnknown:                            "UNKNOWN_ERROR",
	ErrEvalFalse:                          "EVAL_FALSE",
	ErrOpReturn:                           "OP_RETURN",
	ErrScriptSize:                         "SCRIPT_SIZE",
	ErrPushSize:                           "PUSH_SIZE",
	ErrOpCount:                            "OP_COUNT",
	ErrStackSize:                          "STACK_SIZE",
	ErrSigCount:                           "SIG_COUNT",
	ErrPubKeyCount:                        "PUBKEY_COUNT",
	ErrVerify:                             "VERIFY",
	ErrEqualVerify:                        "EQUALVERIFY",
	ErrCheckMultiSigVerify:                "CHECKMULTISIGVERIFY",
	ErrCheckSigVerify:                     "CHECKSIGVERIFY",
	ErrNumEqualVerify:                     "NUMEQUALVERIFY",
	ErrBadOpcode:                          "BAD_OPCODE",
	ErrDisabledOpcode:                     "DISABLED_OPCODE",
	ErrInvalidStackOperation:              "INVALID_STACK_OPERATION",
	ErrInvalidAltStackOperation:           "INVALID_ALTSTACK_OPERATION",
	ErrUnbalancedConditional:              "UNBALANCED_CONDITIONAL",
	ErrNegativeLockTime:                   "NEGATIVE_LOCKTIME",
	ErrUnsatisfiedLockTime:                "UNSATISFIED_LOCKTIME",
	ErrSigHashType:                        "SIG_HASHTYPE",
	ErrSigDER:                             "SIG_DER",
	ErrMinimalData:                        "MINIMALDATA",
	ErrSigPushOnly:                        "SIG_PUSHONLY",
	ErrSigHighS:                           "SIG_HIGH_S",
	ErrSigNullDummy:                       "SIG_NULLDUMMY",
	ErrPubKeyType:                         "PUBKEYTYPE",
	ErrCleanStack:                         "CLEANSTACK",
	ErrMinimalIf:                          "MINIMALIF",
	ErrSigNullFail:                        "NULLFAIL",
	ErrDiscourageUpgradableNops:           "DISCOURAGE_UPGRADABLE_NOPS",
	ErrDiscourageUpgradableWitnessProgram: "DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM",
	ErrDiscourageUpgradableTaprootVersion: "DISCOURAGE_UPGRADABLE_TAPROOT_VERSION",
	ErrDiscourageOpSuccess:                "DISCOURAGE_OP_SUCCESS",
	ErrDiscourageUpgradablePubKeyType:     "DISCOURAGE_UPGRADABLE_PUBKEYTYPE",
	ErrWitnessProgramWrongLength:          "WITNESS_PROGRAM_WRONG_LENGTH",
	ErrWitnessProgramWitnessEmpty:         "WITNESS_PROGRAM_WITNESS_EMPTY",
	ErrWitnessProgramMismatch:             "WITNESS_PROGRAM_MISMATCH",
	ErrWitnessMalleated:                   "WITNESS_MALLEATED",
	ErrWitnessMalleatedP2SH:               "WITNESS_MALLEATED_P2SH",
	ErrWitnessUnexpected:                  "WITNESS_UNEXPECTED",
	ErrWitnessPubKeyType:                  "WITNESS_PUBKEYTYPE",
	ErrSchnorrSigSize:                     "SCHNORR_SIG_SIZE",
	ErrSchnorrSigHashType:                 "SCHNORR_SIG_HASHTYPE",
	ErrSchnorrSig:                         "SCHNORR_SIG",
	ErrTaprootWrongControlSize:            "TAPROOT_WRONG_CONTROL_SIZE",
	ErrTapscriptValidationWeight:          "TAPSCRIPT_VALIDATION_WEIGHT",
	ErrTapscriptCheckMultiSig:             "TAPSCRIPT_CHECKMULTISIG",
	ErrTapscriptMinimalIf:                 "TAPSCRIPT_MINIMALIF",
	ErrTapscriptEmptyPubKey:               "TAPSCRIPT_EMPTY_PUBKEY",
	ErrOpCodeSeparator:                    "OP_CODESEPARATOR",
	ErrSigFindAndDelete:                   "SIG_FINDANDDELETE",
	ErrScriptNum:                          "SCRIPTNUM",
	ErrMissingPrevOuts:                    "MISSING_PREVOUTS",
}

var errorMessages = [numErrorKinds]string{
	ErrOK:                                 "No error",
	ErrUnknown:                            "unknown error",
	ErrEvalFalse:                          "Script evaluated without error but finished with a false/empty top stack element",
	ErrOpReturn:                           "OP_RETURN was encountered",
	ErrScriptSize:                         "Script is too big",
	ErrPushSize:                           "Push value size limit exceeded",
	ErrOpCount:                            "Operation limit exceeded",
	ErrStackSize:                          "Stack size limit exceeded",
	ErrSigCount:                           "Signature count negative or greater than pubkey count",
	ErrPubKeyCount:                        "Pubkey count negative or limit exceeded",
	ErrVerify:                             "Script failed an OP_VERIFY operation",
	ErrEqualVerify:                        "Script failed an OP_EQUALVERIFY operation",
	ErrCheckMultiSigVerify:                "Script failed an OP_CHECKMULTISIGVERIFY operation",
	ErrCheckSigVerify:                     "Script failed an OP_CHECKSIGVERIFY operation",
	ErrNumEqualVerify:                     "Script failed an OP_NUMEQUALVERIFY operation",
	ErrBadOpcode:                          "Opcode missing or not understood",
	ErrDisabledOpcode:                     "Attempted to use a disabled opcode",
	ErrInvalidStackOperation:              "Operation not valid with the current stack size",
	ErrInvalidAltStackOperation:           "Operation not valid with the current altstack size",
	ErrUnbalancedConditional:              "Invalid OP_IF construction",
	ErrNegativeLockTime:                   "Negative locktime",
	ErrUnsatisfiedLockTime:                "Locktime requirement not satisfied",
	ErrSigHashType:                        "Signature hash type missing or not understood",
	ErrSigDER:                             "Non-canonical DER signature",
	ErrMinimalData:                        "Data push larger than necessary",
	ErrSigPushOnly:                        "Only push operators allowed in signatures",
	ErrSigHighS:                           "Non-canonical signature: S value is unnecessarily high",
	ErrSigNullDummy:                       "Dummy CHECKMULTISIG argument must be zero",
	ErrPubKeyType:                         "Public key is neither compressed or uncompressed",
	ErrCleanStack:                         "Stack size must be exactly one after execution",
	ErrMinimalIf:                          "OP_IF/NOTIF argument must be minimal",
	ErrSigNullFail:                        "Signature must be zero for failed CHECK(MULTI)SIG operation",
	ErrDiscourageUpgradableNops:           "NOPx reserved for soft-fork upgrades",
	ErrDiscourageUpgradableWitnessProgram: "Witness version reserved for soft-fork upgrades",
	ErrDiscourageUpgradableTaprootVersion: "Taproot version reserved for soft-fork upgrades",
	ErrDiscourageOpSuccess:                "OP_SUCCESSx reserved for soft-fork upgrades",
	ErrDiscourageUpgradablePubKeyType:     "Public key version reserved for soft-fork upgrades",
	ErrWitnessProgramWrongLength:          "Witness program has incorrect length",
	ErrWitnessProgramWitnessEmpty:         "Witness program was passed an empty witness",
	ErrWitnessProgramMismatch:             "Witness program hash mismatch",
	ErrWitnessMalleated:                   "Witness requires empty scriptSig",
	ErrWitnessMalleatedP2SH:               "Witness requires only-redeemscript scriptSig",
	ErrWitnessUnexpected:                  "Witness provided for non-witness script",
	ErrWitnessPubKeyType:                  "Using non-compressed keys in segwit",
	ErrSchnorrSigSize:                     "Invalid Schnorr signature size",
	ErrSchnorrSigHashType:                 "Invalid Schnorr signature hash type",
	ErrSchnorrSig:                         "Invalid Schnorr signature",
	ErrTaprootWrongControlSize:            "Invalid Taproot control block size",
	ErrTapscriptValidationWeight:          "Too much signature validation relative to witness weight",
	ErrTapscriptCheckMultiSig:             "OP_CHECKMULTISIG(VERIFY) is not available in tapscript",
	ErrTapscriptMinimalIf:                 "OP_IF/NOTIF argument must be minimal in tapscript",
	ErrTapscriptEmptyPubKey:               "Empty public key in tapscript",
	ErrOpCodeSeparator:                    "Using OP_CODESEPARATOR in non-witness script",
	ErrSigFindAndDelete:                   "Signature is found in scriptCode",
	ErrScriptNum:                          "Script number overflow or non-minimal encoding",
	ErrMissingPrevOuts:                    "Spent outputs of all inputs are required for taproot signature hashes",
}

// Name returns Core's identifier for the error as spelled in
// script_tests.json (e.g. "EVAL_FALSE").
func (k ErrorKind) Name() string {
	if k < numErrorKinds {
		return errorNames[k]
	}
	return "UNKNOWN_ERROR"
}

// Message returns Core's human readable text for the error, the text that
// appears inside "mandatory-script-verify-flag-failed (...)" reject reasons.
func (k ErrorKind) Message() string {
	if k < numErrorKinds {
		return errorMessages[k]
	}
	return "unknown error"
}

// Error implements error with Core's message text.
func (k ErrorKind) Error() string { return k.Message() }

// String returns the Core name.
func (k ErrorKind) String() string { return k.Name() }

// ErrorKindFromName maps a Core error name back to its kind; ok is false for
// names this package does not know.
func ErrorKindFromName(name string) (ErrorKind, bool) {
	for i, n := range errorNames {
		if n == name {
			return ErrorKind(i), true
		}
	}
	return ErrUnknown, false
}
