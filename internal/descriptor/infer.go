package descriptor

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"strings"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"

	"github.com/btcnode/btcd/txscript"
)

// Provider is what is known when a descriptor is inferred from a script:
// public keys with their origins, redeem and witness scripts, and taproot
// script trees. An expansion fills one for its outputs; createmultisig
// builds one holding only its scripts.
type Provider struct {
	pubkeys  map[[20]byte][]byte
	origins  map[[20]byte]keyOrigin
	scripts  map[[20]byte][]byte // by HASH160, for P2SH
	wscripts map[[32]byte][]byte // by SHA256, for P2WSH
	trees    map[[32]byte]tapSpend
	privs    map[[20]byte][]byte // private keys by HASH160 of the public key
}

// tapSpend is a taproot output's internal key and script tree.
type tapSpend struct {
	internal []byte
	tree     *tapNode
}

// NewProvider returns an empty Provider.
func NewProvider() *Provider {
	return &Provider{
		pubkeys:  map[[20]byte][]byte{},
		origins:  map[[20]byte]keyOrigin{},
		scripts:  map[[20]byte][]byte{},
		wscripts: map[[32]byte][]byte{},
		trees:    map[[32]byte]tapSpend{},
		privs:    map[[20]byte][]byte{},
	}
}

// AddScript records a redeem or witness script, so that P2SH and P2WSH
// outputs paying to it infer as sh() and wsh() of what it is.
func (p *Provider) AddScript(s []byte) {
	h := txscript.Hash160(s)
	if _, ok := p.scripts[h]; !ok {
		p.scripts[h] = s
	}
	w := sha256.Sum256(s)
	if _, ok := p.wscripts[w]; !ok {
		p.wscripts[w] = s
	}
}

// addKey records a public key and its origin. The first origin recorded
// for a key stays, unless a later one was given explicitly.
func (p *Provider) addKey(pub []byte, origin keyOrigin, explicit bool) {
	id := txscript.Hash160(pub)
	if _, ok := p.pubkeys[id]; !ok {
		p.pubkeys[id] = pub
	}
	if _, ok := p.origins[id]; !ok || explicit {
		p.origins[id] = origin
	}
}

func (p *Provider) addTree(output [32]byte, internal []byte, tree *tapNode) {
	if _, ok := p.trees[output]; !ok {
		p.trees[output] = tapSpend{internal: internal, tree: tree}
	}
}

// Infer returns the descriptor (with checksum) Bitcoin Core's
// InferDescriptor gives script on net with what prov knows (prov may be
// nil): pk(), pkh(), wpkh(), multi(), sh(), wsh(), tr() and rawtr() where
// the keys and scripts are known (witness scripts and tapscript leaves
// that are sane miniscript as that), else addr() for scripts with an
// address and raw() for the rest.
func Infer(script []byte, net *Network, prov *Provider) string {
	if prov == nil {
		prov = NewProvider()
	}
	n := inferScript(script, ctxTop, prov)
	var b strings.Builder
	n.write(&b, net, false)
	return AddChecksum(b.String())
}

// inferScript is Core's InferScript: the expression script is in ctx, or
// nil when none applies below the top level.
func inferScript(s []byte, ctx context, prov *Provider) *node {
	if ctx == ctxP2TR {
		if len(s) == 34 && s[0] == 32 && s[33] == txscript.OP_CHECKSIG {
			return &node{kind: kindPK, xonly: true, keys: []*keyExpr{inferXOnly(s[1:33], prov)}}
		}
		if k, xs, ok := matchMultiA(s); ok {
			n := &node{kind: kindMultiA, threshold: k}
			for _, x := range xs {
				n.keys = append(n.keys, inferXOnly(x, prov))
			}
			return n
		}
	}
	legacy := ctx == ctxTop || ctx == ctxP2SH || ctx == ctxP2WSH
	ver, prog, isWitness := txscript.IsWitnessProgram(s)
	switch {
	case legacy && isP2PK(s):
		if k := inferPubKey(s[1:len(s)-1], ctx, prov); k != nil {
			return &node{kind: kindPK, keys: []*keyExpr{k}}
		}
	case legacy && isP2PKH(s):
		if pub, ok := prov.pubkeys[[20]byte(s[3:23])]; ok {
			if k := inferPubKey(pub, ctx, prov); k != nil {
				return &node{kind: kindPKH, keys: []*keyExpr{k}}
			}
		}
	case ctx == ctxTop && txscript.IsPayToScriptHash(s):
		if sub, ok := prov.scripts[[20]byte(s[2:22])]; ok {
			if n := inferScript(sub, ctxP2SH, prov); n != nil {
				return &node{kind: kindSH, subs: []*node{n}}
			}
		}
	case isWitness && ver == 0 && len(prog) == 20 && (ctx == ctxTop || ctx == ctxP2SH):
		if pub, ok := prov.pubkeys[[20]byte(prog)]; ok {
			if k := inferPubKey(pub, ctxP2WPKH, prov); k != nil {
				return &node{kind: kindWPKH, keys: []*keyExpr{k}}
			}
		}
	case isWitness && ver == 0 && len(prog) == 32 && (ctx == ctxTop || ctx == ctxP2SH):
		if sub, ok := prov.wscripts[[32]byte(prog)]; ok {
			if n := inferScript(sub, ctxP2WSH, prov); n != nil {
				return &node{kind: kindWSH, subs: []*node{n}}
			}
		}
	case isWitness && ver == 1 && len(prog) == 32 && ctx == ctxTop:
		if n := inferTR([32]byte(prog), prov); n != nil {
			return n
		}
		if _, err := schnorr.ParsePubKey(prog); err == nil {
			return &node{kind: kindRawTR, keys: []*keyExpr{inferXOnly(prog, prov)}}
		}
	case legacy:
		if k, pubs, ok := matchMultisig(s); ok {
			n := &node{kind: kindMulti, threshold: k}
			for _, pub := range pubs {
				key := inferPubKey(pub, ctx, prov)
				if key == nil {
					n = nil
					break
				}
				n.keys = append(n.keys, key)
			}
			if n != nil {
				return n
			}
		}
	}
	if ctx == ctxP2WSH || ctx == ctxP2TR {
		if n := inferMiniscript(s, ctx == ctxP2TR, prov); n != nil {
			return n
		}
	}
	if ctx != ctxTop {
		return nil
	}
	if a, ok := extractAddress(s); ok {
		return &node{kind: kindAddr, addr: a}
	}
	return &node{kind: kindRaw, raw: s}
}

// inferTR rebuilds tr(KEY,TREE) for a taproot output whose tree the
// provider knows. The leaves come in Core's order: at each branch, first
// the side holding the smallest leaf script.
func inferTR(output [32]byte, prov *Provider) *node {
	sp, ok := prov.trees[output]
	if !ok {
		return nil
	}
	n := &node{kind: kindTR, keys: []*keyExpr{inferXOnly(sp.internal, prov)}}
	var walk func(t *tapNode, depth int) bool
	walk = func(t *tapNode, depth int) bool {
		if t.left == nil {
			leaf := inferScript(t.script, ctxP2TR, prov)
			if leaf == nil {
				return false
			}
			n.subs = append(n.subs, leaf)
			n.depths = append(n.depths, depth)
			return true
		}
		a, b := t.left, t.right
		if bytes.Compare(b.minScript, a.minScript) < 0 {
			a, b = b, a
		}
		return walk(a, depth+1) && walk(b, depth+1)
	}
	if sp.tree != nil && !walk(sp.tree, 0) {
		return nil
	}
	return n
}

// inferPubKey is Core's InferPubkey: hybrid keys never, uncompressed ones
// only at the top level and in P2SH.
func inferPubKey(pub []byte, ctx context, prov *Provider) *keyExpr {
	if !(len(pub) == 33 && (pub[0] == 2 || pub[0] == 3) || len(pub) == 65 && pub[0] == 4) {
		return nil
	}
	if len(pub) == 65 && ctx != ctxTop && ctx != ctxP2SH {
		return nil
	}
	k := &keyExpr{pub: pub}
	if o, ok := prov.origins[txscript.Hash160(pub)]; ok {
		k.origin = &o
	}
	return k
}

// inferXOnly is Core's InferXOnlyPubkey: the origin of either key with
// that x coordinate.
func inferXOnly(x []byte, prov *Provider) *keyExpr {
	k := &keyExpr{pub: append([]byte{2}, x...), xonly: true}
	for _, prefix := range []byte{2, 3} {
		if o, ok := prov.origins[txscript.Hash160(append([]byte{prefix}, x...))]; ok {
			k.origin = &o
			break
		}
	}
	return k
}

func isP2PK(s []byte) bool {
	return (len(s) == 35 || len(s) == 67) && int(s[0]) == len(s)-2 &&
		s[len(s)-1] == txscript.OP_CHECKSIG && validPubKeySize(s[1:len(s)-1])
}

func isP2PKH(s []byte) bool {
	return len(s) == 25 && s[0] == txscript.OP_DUP && s[1] == txscript.OP_HASH160 && s[2] == 20 &&
		s[23] == txscript.OP_EQUALVERIFY && s[24] == txscript.OP_CHECKSIG
}

// extractAddress is Core's ExtractDestination for scripts that have an
// address: P2PKH, P2SH and witness programs (version 0 only with 20 or 32
// bytes).
func extractAddress(s []byte) (txscript.Address, bool) {
	a, ok := txscript.AddressFromPkScript(s)
	if !ok || (a.Type == txscript.AddrWitness && a.WitnessVersion == 0 && len(a.Hash) != 20 && len(a.Hash) != 32) {
		return txscript.Address{}, false
	}
	return a, true
}

// ScriptAddress returns the address of an output script on net, or false
// when the script has none (P2PK, bare multisig, OP_RETURN, non-standard).
func ScriptAddress(s []byte, net *Network) (string, bool) {
	a, ok := extractAddress(s)
	if !ok {
		return "", false
	}
	return a.Encode(net.addressParams()), true
}

// scriptOutputType is the address type of a script, "" when it has no
// address.
func scriptOutputType(s []byte) string {
	a, ok := extractAddress(s)
	switch {
	case !ok:
		return ""
	case a.Type != txscript.AddrWitness:
		return "legacy"
	case a.WitnessVersion == 0:
		return "bech32"
	}
	return "bech32m"
}

// scriptOp reads the operation at s[i]: its opcode, pushed data and the
// index after it.
func scriptOp(s []byte, i int) (op byte, data []byte, next int, ok bool) {
	if i >= len(s) {
		return 0, nil, i, false
	}
	op = s[i]
	i++
	n := 0
	switch {
	case op <= 75:
		n = int(op)
	case op == txscript.OP_PUSHDATA1:
		if i+1 > len(s) {
			return 0, nil, i, false
		}
		n, i = int(s[i]), i+1
	case op == txscript.OP_PUSHDATA2:
		if i+2 > len(s) {
			return 0, nil, i, false
		}
		n, i = int(binary.LittleEndian.Uint16(s[i:])), i+2
	case op == txscript.OP_PUSHDATA4:
		if i+4 > len(s) {
			return 0, nil, i, false
		}
		v := binary.LittleEndian.Uint32(s[i:])
		if uint64(v) > uint64(len(s)) {
			return 0, nil, i, false
		}
		n, i = int(v), i+4
	default:
		return op, nil, i, true
	}
	if n > len(s)-i {
		return 0, nil, i, false
	}
	return op, s[i : i+n], i + n, true
}

// scriptNumber is Core's GetScriptNumber: a small-integer opcode or a
// minimally pushed, minimally encoded number of at most 4 bytes, within
// [lo, hi].
func scriptNumber(op byte, data []byte, lo, hi int) (int, bool) {
	var v int64
	switch {
	case op >= txscript.OP_1 && op <= txscript.OP_16:
		v = int64(op - txscript.OP_1 + 1)
	case op > txscript.OP_0 && op <= txscript.OP_PUSHDATA4:
		if !minimalPush(op, data) || len(data) > 4 {
			return 0, false
		}
		if n := len(data); n > 0 && data[n-1]&0x7f == 0 && (n == 1 || data[n-2]&0x80 == 0) {
			return 0, false
		}
		for i := len(data) - 1; i >= 0; i-- {
			v = v<<8 | int64(data[i])
		}
		if n := len(data); n > 0 && data[n-1]&0x80 != 0 {
			v &^= int64(0x80) << (8 * (n - 1))
			v = -v
		}
	default:
		return 0, false
	}
	if v < int64(lo) || v > int64(hi) {
		return 0, false
	}
	return int(v), true
}

// minimalPush is Core's CheckMinimalPush.
func minimalPush(op byte, data []byte) bool {
	switch n := len(data); {
	case n == 0:
		return op == txscript.OP_0
	case n == 1 && data[0] >= 1 && data[0] <= 16:
		return op == txscript.OP_1+data[0]-1
	case n == 1 && data[0] == 0x81:
		return op == txscript.OP_1NEGATE
	case n <= 75:
		return int(op) == n
	case n <= 255:
		return op == txscript.OP_PUSHDATA1
	case n <= 65535:
		return op == txscript.OP_PUSHDATA2
	}
	return true
}

// matchMultisig is Core's MatchMultisig: OP_k <keys> OP_n
// OP_CHECKMULTISIG with 1 <= k <= n <= 20.
func matchMultisig(s []byte) (int, [][]byte, bool) {
	if len(s) < 1 || s[len(s)-1] != txscript.OP_CHECKMULTISIG {
		return 0, nil, false
	}
	op, data, i, ok := scriptOp(s, 0)
	if !ok {
		return 0, nil, false
	}
	k, ok := scriptNumber(op, data, 1, maxMultisigKeys)
	if !ok {
		return 0, nil, false
	}
	var keys [][]byte
	for {
		op, data, i, ok = scriptOp(s, i)
		if !ok || !validPubKeySize(data) {
			break
		}
		keys = append(keys, data)
	}
	if !ok {
		return 0, nil, false
	}
	n, ok := scriptNumber(op, data, k, maxMultisigKeys)
	if !ok || n != len(keys) || i+1 != len(s) {
		return 0, nil, false
	}
	return k, keys, true
}

// matchMultiA is Core's MatchMultiA: <x1> OP_CHECKSIG <x2> OP_CHECKSIGADD
// ... <k> OP_NUMEQUAL.
func matchMultiA(s []byte) (int, [][]byte, bool) {
	if len(s) == 0 || s[0] != 32 || s[len(s)-1] != txscript.OP_NUMEQUAL {
		return 0, nil, false
	}
	var xs [][]byte
	i := 0
	for len(s)-i >= 34 {
		if s[i] != 32 {
			return 0, nil, false
		}
		xs = append(xs, s[i+1:i+33])
		want := byte(txscript.OP_CHECKSIGADD)
		if len(xs) == 1 {
			want = txscript.OP_CHECKSIG
		}
		if s[i+33] != want {
			return 0, nil, false
		}
		i += 34
	}
	if len(xs) == 0 || len(xs) > maxMultiAKeys {
		return 0, nil, false
	}
	op, data, i, ok := scriptOp(s, i)
	if !ok || i+1 != len(s) || s[i] != txscript.OP_NUMEQUAL {
		return 0, nil, false
	}
	k, ok := scriptNumber(op, data, 1, len(xs))
	return k, xs, ok
}
