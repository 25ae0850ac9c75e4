package chaingen

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
)

// Kind is the script type of an output the generator creates (and so of
// the input that later spends it).
type Kind uint8

// Script kinds, in the order their counts are reported.
const (
	P2WPKH        Kind = iota // BIP141 pay-to-witness-pubkey-hash
	P2PKH                     // legacy pay-to-pubkey-hash
	P2SHP2WPKH                // P2WPKH nested in BIP16 P2SH
	P2WSHMultisig             // 2-of-3 CHECKMULTISIG in a P2WSH
	P2TRKey                   // BIP86 taproot output, spent by key path
	P2TRScript                // taproot output with one `<xonly> OP_CHECKSIG` leaf, spent by script path
	// The anyone-can-spend kinds of ProfileMainnetScale: valid spends
	// without any signature, so a chain of millions of transactions is
	// generated in minutes.
	P2WSHTrue // P2WSH of the witness script OP_TRUE
	P2TRTrue  // taproot output whose one leaf is OP_TRUE, spent by script path
	P2SHTrue  // BIP16 P2SH of the redeem script OP_TRUE
	numKinds
	// numSignedKinds counts the kinds of ProfileSigned (those above
	// P2WSHTrue), which every signed chain uses.
	numSignedKinds = P2WSHTrue
)

var kindNames = [numKinds]string{"p2wpkh", "p2pkh", "p2sh-p2wpkh", "p2wsh-multisig", "p2tr-key", "p2tr-script",
	"p2wsh-true", "p2tr-true", "p2sh-true"}

// String returns the name used in the JSON summary.
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "unknown"
}

// kindWeights is the output mix (per mille): mostly P2WPKH, as on mainnet
// today, with every other type present often enough to matter for
// verification cost.
var kindWeights = [numKinds]int{P2WPKH: 600, P2PKH: 100, P2SHP2WPKH: 80, P2WSHMultisig: 60, P2TRKey: 120, P2TRScript: 40}

// trueWeights is ProfileMainnetScale's output mix (per mille): segwit v0
// and taproot outputs with 32-byte programs, as most of mainnet's recent
// coins, and some shorter P2SH ones.
var trueWeights = [numKinds]int{P2WSHTrue: 550, P2TRTrue: 300, P2SHTrue: 150}

// keyInfo is one deterministic key and every script the generator builds
// from it. Keys are reused across many outputs so that the cost of
// deriving public keys and taproot tweaks is paid once, not per output.
type keyInfo struct {
	priv  *btcec.PrivateKey
	pub   []byte // compressed SEC1
	xonly []byte // BIP340 x-only

	pkScripts [numKinds][]byte

	// P2SH-P2WPKH: the scriptSig pushing the P2WPKH redeem script.
	p2shSigScript []byte
	// P2WPKH scriptCode for BIP143: the P2PKH script of the key hash.
	scriptCode []byte
	// 2-of-3 multisig over this key and the next two; signed by the first two.
	msScript []byte
	msSigner [2]int // key indices of the two signers, in script order
	// BIP86 key-path spending key (tweaked, not yet parity-adjusted:
	// schnorr.Sign negates it when the output key's Y is odd).
	trPriv *btcec.PrivateKey
	// Script-path output: internal key is this key, the single leaf is
	// `<leafKey> OP_CHECKSIG`.
	leafScript []byte
	leafHash   [32]byte
	control    []byte
	leafSigner int // key index whose private key signs the leaf
}

// deriveScalar turns (seed, index) into a valid private key. Rejection
// sampling keeps it uniform; the loop ends with overwhelming probability
// on the first pass.
func deriveScalar(seed uint64, idx uint32) *btcec.PrivateKey {
	var msg [32]byte
	copy(msg[:], "chaingen/key")
	binary.LittleEndian.PutUint64(msg[16:], seed)
	binary.LittleEndian.PutUint32(msg[24:], idx)
	for ctr := uint32(0); ; ctr++ {
		binary.LittleEndian.PutUint32(msg[28:], ctr)
		h := sha256.Sum256(msg[:])
		var s btcec.ModNScalar
		if overflow := s.SetBytes(&h); overflow == 0 && !s.IsZero() {
			return btcec.PrivKeyFromScalar(&s)
		}
	}
}

// newKeyPool derives n keys from seed and precomputes their scripts.
func newKeyPool(seed uint64, n int) ([]keyInfo, error) {
	keys := make([]keyInfo, n)
	for i := range keys {
		k := &keys[i]
		k.priv = deriveScalar(seed, uint32(i))
		pub := k.priv.PubKey()
		k.pub = pub.SerializeCompressed()
		k.xonly = schnorr.SerializePubKey(pub)
		h := txscript.Hash160(k.pub)
		k.scriptCode = txscript.PayToPubKeyHashScript(h[:])
		k.pkScripts[P2WPKH] = txscript.PayToWitnessScript(0, h[:])
		k.pkScripts[P2PKH] = k.scriptCode
		redeem := k.pkScripts[P2WPKH]
		rh := txscript.Hash160(redeem)
		k.pkScripts[P2SHP2WPKH] = txscript.PayToScriptHashScript(rh[:])
		k.p2shSigScript = append([]byte{byte(len(redeem))}, redeem...)

		// BIP86: tweak with an empty script tree.
		t := txscript.TapTweakHash(k.xonly, nil)
		var tweak, d btcec.ModNScalar
		tweak.SetBytes(&t)
		d.Set(&k.priv.Key)
		if k.pub[0] == 0x03 {
			d.Negate()
		}
		d.Add(&tweak)
		k.trPriv = btcec.PrivKeyFromScalar(&d)
		outKey, _, ok := txscript.ComputeTaprootOutputKey(k.xonly, nil)
		if !ok {
			return nil, errorf(ErrInternal, "taproot tweak of key %d", i)
		}
		k.pkScripts[P2TRKey] = txscript.PayToWitnessScript(1, outKey[:])
	}
	// Scripts that combine several keys need all keys derived first.
	for i := range keys {
		k := &keys[i]
		a, b, c := i, (i+1)%n, (i+2)%n
		ms, err := txscript.MultiSigScript(2, [][]byte{keys[a].pub, keys[b].pub, keys[c].pub})
		if err != nil {
			return nil, wrapErr(ErrInternal, err, "multisig script")
		}
		k.msScript = ms
		k.msSigner = [2]int{a, b}
		wsh := sha256.Sum256(ms)
		k.pkScripts[P2WSHMultisig] = txscript.PayToWitnessScript(0, wsh[:])

		k.leafSigner = (i + n/2) % n
		leaf := keys[k.leafSigner].xonly
		k.leafScript = append(append([]byte{32}, leaf...), 0xac) // <xonly> OP_CHECKSIG
		k.leafHash = txscript.TapLeafHash(0xc0, k.leafScript)
		outKey, odd, ok := txscript.ComputeTaprootOutputKey(k.xonly, k.leafHash[:])
		if !ok {
			return nil, errorf(ErrInternal, "taproot script tweak of key %d", i)
		}
		ctl := byte(0xc0)
		if odd {
			ctl |= 1
		}
		k.control = append([]byte{ctl}, k.xonly...)
		k.pkScripts[P2TRScript] = txscript.PayToWitnessScript(1, outKey[:])
	}
	return keys, nil
}
