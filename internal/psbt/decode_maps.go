package psbt

import "github.com/btcnode/btcd/wire"

// This file decodes the input and output maps, key type by key type,
// with Core's duplicate, size and consistency checks and messages.

func (in *Input) decode(r *reader) error {
	seen := keyset{}
	for !r.empty() {
		key, typ, err := readKey(r)
		if err != nil {
			return err
		}
		if key == nil {
			return nil
		}
		single := func(name string, keyMsg string) error {
			if !seen.add(key) {
				return errorf("Duplicate Key, input " + name + " already provided")
			}
			if len(key) != 1 {
				return errorf(keyMsg)
			}
			return nil
		}
		switch typ {
		case inNonWitnessUTXO:
			if err := single("non-witness utxo", "Non-witness utxo key is more than one byte type"); err != nil {
				return err
			}
			if err := r.sized(func(r *reader) error {
				var tx wire.MsgTx
				n, err := tx.Decode(r.rest())
				if err != nil {
					return errorf(errEndOfData)
				}
				r.pos += n
				in.NonWitnessUTXO = tx.Copy()
				return nil
			}); err != nil {
				return err
			}
		case inWitnessUTXO:
			if err := single("witness utxo", "Witness utxo key is more than one byte type"); err != nil {
				return err
			}
			if err := r.sized(func(r *reader) error {
				o, err := readTxOut(r)
				in.WitnessUTXO = o
				return err
			}); err != nil {
				return err
			}
		case inPartialSig:
			if len(key) != 34 && len(key) != 66 {
				return errorf("Size of key was not the expected size for the type partial signature pubkey")
			}
			pub := key[1:]
			if !validPubKey(pub) {
				return errorf("Invalid pubkey")
			}
			if !seen.add(key) {
				return errorf("Duplicate Key, input partial signature for pubkey already provided")
			}
			sig, err := r.varBytes()
			if err != nil {
				return err
			}
			if len(sig) == 0 || !validSigEncoding(sig) {
				return errorf("Signature is not a valid encoding")
			}
			in.PartialSigs = append(in.PartialSigs, PartialSig{PubKey: pub, Sig: sig})
		case inSighash:
			if err := single("sighash type", "Sighash type key is more than one byte type"); err != nil {
				return err
			}
			var v uint32
			if err := r.sized(func(r *reader) (err error) { v, err = r.u32(); return }); err != nil {
				return err
			}
			in.SighashType = &v
		case inRedeemScript:
			if err := single("redeemScript", "Input redeemScript key is more than one byte type"); err != nil {
				return err
			}
			if in.RedeemScript, err = r.varBytes(); err != nil {
				return err
			}
		case inWitnessScript:
			if err := single("witnessScript", "Input witnessScript key is more than one byte type"); err != nil {
				return err
			}
			if in.WitnessScript, err = r.varBytes(); err != nil {
				return err
			}
		case inBip32:
			d, err := readDerivation(r, key, in.Bip32)
			if err != nil {
				return err
			}
			seen.add(key)
			in.Bip32 = append(in.Bip32, d)
		case inFinalScriptSig:
			if err := single("final scriptSig", "Final scriptSig key is more than one byte type"); err != nil {
				return err
			}
			if in.FinalScriptSig, err = r.varBytes(); err != nil {
				return err
			}
		case inFinalWitness:
			if err := single("final scriptWitness", "Final scriptWitness key is more than one byte type"); err != nil {
				return err
			}
			if err := r.sized(func(r *reader) (err error) { in.FinalScriptWitness, err = readWitness(r); return }); err != nil {
				return err
			}
		case inRipemd160, inSha256, inHash160, inHash256:
			name, size, list := map[uint64]string{inRipemd160: "ripemd160", inSha256: "sha256", inHash160: "hash160", inHash256: "hash256"}[typ], 33, &in.Sha256
			switch typ {
			case inRipemd160:
				size, list = 21, &in.Ripemd160
			case inHash160:
				size, list = 21, &in.Hash160
			case inHash256:
				list = &in.Hash256
			}
			if len(key) != size {
				return errorf("Size of key was not the expected size for the type " + name + " preimage")
			}
			if !seen.add(key) {
				return errorf("Duplicate Key, input " + name + " preimage already provided")
			}
			v, err := r.varBytes()
			if err != nil {
				return err
			}
			*list = append(*list, Preimage{Hash: key[1:], Preimage: v})
		case inTapKeySig:
			if err := single("Taproot key signature", "Input Taproot key signature key is more than one byte type"); err != nil {
				return err
			}
			v, err := r.varBytes()
			if err != nil {
				return err
			}
			if len(v) < 64 {
				return errorf("Input Taproot key path signature is shorter than 64 bytes")
			}
			if len(v) > 65 {
				return errorf("Input Taproot key path signature is longer than 65 bytes")
			}
			in.TapKeySig = v
		case inTapScriptSig:
			if !seen.add(key) {
				return errorf("Duplicate Key, input Taproot script signature already provided")
			}
			if len(key) != 65 {
				return errorf("Input Taproot script signature key is not 65 bytes")
			}
			v, err := r.varBytes()
			if err != nil {
				return err
			}
			if len(v) < 64 {
				return errorf("Input Taproot script path signature is shorter than 64 bytes")
			}
			if len(v) > 65 {
				return errorf("Input Taproot script path signature is longer than 65 bytes")
			}
			in.TapScriptSigs = append(in.TapScriptSigs, TapScriptSig{XOnly: key[1:33], LeafHash: [32]byte(key[33:65]), Sig: v})
		case inTapLeafScript:
			if !seen.add(key) {
				return errorf("Duplicate Key, input Taproot leaf script already provided")
			}
			if len(key) < 34 {
				return errorf("Input Taproot leaf script key is not at least 34 bytes")
			}
			if (len(key)-2)%32 != 0 {
				return errorf("Input Taproot leaf script key's control block size is not valid")
			}
			v, err := r.varBytes()
			if err != nil {
				return err
			}
			if len(v) == 0 {
				return errorf("Input Taproot leaf script must be at least 1 byte")
			}
			in.TapLeafScripts = append(in.TapLeafScripts, TapLeafScript{ControlBlock: key[1:], Script: v[:len(v)-1], LeafVersion: v[len(v)-1]})
		case inTapBip32:
			d, err := readTapDerivation(r, key, seen, "Input")
			if err != nil {
				return err
			}
			in.TapBip32 = append(in.TapBip32, d)
		case inTapInternalKey:
			if err := single("Taproot internal key", "Input Taproot internal key key is more than one byte type"); err != nil {
				return err
			}
			if err := r.sized(func(r *reader) (err error) { in.TapInternalKey, err = r.bytes(32); return }); err != nil {
				return err
			}
		case inTapMerkleRoot:
			if err := single("Taproot merkle root", "Input Taproot merkle root key is more than one byte type"); err != nil {
				return err
			}
			if err := r.sized(func(r *reader) (err error) { in.TapMerkleRoot, err = r.bytes(32); return }); err != nil {
				return err
			}
		case inMuSigParticipant:
			rec, err := readMuSigParticipants(r, key, seen, "Input")
			if err != nil {
				return err
			}
			in.MuSig = append(in.MuSig, rec)
		case inMuSigPubNonce, inMuSigPartialSig:
			what := map[uint64]string{inMuSigPubNonce: "pubnonce", inMuSigPartialSig: "partial sig"}[typ]
			if len(key) != 67 && len(key) != 99 {
				return errorf("Input musig2 " + what + " key is not expected size")
			}
			if !seen.add(key) {
				return errorf("Duplicate Key, input musig2 " + what + " already provided")
			}
			var v []byte
			if typ == inMuSigPubNonce {
				if v, err = r.varBytes(); err != nil {
					return err
				}
				if len(v) != 66 {
					return errorf("Input musig2 pubnonce value is not 66 bytes")
				}
			} else if err := r.sized(func(r *reader) (err error) { v, err = r.bytes(32); return }); err != nil {
				return err
			}
			in.MuSig = append(in.MuSig, Record{Key: key, Value: v})
		case inProprietary:
			pr, err := readProprietary(r, key, seen)
			if err != nil {
				return err
			}
			in.Proprietary = append(in.Proprietary, pr)
		default:
			u, err := readUnknown(r, key, seen)
			if err != nil {
				return err
			}
			in.Unknown = append(in.Unknown, u)
		}
	}
	return errorf("Separator is missing at the end of an input map")
}

func (out *Output) decode(r *reader) error {
	seen := keyset{}
	for !r.empty() {
		key, typ, err := readKey(r)
		if err != nil {
			return err
		}
		if key == nil {
			return nil
		}
		single := func(name string, keyMsg string) error {
			if !seen.add(key) {
				return errorf("Duplicate Key, output " + name + " already provided")
			}
			if len(key) != 1 {
				return errorf(keyMsg)
			}
			return nil
		}
		switch typ {
		case outRedeemScript:
			if err := single("redeemScript", "Output redeemScript key is more than one byte type"); err != nil {
				return err
			}
			if out.RedeemScript, err = r.varBytes(); err != nil {
				return err
			}
		case outWitnessScript:
			if err := single("witnessScript", "Output witnessScript key is more than one byte type"); err != nil {
				return err
			}
			if out.WitnessScript, err = r.varBytes(); err != nil {
				return err
			}
		case outBip32:
			d, err := readDerivation(r, key, out.Bip32)
			if err != nil {
				return err
			}
			seen.add(key)
			out.Bip32 = append(out.Bip32, d)
		case outTapInternalKey:
			if err := single("Taproot internal key", "Output Taproot internal key key is more than one byte type"); err != nil {
				return err
			}
			if err := r.sized(func(r *reader) (err error) { out.TapInternalKey, err = r.bytes(32); return }); err != nil {
				return err
			}
		case outTapTree:
			if err := single("Taproot tree", "Output Taproot tree key is more than one byte type"); err != nil {
				return err
			}
			v, err := r.varBytes()
			if err != nil {
				return err
			}
			if out.TapTree, err = decodeTapTree(v); err != nil {
				return err
			}
		case outTapBip32:
			d, err := readTapDerivation(r, key, seen, "Output")
			if err != nil {
				return err
			}
			out.TapBip32 = append(out.TapBip32, d)
		case outMuSigParticipant:
			rec, err := readMuSigParticipants(r, key, seen, "Output")
			if err != nil {
				return err
			}
			out.MuSig = append(out.MuSig, rec)
		case outProprietary:
			pr, err := readProprietary(r, key, seen)
			if err != nil {
				return err
			}
			out.Proprietary = append(out.Proprietary, pr)
		default:
			u, err := readUnknown(r, key, seen)
			if err != nil {
				return err
			}
			out.Unknown = append(out.Unknown, u)
		}
	}
	return errorf("Separator is missing at the end of an output map")
}

// tapMaxDepth is TAPROOT_CONTROL_MAX_NODE_COUNT.
const tapMaxDepth = 128

// decodeTapTree parses an output's taproot tree and checks that its
// leaves, depth first, form one complete binary tree (Core's
// TaprootBuilder).
func decodeTapTree(v []byte) ([]TapLeaf, error) {
	if len(v) == 0 {
		return nil, errorf("Output Taproot tree must not be empty")
	}
	r := &reader{b: v}
	var leaves []TapLeaf
	var branch []bool
	valid := true
	for !r.empty() {
		hdr, err := r.bytes(2)
		if err != nil {
			return nil, errorf("SpanReader::read(): end of data: iostream error")
		}
		s, err := r.varBytes()
		if err != nil {
			return nil, errorf("SpanReader::read(): end of data: iostream error")
		}
		depth, ver := int(hdr[0]), hdr[1]
		if depth > tapMaxDepth {
			return nil, errorf("Output Taproot tree has as leaf greater than Taproot maximum depth")
		}
		if ver&^0xfe != 0 {
			return nil, errorf("Output Taproot tree has a leaf with an invalid leaf version")
		}
		leaves = append(leaves, TapLeaf{Depth: hdr[0], LeafVersion: ver, Script: s})
		if !valid {
			continue
		}
		if depth+1 < len(branch) {
			valid = false
			continue
		}
		for valid && len(branch) > depth && branch[depth] {
			branch = branch[:len(branch)-1]
			if depth == 0 {
				valid = false
			}
			depth--
		}
		if valid {
			for len(branch) <= depth {
				branch = append(branch, false)
			}
			branch[depth] = true
		}
	}
	if !valid || !(len(branch) == 0 || (len(branch) == 1 && branch[0])) {
		return nil, errorf("Output Taproot tree is malformed")
	}
	return leaves, nil
}
