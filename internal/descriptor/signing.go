package descriptor

import (
	"github.com/btcnode/btcd/txscript"
)

// KeyInfo is one key an expansion used: its serialization as the scripts
// push it (33 or 65 bytes; taproot keys as 02||x), its BIP32 origin, and
// its private key when the descriptor held one.
type KeyInfo struct {
	PubKey      []byte
	Fingerprint [4]byte
	Path        []uint32
	PrivKey     []byte
}

// TapLeafInfo is one tapscript leaf with the control block that proves
// it against its output key.
type TapLeafInfo struct {
	Script       []byte
	LeafVersion  byte
	ControlBlock []byte
}

// TaprootInfo is one tr() output: its output key, internal key, the
// merkle root of its script tree (nil without one) and its leaves.
type TaprootInfo struct {
	OutputKey   [32]byte
	InternalKey []byte
	MerkleRoot  []byte
	Leaves      []TapLeafInfo
}

// SigningInfo is what an expansion learnt that a PSBT updater and signer
// use: keys (with private keys where given), redeem and witness scripts,
// and taproot trees.
type SigningInfo struct {
	Keys    []KeyInfo
	Scripts [][]byte
	Taproot []TaprootInfo
}

// SigningInfo returns what the expansion that produced o knows. All
// outputs of one expansion share it.
func (o Output) SigningInfo() *SigningInfo {
	p := o.prov
	si := &SigningInfo{}
	for id, pub := range p.pubkeys {
		// Tapscript miniscript also files keys under the hash of their
		// x-only form, for pk_h(); list each key once, under its own.
		if txscript.Hash160(pub) != id {
			continue
		}
		k := KeyInfo{PubKey: pub, PrivKey: p.privs[id]}
		if or, ok := p.origins[id]; ok {
			k.Fingerprint = or.fingerprint
			k.Path = append([]uint32(nil), or.path...)
		}
		si.Keys = append(si.Keys, k)
	}
	// wscripts holds every recorded script (AddScript files each under
	// both hashes), so it alone lists them once.
	for _, s := range p.wscripts {
		si.Scripts = append(si.Scripts, s)
	}
	for out, sp := range p.trees {
		t := TaprootInfo{OutputKey: out, InternalKey: sp.internal}
		if sp.tree != nil {
			t.MerkleRoot = append([]byte(nil), sp.tree.hash[:]...)
			_, odd, _ := txscript.ComputeTaprootOutputKey(sp.internal, t.MerkleRoot)
			parity := byte(0)
			if odd {
				parity = 1
			}
			collectLeaves(sp.tree, nil, func(script []byte, path [][32]byte) {
				cb := make([]byte, 0, 33+32*len(path))
				cb = append(cb, tapLeafVersion|parity)
				cb = append(cb, sp.internal...)
				// The control block lists the siblings from the leaf up.
				for i := len(path) - 1; i >= 0; i-- {
					cb = append(cb, path[i][:]...)
				}
				t.Leaves = append(t.Leaves, TapLeafInfo{Script: script, LeafVersion: tapLeafVersion, ControlBlock: cb})
			})
		}
		si.Taproot = append(si.Taproot, t)
	}
	return si
}

// collectLeaves calls f for every leaf below n with the sibling hashes
// on the way down from the root.
func collectLeaves(n *tapNode, path [][32]byte, f func(script []byte, path [][32]byte)) {
	if n.left == nil {
		f(n.script, path)
		return
	}
	collectLeaves(n.left, append(path[:len(path):len(path)], n.right.hash), f)
	collectLeaves(n.right, append(path[:len(path):len(path)], n.left.hash), f)
}

// privKey returns the private key behind the key at pos, or nil when the
// descriptor gave only public data. It is called after pubKey succeeded,
// so an extended key's parent is derived already.
func (k *keyExpr) privKey(pos uint32) []byte {
	if k.ext == nil {
		return k.wif
	}
	if !k.ext.IsPrivate() || k.parent == nil {
		return nil
	}
	key := k.parent
	if k.derive != deriveNone {
		i := pos
		if k.derive == deriveHardened {
			i |= HardenedKeyStart
		}
		c, err := key.Child(i)
		if err != nil {
			return nil
		}
		key = c
	}
	return key.PrivKey()
}
