package descriptor

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"sort"

	"github.com/btcnode/btcd/txscript"
)

// ErrCannotDerive is returned by Expand when a key cannot be derived:
// hardened derivation without the private key, an index beyond 2^31-1, or
// (with negligible probability) an invalid BIP32 child. The text is Core's.
var ErrCannotDerive = errors.New("Cannot derive script without private keys")

// tapLeafVersion is the BIP342 tapscript leaf version.
const tapLeafVersion = 0xc0

// Output is one output script of an expanded descriptor.
type Output struct {
	// Script is the scriptPubKey.
	Script []byte
	prov   *Provider
	net    *Network
}

// Describe returns the descriptor Core infers for the output from what the
// expansion learnt (keys with their origins, redeem and witness scripts,
// script trees): what scantxoutset reports as an unspent output's "desc",
// e.g. pkh([0c5f9a1e/1/1/0]03e1...)#cxmct4w8 for a P2PKH output of a
// combo() descriptor.
func (o Output) Describe() string { return Infer(o.Script, o.net, o.prov) }

// Expand returns the output scripts of the descriptor at index (which only
// ranged keys use): one script, or combo()'s two to four in Core's order
// (P2PK, P2PKH, then for compressed keys P2WPKH and P2SH-P2WPKH).
func (d *Descriptor) Expand(index uint32) ([]Output, error) {
	prov := NewProvider()
	scripts, err := d.top.expand(index, prov)
	if err != nil {
		return nil, err
	}
	out := make([]Output, len(scripts))
	for i, s := range scripts {
		out[i] = Output{Script: s, prov: prov, net: d.net}
	}
	return out, nil
}

// expand builds n's scripts at pos, recording in prov what inference needs.
func (n *node) expand(pos uint32, prov *Provider) ([][]byte, error) {
	pubs := make([][]byte, len(n.keys))
	for i, k := range n.keys {
		pub, origin, err := k.pubKey(pos)
		if err != nil {
			return nil, ErrCannotDerive
		}
		prov.addKey(pub, origin, k.origin != nil)
		if priv := k.privKey(pos); priv != nil {
			prov.privs[txscript.Hash160(pub)] = priv
		}
		pubs[i] = pub
	}
	switch n.kind {
	case kindPK:
		if n.xonly {
			return [][]byte{tapPK(pubs[0][1:33])}, nil
		}
		return [][]byte{p2pk(pubs[0])}, nil
	case kindPKH:
		h := txscript.Hash160(pubs[0])
		return [][]byte{txscript.PayToPubKeyHashScript(h[:])}, nil
	case kindWPKH:
		h := txscript.Hash160(pubs[0])
		return [][]byte{txscript.PayToWitnessScript(0, h[:])}, nil
	case kindCombo:
		h := txscript.Hash160(pubs[0])
		out := [][]byte{p2pk(pubs[0]), txscript.PayToPubKeyHashScript(h[:])}
		if len(pubs[0]) == 33 {
			w := txscript.PayToWitnessScript(0, h[:])
			prov.AddScript(w)
			wh := txscript.Hash160(w)
			out = append(out, w, txscript.PayToScriptHashScript(wh[:]))
		}
		return out, nil
	case kindMulti, kindSortedMulti:
		if n.kind == kindSortedMulti {
			pubs = sortedKeys(pubs)
		}
		return [][]byte{multisigScript(n.threshold, pubs)}, nil
	case kindMultiA, kindSortedMultiA:
		xs := make([][]byte, len(pubs))
		for i, p := range pubs {
			xs[i] = p[1:33]
		}
		if n.kind == kindSortedMultiA {
			xs = sortedKeys(xs)
		}
		return [][]byte{multiAScript(n.threshold, xs)}, nil
	case kindSH, kindWSH:
		sub, err := n.subs[0].expand(pos, prov)
		if err != nil {
			return nil, err
		}
		prov.AddScript(sub[0])
		if n.kind == kindSH {
			h := txscript.Hash160(sub[0])
			return [][]byte{txscript.PayToScriptHashScript(h[:])}, nil
		}
		h := sha256.Sum256(sub[0])
		return [][]byte{txscript.PayToWitnessScript(0, h[:])}, nil
	case kindTR:
		leaves := make([][]byte, len(n.subs))
		for i, s := range n.subs {
			sc, err := s.expand(pos, prov)
			if err != nil {
				return nil, err
			}
			leaves[i] = sc[0]
		}
		tree := buildTree(leaves, n.depths)
		var root []byte
		if tree != nil {
			root = tree.hash[:]
		}
		internal := pubs[0][1:33]
		key, _, ok := txscript.ComputeTaprootOutputKey(internal, root)
		if !ok {
			return nil, ErrCannotDerive
		}
		prov.addTree(key, internal, tree)
		return [][]byte{txscript.PayToWitnessScript(1, key[:])}, nil
	case kindRawTR:
		return [][]byte{txscript.PayToWitnessScript(1, pubs[0][1:33])}, nil
	case kindMiniscript:
		if n.ms.tap {
			// Tapscript pushes x-only keys, and pk_h() hashes them:
			// record the keys by that hash for inference.
			xs := make([][]byte, len(pubs))
			for i, p := range pubs {
				xs[i] = p[1:33]
				prov.pubkeys[txscript.Hash160(xs[i])] = p
			}
			pubs = xs
		}
		return [][]byte{n.ms.script(make([]byte, 0, n.ms.size), pubs)}, nil
	}
	return [][]byte{append([]byte(nil), n.script()...)}, nil
}

// sortedKeys returns the keys in lexicographic order (BIP67, and the
// x-only order of sortedmulti_a).
func sortedKeys(keys [][]byte) [][]byte {
	s := append([][]byte(nil), keys...)
	sort.SliceStable(s, func(i, j int) bool { return bytes.Compare(s[i], s[j]) < 0 })
	return s
}

// p2pk is <key> OP_CHECKSIG.
func p2pk(pub []byte) []byte {
	s := append([]byte{byte(len(pub))}, pub...)
	return append(s, txscript.OP_CHECKSIG)
}

// tapPK is <x-only key> OP_CHECKSIG, tapscript's pk().
func tapPK(x []byte) []byte {
	s := append([]byte{32}, x...)
	return append(s, txscript.OP_CHECKSIG)
}

// pushNum appends the minimal push of a script number.
func pushNum(s []byte, n int) []byte {
	b, _ := txscript.NewScriptBuilder(8).AddInt64(int64(n)).Script()
	return append(s, b...)
}

// multisigScript is OP_k <keys...> OP_n OP_CHECKMULTISIG, with numbers
// above 16 pushed as data as Core does for up to 20 keys.
func multisigScript(k int, pubs [][]byte) []byte {
	size := 3
	for _, p := range pubs {
		size += 1 + len(p)
	}
	s := pushNum(make([]byte, 0, size+2), k)
	for _, p := range pubs {
		s = append(s, byte(len(p)))
		s = append(s, p...)
	}
	s = pushNum(s, len(pubs))
	return append(s, txscript.OP_CHECKMULTISIG)
}

// multiAScript is <key1> OP_CHECKSIG <key2> OP_CHECKSIGADD ... <k>
// OP_NUMEQUAL. It may exceed the legacy 10,000-byte script limit, which
// tapscript does not have.
func multiAScript(k int, xs [][]byte) []byte {
	s := make([]byte, 0, 34*len(xs)+4)
	for i, x := range xs {
		s = append(s, 32)
		s = append(s, x...)
		if i == 0 {
			s = append(s, txscript.OP_CHECKSIG)
		} else {
			s = append(s, txscript.OP_CHECKSIGADD)
		}
	}
	s = pushNum(s, k)
	return append(s, txscript.OP_NUMEQUAL)
}

// tapNode is a node of a taproot script tree.
type tapNode struct {
	hash        [32]byte
	left, right *tapNode
	script      []byte // leaves only
	minScript   []byte // the smallest leaf script below, for inference order
}

// buildTree assembles leaves given in depth-first order with their depths
// (as the parser checked they form a full binary tree) and returns the
// root, or nil for no leaves.
func buildTree(leaves [][]byte, depths []int) *tapNode {
	if len(leaves) == 0 {
		return nil
	}
	type entry struct {
		n     *tapNode
		depth int
	}
	stack := make([]entry, 0, len(leaves))
	for i, s := range leaves {
		leaf := &tapNode{hash: txscript.TapLeafHash(tapLeafVersion, s), script: s, minScript: s}
		stack = append(stack, entry{leaf, depths[i]})
		for len(stack) >= 2 && stack[len(stack)-1].depth == stack[len(stack)-2].depth {
			r, l := stack[len(stack)-1], stack[len(stack)-2]
			stack = stack[:len(stack)-2]
			parent := &tapNode{hash: txscript.TapBranchHash(l.n.hash[:], r.n.hash[:]), left: l.n, right: r.n, minScript: l.n.minScript}
			if bytes.Compare(r.n.minScript, parent.minScript) < 0 {
				parent.minScript = r.n.minScript
			}
			stack = append(stack, entry{parent, l.depth - 1})
		}
	}
	return stack[0].n
}
