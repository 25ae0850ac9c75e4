package txscript

import "github.com/btcnode/btcd/internal/secp256k1"

// tapLeafHash computes the BIP341 leaf hash of script under leafVersion.
func tapLeafHash(w *hashWriter, leafVersion byte, script []byte) [32]byte {
	w.startTagged(tagTapLeaf)
	w.u8(leafVersion)
	w.varBytes(script)
	var out [32]byte
	w.sum(&out)
	return out
}

// TapLeafHash returns the BIP341 tapleaf hash of script.
func TapLeafHash(leafVersion byte, script []byte) [32]byte {
	return tapLeafHash(newHashWriter(), leafVersion, script)
}

// tapBranchHash hashes two child nodes in lexicographic order.
func tapBranchHash(w *hashWriter, a, b []byte) [32]byte {
	w.startTagged(tagTapBranch)
	if string(a) < string(b) {
		w.write(a)
		w.write(b)
	} else {
		w.write(b)
		w.write(a)
	}
	var out [32]byte
	w.sum(&out)
	return out
}

// TapBranchHash returns the BIP341 branch hash of two nodes.
func TapBranchHash(a, b []byte) [32]byte { return tapBranchHash(newHashWriter(), a, b) }

// TapTweakHash returns the BIP341 tweak hash of an x-only internal key and
// an optional merkle root (nil for key-path-only outputs).
func TapTweakHash(internalKey []byte, merkleRoot []byte) [32]byte {
	w := newHashWriter()
	w.startTagged(tagTapTweak)
	w.write(internalKey)
	w.write(merkleRoot)
	var out [32]byte
	w.sum(&out)
	return out
}

// ComputeTaprootOutputKey tweaks an x-only internal key with merkleRoot
// and returns the x-only output key and the parity of its Y coordinate.
func ComputeTaprootOutputKey(internalKey []byte, merkleRoot []byte) (key [32]byte, oddY bool, ok bool) {
	if len(internalKey) != 32 {
		return key, false, false
	}
	t := TapTweakHash(internalKey, merkleRoot)
	return secp256k1.TaprootTweak((*[32]byte)(internalKey), &t)
}

// taprootMerkleRoot folds the control block's path into the leaf hash.
func taprootMerkleRoot(w *hashWriter, control []byte, leaf *[32]byte) [32]byte {
	k := *leaf
	path := control[taprootControlBaseSize:]
	for len(path) >= taprootControlNodeSize {
		k = tapBranchHash(w, k[:], path[:taprootControlNodeSize])
		path = path[taprootControlNodeSize:]
	}
	return k
}

// verifyTaprootCommitment is Core's VerifyTaprootCommitment: the program
// must be the internal key of the control block tweaked by the merkle root
// reached from the leaf, with matching Y parity.
func verifyTaprootCommitment(w *hashWriter, control, program []byte, leaf *[32]byte) bool {
	root := taprootMerkleRoot(w, control, leaf)
	key, odd, ok := ComputeTaprootOutputKey(control[1:33], root[:])
	if !ok {
		return false
	}
	return string(key[:]) == string(program) && odd == (control[0]&1 == 1)
}
