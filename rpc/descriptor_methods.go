package rpc

import (
	"encoding/hex"
	"encoding/json"

	"github.com/btcsuite/btcd/btcec/v2"

	"github.com/btcnode/btcd/internal/descriptor"
	"github.com/btcnode/btcd/txscript"
)

// descriptorMethods are the methods built on output descriptors: the util
// ones here and scantxoutset (blockchain).
func descriptorMethods() []*Method {
	return append([]*Method{
		{
			Name: "getdescriptorinfo", Category: "util",
			Description: "Analyses a descriptor.",
			Args:        []Arg{{Name: "descriptor", Type: ArgStr, Description: "The descriptor."}},
			Result: `{                                   (json object)
  "descriptor" : "str",             (string) The descriptor in canonical form, without private keys. For a multipath descriptor, only the first will be returned.
  "multipath_expansion" : [         (json array, optional) All descriptors produced by expanding multipath derivation elements. Only if the provided descriptor specifies multipath derivation elements.
    "str",                          (string)
    ...
  ],
  "checksum" : "str",               (string) The checksum for the input descriptor
  "isrange" : true|false,           (boolean) Whether the descriptor is ranged
  "issolvable" : true|false,        (boolean) Whether the descriptor is solvable
  "hasprivatekeys" : true|false     (boolean) Whether the input descriptor contained at least one private key
}`,
			Handler: handleGetDescriptorInfo,
		},
		{
			Name: "deriveaddresses", Category: "util",
			Description: `Derives one or more addresses corresponding to an output descriptor.
Examples of output descriptors are:
    pkh(<pubkey>)                                     P2PKH outputs for the given pubkey
    wpkh(<pubkey>)                                    Native segwit P2PKH outputs for the given pubkey
    sh(multi(<n>,<pubkey>,<pubkey>,...))              P2SH-multisig outputs for the given threshold and pubkeys
    raw(<hex script>)                                 Outputs whose output script equals the specified hex-encoded bytes
    tr(<pubkey>,multi_a(<n>,<pubkey>,<pubkey>,...))   P2TR-multisig outputs for the given threshold and pubkeys

In the above, <pubkey> either refers to a fixed public key in hexadecimal notation, or to an xpub/xprv optionally followed by one
or more path elements separated by "/", where "h" represents a hardened child key.
For more information on output descriptors, see the documentation in the doc/descriptors.md file.`,
			Args: []Arg{
				{Name: "descriptor", Type: ArgStr, Description: "The descriptor."},
				{Name: "range", Type: ArgAny, Optional: true, Description: "If a ranged descriptor is used, this specifies the end or the range (in [begin,end] notation) to derive."},
			},
			Result: `Result (for single derivation descriptors):
[           (json array)
  "str",    (string) the derived addresses
  ...
]

Result (for multipath descriptors):
[           (json array) The derived addresses for each of the multipath expansions of the descriptor, in multipath specifier order
  [         (json array) The derived addresses for a multipath descriptor expansion
    "str",  (string) the derived address
    ...
  ],
  ...
]`,
			Handler: handleDeriveAddresses,
		},
		{
			Name: "createmultisig", Category: "util",
			Description: `Creates a multi-signature address with n signatures of m keys required.
It returns a json object with the address and redeemScript.`,
			Args: []Arg{
				{Name: "nrequired", Type: ArgNum, Description: "The number of required signatures out of the m keys."},
				{Name: "keys", Type: ArgArr, Description: "The hex-encoded public keys."},
				{Name: "address_type", Type: ArgStr, Optional: true, Default: "legacy", Description: `The address type to use. Options are "legacy", "p2sh-segwit", and "bech32".`},
			},
			Result: `{                            (json object)
  "address" : "str",         (string) The value of the new multisig address.
  "redeemScript" : "hex",    (string) The string value of the hex-encoded redemption script.
  "descriptor" : "str",      (string) The descriptor for this multisig
  "warnings" : [             (json array, optional) Any warnings resulting from the creation of this multisig
    "str",                   (string)
    ...
  ]
}`,
			Handler: handleCreateMultisig,
		},
	}, scanMethods()...) // scantxoutset.go
}

// DescriptorInfo is the getdescriptorinfo result.
type DescriptorInfo struct {
	Descriptor         string   `json:"descriptor"`
	MultipathExpansion []string `json:"multipath_expansion,omitempty"`
	Checksum           string   `json:"checksum"`
	IsRange            bool     `json:"isrange"`
	IsSolvable         bool     `json:"issolvable"`
	HasPrivateKeys     bool     `json:"hasprivatekeys"`
}

func handleGetDescriptorInfo(s *Server, p *Params) (any, error) {
	str, err := p.Str(0, "")
	if err != nil {
		return nil, err
	}
	ds, err := parseDescriptors(str, &s.cfg.Net, false)
	if err != nil {
		return nil, err
	}
	_, sum, _ := descriptor.SplitChecksum(str, false)
	r := &DescriptorInfo{
		Descriptor:     ds[0].String(),
		Checksum:       sum,
		IsRange:        ds[0].IsRange(),
		IsSolvable:     ds[0].IsSolvable(),
		HasPrivateKeys: ds[0].HasPrivateKeys(),
	}
	if len(ds) > 1 {
		for _, d := range ds {
			r.MultipathExpansion = append(r.MultipathExpansion, d.String())
		}
	}
	return r, nil
}

// maxDescriptorRange is how many indexes one range may span (Core's
// ParseDescriptorRange limit).
const maxDescriptorRange = 1_000_000

// maxKeyDerivations bounds the key expressions one call evaluates over all
// its indexes (a minute or so of derivation). Core has no such bound, so a
// million indexes of a 999-key multi_a would keep it busy for hours; here
// the product of range and keys is what is limited.
const maxKeyDerivations = 4_000_000

// checkDeriveWork refuses ranges whose expansion would exceed
// maxKeyDerivations, with the start of Core's message for too large
// ranges.
func checkDeriveWork(ds []*descriptor.Descriptor, lo, hi int64, done *int64) error {
	keys := int64(0)
	for _, d := range ds {
		keys += int64(max(1, d.KeyCount()))
	}
	*done += (hi - lo + 1) * keys
	if *done > maxKeyDerivations {
		return Errorf(ErrInvalidParam, "Range is too large: the descriptors need %d key derivations, at most %d are allowed", *done, maxKeyDerivations)
	}
	return nil
}

// parseDescriptorRange is bitcoind's ParseDescriptorRange: a number n means
// [0,n]; an array [begin,end] is taken as given. Both ends are inclusive.
func parseDescriptorRange(raw json.RawMessage) (int64, int64, error) {
	var lo, hi int64
	switch jsonKind(raw) {
	case "number":
		n, err := parseJSONInt(raw)
		if err != nil {
			return 0, 0, err
		}
		hi = n
	case "array":
		var pair []json.RawMessage
		if json.Unmarshal(raw, &pair) != nil || len(pair) != 2 || jsonKind(pair[0]) != "number" || jsonKind(pair[1]) != "number" {
			return 0, 0, NewError(ErrInvalidParam, "Range must be specified as end or as [begin,end]")
		}
		var err error
		if lo, err = parseJSONInt(pair[0]); err != nil {
			return 0, 0, err
		}
		if hi, err = parseJSONInt(pair[1]); err != nil {
			return 0, 0, err
		}
		if lo > hi {
			return 0, 0, NewError(ErrInvalidParam, "Range specified as [begin,end] must not have begin after end")
		}
	default:
		return 0, 0, NewError(ErrInvalidParam, "Range must be specified as end or as [begin,end]")
	}
	if lo < 0 {
		return 0, 0, NewError(ErrInvalidParam, "Range should be greater or equal than 0")
	}
	if hi>>31 != 0 {
		return 0, 0, NewError(ErrInvalidParam, "End of range is too high")
	}
	if hi >= lo+maxDescriptorRange {
		return 0, 0, NewError(ErrInvalidParam, "Range is too large")
	}
	return lo, hi, nil
}

func handleDeriveAddresses(s *Server, p *Params) (any, error) {
	str, err := p.Str(0, "")
	if err != nil {
		return nil, err
	}
	var lo, hi int64
	if p.Has(1) {
		if lo, hi, err = parseDescriptorRange(p.Raw(1)); err != nil {
			return nil, err
		}
	}
	ds, err := parseDescriptors(str, &s.cfg.Net, true)
	if err != nil {
		return nil, err
	}
	if !ds[0].IsRange() && p.Len() > 1 {
		return nil, NewError(ErrInvalidParam, "Range should not be specified for an un-ranged descriptor")
	}
	if ds[0].IsRange() && p.Len() == 1 {
		return nil, NewError(ErrInvalidParam, "Range must be specified for a ranged descriptor")
	}
	var work int64
	if err := checkDeriveWork(ds, lo, hi, &work); err != nil {
		return nil, err
	}
	net := descNetwork(&s.cfg.Net)
	all := make([][]string, len(ds))
	for i, d := range ds {
		if all[i], err = deriveAddresses(d, lo, hi, net); err != nil {
			return nil, err
		}
	}
	if len(all) == 1 {
		return all[0], nil
	}
	return all, nil
}

// deriveAddresses lists the addresses of d's outputs over [lo,hi]; combo()'s
// P2PK output, which has no address, is left out.
func deriveAddresses(d *descriptor.Descriptor, lo, hi int64, net *descriptor.Network) ([]string, error) {
	var out []string
	for i := lo; i <= hi; i++ {
		outs, err := d.Expand(uint32(i))
		if err != nil {
			return nil, NewError(ErrInvalidAddress, "Cannot derive script without private keys")
		}
		for _, o := range outs {
			a, ok := descriptor.ScriptAddress(o.Script, net)
			if !ok {
				if len(outs) > 1 && isP2PKScript(o.Script) {
					continue
				}
				return nil, NewError(ErrInvalidAddress, "Descriptor does not have a corresponding address")
			}
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, NewError(ErrMisc, "Unexpected empty result")
	}
	return out, nil
}

// isP2PKScript reports <pubkey> OP_CHECKSIG.
func isP2PKScript(s []byte) bool {
	return (len(s) == 35 || len(s) == 67) && int(s[0]) == len(s)-2 && s[len(s)-1] == txscript.OP_CHECKSIG
}

// MultisigResult is the createmultisig result.
type MultisigResult struct {
	Address      string   `json:"address"`
	RedeemScript string   `json:"redeemScript"`
	Descriptor   string   `json:"descriptor"`
	Warnings     []string `json:"warnings,omitempty"`
}

func handleCreateMultisig(s *Server, p *Params) (any, error) {
	required, err := p.Int(0, 0)
	if err != nil {
		return nil, err
	}
	if required < -1<<31 || required > 1<<31-1 {
		return nil, NewError(ErrMisc, "JSON integer out of range")
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(p.Raw(1), &raws); err != nil {
		return nil, typeError(p.Raw(1), "array")
	}
	keys := make([][]byte, 0, min(len(raws), maxMultisigKeys+1))
	for _, r := range raws {
		var h string
		if jsonKind(r) != "string" || json.Unmarshal(r, &h) != nil {
			return nil, NewError(ErrMisc, "JSON value of type "+jsonKind(r)+" is not of expected type string")
		}
		k, err := hexToPubKey(h)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	addrType, err := p.Str(2, "legacy")
	if err != nil {
		return nil, err
	}
	switch addrType {
	case "legacy", "p2sh-segwit", "bech32":
	case "bech32m":
		return nil, NewError(ErrInvalidAddress, "createmultisig cannot create bech32m multisig addresses")
	default:
		return nil, Errorf(ErrInvalidAddress, "Unknown address type '%s'", addrType)
	}
	if required < 1 {
		return nil, NewError(ErrInvalidParam, "a multisignature address must require at least one key to redeem")
	}
	if int64(len(keys)) < required {
		return nil, Errorf(ErrInvalidParam, "not enough keys supplied (got %d keys, but need at least %d to redeem)", len(keys), required)
	}
	if len(keys) > maxMultisigKeys {
		return nil, Errorf(ErrInvalidParam, "Number of keys involved in the multisignature address creation > %d\nReduce the number", maxMultisigKeys)
	}
	redeem := multisigRedeemScript(int(required), keys)
	outType := addrType
	for _, k := range keys {
		if len(k) != 33 {
			outType = "legacy"
			break
		}
	}
	if outType == "legacy" && len(redeem) > maxScriptElementSize {
		return nil, Errorf(ErrInvalidParam, "redeemScript exceeds size limit: %d > %d", len(redeem), maxScriptElementSize)
	}
	prov := descriptor.NewProvider()
	prov.AddScript(redeem)
	var spk []byte
	switch outType {
	case "legacy":
		h := hash160(redeem)
		spk = txscript.PayToScriptHashScript(h[:])
	default:
		w := wshHash(redeem)
		spk = txscript.PayToWitnessScript(0, w[:])
		prov.AddScript(spk)
		if outType == "p2sh-segwit" {
			h := hash160(spk)
			spk = txscript.PayToScriptHashScript(h[:])
		}
	}
	net := descNetwork(&s.cfg.Net)
	addr, _ := descriptor.ScriptAddress(spk, net)
	r := &MultisigResult{
		Address:      addr,
		RedeemScript: hex.EncodeToString(redeem),
		Descriptor:   descriptor.Infer(spk, net, prov),
	}
	if outType != addrType {
		r.Warnings = []string{"Unable to make chosen address type, please ensure no uncompressed public keys are present."}
	}
	return r, nil
}

// Multisig limits: Core's MAX_PUBKEYS_PER_MULTISIG and
// MAX_SCRIPT_ELEMENT_SIZE.
const (
	maxMultisigKeys      = 20
	maxScriptElementSize = 520
)

// multisigRedeemScript is Core's GetScriptForMultisig.
func multisigRedeemScript(required int, keys [][]byte) []byte {
	b := txscript.NewScriptBuilder(3 + 66*len(keys)).AddInt64(int64(required))
	for _, k := range keys {
		b.AddFullData(k)
	}
	s, _ := b.AddInt64(int64(len(keys))).AddOp(txscript.OP_CHECKMULTISIG).Script()
	return s
}

// hexToPubKey is bitcoind's HexToPubKey with its messages.
func hexToPubKey(h string) ([]byte, error) {
	if !isHex(h) {
		return nil, NewError(ErrInvalidAddress, "Invalid public key: "+h)
	}
	if len(h) != 66 && len(h) != 130 {
		return nil, Errorf(ErrInvalidAddress, "Pubkey \"%s\" must have a length of either 33 or 65 bytes", h)
	}
	b := decodeHex(h)
	if !validPubKey(b) {
		return nil, Errorf(ErrInvalidAddress, "Pubkey \"%s\" must be cryptographically valid.", h)
	}
	return b, nil
}

// validPubKey is Core's CPubKey::IsFullyValid: a point on the curve in
// compressed, uncompressed or hybrid form.
func validPubKey(b []byte) bool {
	_, err := btcec.ParsePubKey(b)
	return err == nil
}
