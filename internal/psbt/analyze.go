package psbt

import (
	"fmt"

	"github.com/btcnode/btcd/txscript"
)

// Role is a BIP174 role, in the order a PSBT passes through them.
type Role int

// Roles.
const (
	RoleCreator Role = iota
	RoleUpdater
	RoleSigner
	RoleFinalizer
	RoleExtractor
)

// String returns Core's lower-case role name.
func (r Role) String() string {
	return [...]string{"creator", "updater", "signer", "finalizer", "extractor"}[r]
}

// InputAnalysis is what one input has and lacks.
type InputAnalysis struct {
	HasUTXO bool
	IsFinal bool
	// MissingPubKeys and MissingSigs are HASH160s of public keys. A
	// P2WSH miniscript input lists every key its satisfaction asked a
	// signature of and lacks, once per time asked. Taproot inputs list
	// none, as in Core, whose taproot signing records no missing
	// signature: such an input has the updater next until it can be
	// finalized.
	MissingPubKeys [][20]byte
	MissingSigs    [][20]byte
	// MissingRedeemScript is the HASH160 and MissingWitnessScript the
	// SHA256 of a script the input needs but does not carry.
	MissingRedeemScript  []byte
	MissingWitnessScript []byte
	Next                 Role
}

// Analysis is Core's analyzepsbt result: per input, and for the PSBT the
// next role, the fee when every input's UTXO is known and the size and
// fee rate once every input can be finalized. Error is set (and the rest
// empty) for an invalid PSBT.
type Analysis struct {
	Inputs []InputAnalysis
	// VSize is the estimated virtual size, 0 when unknown.
	VSize int64
	// Fee is in satoshis; HasFee says whether it is known.
	Fee    int64
	HasFee bool
	Next   Role
	Error  string
}

// maxMoney is 21 million BTC in satoshis (Core's MAX_MONEY).
const maxMoney = 21_000_000 * 100_000_000

func moneyRange(v int64) bool { return v >= 0 && v <= maxMoney }

func invalid(msg string) *Analysis { return &Analysis{Next: RoleCreator, Error: msg} }

// Analyze reports what each input lacks and which role comes next (Core's
// AnalyzePSBT).
func (p *Packet) Analyze() *Analysis {
	a := &Analysis{Next: RoleExtractor}
	var inAmt int64
	calcFee := true
	v := p.newVerifier()
	for i := range p.Inputs {
		in := &p.Inputs[i]
		ia := InputAnalysis{}
		utxo, ok := p.UTXO(i)
		if ok {
			if !moneyRange(utxo.Value) || !moneyRange(inAmt+utxo.Value) {
				return invalid(fmt.Sprintf("PSBT is not valid. Input %d has invalid value", i))
			}
			ia.HasUTXO = true
			inAmt += utxo.Value
			if txscript.IsUnspendable(utxo.PkScript) {
				return invalid(fmt.Sprintf("PSBT is not valid. Input %d spends unspendable output", i))
			}
		} else {
			if in.NonWitnessUTXO != nil {
				return invalid(fmt.Sprintf("PSBT is not valid. Input %d specifies invalid prevout", i))
			}
			ia.Next = RoleUpdater
			calcFee = false
		}
		switch {
		case ok && in.IsFinal() && v.verify(i, in.FinalScriptSig, in.FinalScriptWitness):
			ia.IsFinal = true
			ia.Next = RoleExtractor
		case !ok:
			// Without the UTXO nothing else can be known.
		default:
			sol := in.solve(utxo.PkScript, spendContext{p.Tx, i})
			// A final input whose scripts fail still only needs the
			// finalizer, as in Core.
			if in.IsFinal() || (sol.complete && v.verify(i, sol.scriptSig, sol.witness)) {
				ia.Next = RoleFinalizer
				break
			}
			ia.MissingPubKeys, ia.MissingSigs = sol.missingPubKeys, sol.missingSigs
			ia.MissingRedeemScript, ia.MissingWitnessScript = sol.missingRedeem, sol.missingWitness
			if len(ia.MissingPubKeys) == 0 && ia.MissingRedeemScript == nil && ia.MissingWitnessScript == nil && len(ia.MissingSigs) > 0 {
				ia.Next = RoleSigner
			} else {
				ia.Next = RoleUpdater
			}
		}
		a.Inputs = append(a.Inputs, ia)
	}
	for _, ia := range a.Inputs {
		a.Next = min(a.Next, ia.Next)
	}
	if !calcFee {
		return a
	}
	var outAmt int64
	for _, o := range p.Tx.TxOut {
		if !moneyRange(o.Value) || !moneyRange(outAmt+o.Value) {
			return invalid("PSBT is not valid. Output amount invalid")
		}
		outAmt += o.Value
	}
	a.Fee, a.HasFee = inAmt-outAmt, true
	// The size is only known once every input can be finalized.
	c := p.Copy()
	if c.Finalize() {
		if tx, ok := c.Extract(); ok {
			a.VSize = tx.VirtualSize()
		}
	}
	return a
}

// Copy returns a deep enough copy for the roles to modify: the maps are
// copied, the byte slices they hold are shared (no role writes into one).
func (p *Packet) Copy() *Packet {
	c := *p
	c.Tx = p.Tx.Copy()
	c.Inputs = append([]Input(nil), p.Inputs...)
	c.Outputs = append([]Output(nil), p.Outputs...)
	return &c
}
