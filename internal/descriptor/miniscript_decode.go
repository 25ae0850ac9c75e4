package descriptor

import (
	"bytes"

	"github.com/btcnode/btcd/txscript"
)

// msOp is one decoded script operation: the opcode and its data (a
// small-integer opcode carries its value as one byte of data).
type msOp struct {
	op   byte
	data []byte
}

// decomposeScript splits a script into operations, last first, with
// each *VERIFY opcode split into its base opcode and OP_VERIFY (Core's
// DecomposeScript). It rejects non-minimal pushes and a base opcode
// followed by OP_VERIFY, which miniscript never produces.
func decomposeScript(s []byte) ([]msOp, bool) {
	out := make([]msOp, 0, len(s)/2+1)
	for i := 0; i < len(s); {
		op, data, next, ok := scriptOp(s, i)
		if !ok {
			return nil, false
		}
		i = next
		switch {
		case op >= txscript.OP_1 && op <= txscript.OP_16:
			data = []byte{op - txscript.OP_1 + 1}
		case op == txscript.OP_CHECKSIGVERIFY:
			out = append(out, msOp{op: txscript.OP_CHECKSIG})
			op = txscript.OP_VERIFY
		case op == txscript.OP_CHECKMULTISIGVERIFY:
			out = append(out, msOp{op: txscript.OP_CHECKMULTISIG})
			op = txscript.OP_VERIFY
		case op == txscript.OP_EQUALVERIFY:
			out = append(out, msOp{op: txscript.OP_EQUAL})
			op = txscript.OP_VERIFY
		case op == txscript.OP_NUMEQUALVERIFY:
			out = append(out, msOp{op: txscript.OP_NUMEQUAL})
			op = txscript.OP_VERIFY
		case op > txscript.OP_0 && op <= txscript.OP_PUSHDATA4:
			if !minimalPush(op, data) {
				return nil, false
			}
		case i < len(s) && s[i] == txscript.OP_VERIFY && (op == txscript.OP_CHECKSIG ||
			op == txscript.OP_CHECKMULTISIG || op == txscript.OP_EQUAL || op == txscript.OP_NUMEQUAL):
			return nil, false
		}
		out = append(out, msOp{op: op, data: data})
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, true
}

// msNumber is Core's ParseScriptNumber for a decoded operation: OP_0, a
// small integer, or a minimal push of a minimally encoded number of at
// most 4 bytes.
func msNumber(o msOp) (int64, bool) {
	if o.op == txscript.OP_0 {
		return 0, true
	}
	if len(o.data) == 0 || len(o.data) > 4 {
		return 0, false
	}
	d := o.data
	if n := len(d); d[n-1]&0x7f == 0 && (n == 1 || d[n-2]&0x80 == 0) {
		return 0, false
	}
	var v int64
	for i := len(d) - 1; i >= 0; i-- {
		v = v<<8 | int64(d[i])
	}
	if d[len(d)-1]&0x80 != 0 {
		v &^= int64(0x80) << (8 * (len(d) - 1))
		v = -v
	}
	return v, true
}

// decodeState is what remains to be done on the decoder's work stack
// (Core's DecodeContext).
type decodeState uint8

const (
	dsSingleBKV decodeState = iota // one expression that is not an and_v
	dsBKV                          // an expression, possibly an and_v chain
	dsW                            // a W expression: a: or s:
	dsMaybeAndV
	dsSwap
	dsAlt
	dsCheck
	dsDupIf
	dsVerify
	dsNonZero
	dsZeroNotEqual
	dsAndV
	dsAndB
	dsOrB
	dsOrC
	dsOrD
	dsAndOr
	dsThreshW
	dsThreshE
	dsEndIf
	dsEndIfNotIf
	dsEndIfElse
)

type decodeTask struct {
	state decodeState
	n, k  int64 // thresh: subs seen, threshold
}

// msDecoder turns a P2WSH witness script or a tapscript leaf back into
// miniscript, learning keys from a provider as Core's FromScript with its
// KeyParser does.
type msDecoder struct {
	tap  bool
	prov *Provider
	keys []*keyExpr
	// keyByHash, when set, resolves pk_h hashes the provider lacks.
	keyByHash func(h [20]byte) []byte
}

// pk resolves a pushed public key: 33 bytes in P2WSH, 32 in tapscript.
func (d *msDecoder) pk(pub []byte) (int, bool) {
	var k *keyExpr
	switch {
	case d.tap && len(pub) == 32:
		k = inferXOnly(pub, d.prov)
	case !d.tap:
		k = inferPubKey(pub, ctxP2WSH, d.prov)
	}
	if k == nil {
		return 0, false
	}
	d.keys = append(d.keys, k)
	return len(d.keys) - 1, true
}

// pkh resolves a key hash through the provider.
func (d *msDecoder) pkh(h []byte) (int, bool) {
	pub, ok := d.prov.pubkeys[[20]byte(h)]
	if !ok {
		if d.keyByHash == nil {
			return 0, false
		}
		// The caller gives keys in script form, x-only in tapscript.
		k := d.keyByHash([20]byte(h))
		if k == nil || txscript.Hash160(k) != [20]byte(h) {
			return 0, false
		}
		return d.pk(k)
	}
	if d.tap {
		// Expansions record tapscript keys by the hash of their x
		// coordinate.
		return d.pk(pub[1:33])
	}
	return d.pk(pub)
}

// decodeMiniscript is Core's FromScript: the miniscript whose script is
// s (a tapscript leaf when tap is set), with its keys, or nil. Work is
// bounded by the script size limit checked first: every step consumes
// an operation or builds a node from ones already built.
func decodeMiniscript(s []byte, tap bool, prov *Provider) (*msNode, []*keyExpr) {
	return (&msDecoder{tap: tap, prov: prov}).decode(s)
}

// decode is decodeMiniscript with the decoder's key lookups.
func (d *msDecoder) decode(s []byte) (*msNode, []*keyExpr) {
	tap := d.tap
	if len(s) > msMaxScriptSize && !tap || len(s) > msMaxTapScriptSize {
		return nil, nil
	}
	in, ok := decomposeScript(s)
	if !ok {
		return nil, nil
	}
	todo := []decodeTask{{state: dsBKV}}
	var built []*msNode
	leaf := func(frag msFrag, keys []int, k uint32, hash []byte) {
		built = append(built, newMS(d.tap, frag, nil, keys, k, hash))
	}
	wrap := func(frag msFrag) bool {
		if len(built) == 0 {
			return false
		}
		built[len(built)-1] = newMS(d.tap, frag, []*msNode{built[len(built)-1]}, nil, 0, nil)
		return true
	}
	// join builds frag(X, Y) from the last two built: the script is
	// read from its end, so Y was built first.
	join := func(frag msFrag) bool {
		if len(built) < 2 {
			return false
		}
		x, y := built[len(built)-1], built[len(built)-2]
		built = append(built[:len(built)-2], newMS(d.tap, frag, []*msNode{x, y}, nil, 0, nil))
		return true
	}
	push := func(ts ...decodeState) {
		for _, t := range ts {
			todo = append(todo, decodeTask{state: t})
		}
	}
	for len(todo) > 0 {
		if len(built) > 0 && !built[len(built)-1].valid() {
			return nil, nil
		}
		t := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		left := len(in)
		switch t.state {
		case dsSingleBKV:
			if left == 0 {
				return nil, nil
			}
			o := in[0]
			switch {
			case o.op == txscript.OP_1:
				in = in[1:]
				leaf(msJust1, nil, 0, nil)
				continue
			case o.op == txscript.OP_0:
				in = in[1:]
				leaf(msJust0, nil, 0, nil)
				continue
			case len(o.data) == 33 || len(o.data) == 32:
				k, ok := d.pk(o.data)
				if !ok {
					return nil, nil
				}
				in = in[1:]
				leaf(msPkK, []int{k}, 0, nil)
				continue
			case left >= 5 && o.op == txscript.OP_VERIFY && in[1].op == txscript.OP_EQUAL && in[3].op == txscript.OP_HASH160 &&
				in[4].op == txscript.OP_DUP && len(in[2].data) == 20 && in[2].op == 20:
				k, ok := d.pkh(in[2].data)
				if !ok {
					return nil, nil
				}
				in = in[5:]
				leaf(msPkH, []int{k}, 0, nil)
				continue
			}
			if left >= 2 && (o.op == txscript.OP_CHECKSEQUENCEVERIFY || o.op == txscript.OP_CHECKLOCKTIMEVERIFY) {
				if v, ok := msNumber(in[1]); ok {
					if v < 1 || v > 0x7fffffff {
						return nil, nil
					}
					frag := msOlder
					if o.op == txscript.OP_CHECKLOCKTIMEVERIFY {
						frag = msAfter
					}
					in = in[2:]
					leaf(frag, nil, uint32(v), nil)
					continue
				}
			}
			if left >= 7 && o.op == txscript.OP_EQUAL && in[3].op == txscript.OP_VERIFY && in[4].op == txscript.OP_EQUAL && in[6].op == txscript.OP_SIZE {
				if v, ok := msNumber(in[5]); ok && v == 32 {
					h := in[1].data
					var frag msFrag = 255
					switch {
					case in[2].op == txscript.OP_SHA256 && len(h) == 32:
						frag = msSha256
					case in[2].op == txscript.OP_RIPEMD160 && len(h) == 20:
						frag = msRipemd160
					case in[2].op == txscript.OP_HASH256 && len(h) == 32:
						frag = msHash256
					case in[2].op == txscript.OP_HASH160 && len(h) == 20:
						frag = msHash160
					}
					if frag != 255 {
						in = in[7:]
						leaf(frag, nil, 0, bytes.Clone(h))
						continue
					}
				}
			}
			if left >= 3 && o.op == txscript.OP_CHECKMULTISIG {
				if d.tap {
					return nil, nil
				}
				n, ok := msNumber(in[1])
				if !ok || n < 1 || n > maxMultisigKeys || int64(left) < 3+n {
					return nil, nil
				}
				keys := make([]int, n)
				for i := range keys {
					pub := in[2+i].data
					if len(pub) != 33 {
						return nil, nil
					}
					if keys[n-1-int64(i)], ok = d.pk(pub); !ok {
						return nil, nil
					}
				}
				k, ok := msNumber(in[2+n])
				if !ok || k < 1 || k > n {
					return nil, nil
				}
				in = in[3+n:]
				leaf(msMulti, keys, uint32(k), nil)
				continue
			}
			if left >= 4 && o.op == txscript.OP_NUMEQUAL {
				if !d.tap {
					return nil, nil
				}
				k, ok := msNumber(in[1])
				if !ok || k < 1 || k > maxMultiAKeys || int64(left) < 2+2*k {
					return nil, nil
				}
				// Pairs of CHECKSIG(ADD) and key, last first, until
				// the first key's OP_CHECKSIG.
				var pubs [][]byte
				for pos := 2; ; pos += 2 {
					if left < pos+2 {
						return nil, nil
					}
					op := in[pos].op
					if op != txscript.OP_CHECKSIGADD && op != txscript.OP_CHECKSIG || len(in[pos+1].data) != 32 {
						return nil, nil
					}
					pubs = append(pubs, in[pos+1].data)
					if len(pubs) > maxMultiAKeys {
						return nil, nil
					}
					if op == txscript.OP_CHECKSIG {
						break
					}
				}
				if int64(len(pubs)) < k {
					return nil, nil
				}
				keys := make([]int, len(pubs))
				for i := range pubs {
					if keys[i], ok = d.pk(pubs[len(pubs)-1-i]); !ok {
						return nil, nil
					}
				}
				in = in[2+2*len(pubs):]
				leaf(msMultiA, keys, uint32(k), nil)
				continue
			}
			// The wrappers below take one expression, not an and_v:
			// and_v commutes with them (c:and_v(X,Y) is and_v(X,c:Y)).
			switch o.op {
			case txscript.OP_CHECKSIG:
				in = in[1:]
				push(dsCheck, dsSingleBKV)
				continue
			case txscript.OP_VERIFY:
				in = in[1:]
				push(dsVerify, dsSingleBKV)
				continue
			case txscript.OP_0NOTEQUAL:
				in = in[1:]
				push(dsZeroNotEqual, dsSingleBKV)
				continue
			}
			if left >= 3 && o.op == txscript.OP_EQUAL {
				if k, ok := msNumber(in[1]); ok {
					if k < 1 {
						return nil, nil
					}
					in = in[2:]
					todo = append(todo, decodeTask{state: dsThreshW, n: 0, k: k})
					continue
				}
			}
			switch o.op {
			case txscript.OP_ENDIF:
				in = in[1:]
				push(dsEndIf, dsBKV)
			case txscript.OP_BOOLAND:
				// and_b and or_b take one expression on the left, as
				// and_v(X,or_b(Y,Z)) is the valid reading of their
				// script.
				in = in[1:]
				push(dsAndB, dsSingleBKV, dsW)
			case txscript.OP_BOOLOR:
				in = in[1:]
				push(dsOrB, dsSingleBKV, dsW)
			default:
				return nil, nil
			}
		case dsBKV:
			push(dsMaybeAndV, dsSingleBKV)
		case dsW:
			if left == 0 {
				return nil, nil
			}
			if in[0].op == txscript.OP_FROMALTSTACK {
				in = in[1:]
				push(dsAlt)
			} else {
				push(dsSwap)
			}
			push(dsBKV)
		case dsMaybeAndV:
			// These opcodes cannot end an expression, so what precedes
			// them is no and_v's left side.
			if left > 0 {
				switch in[0].op {
				case txscript.OP_IF, txscript.OP_ELSE, txscript.OP_NOTIF, txscript.OP_TOALTSTACK, txscript.OP_SWAP:
				default:
					push(dsAndV, dsBKV)
				}
			}
		case dsSwap, dsAlt:
			want, frag := byte(txscript.OP_SWAP), msWrapS
			if t.state == dsAlt {
				want, frag = txscript.OP_TOALTSTACK, msWrapA
			}
			if left == 0 || in[0].op != want || !wrap(frag) {
				return nil, nil
			}
			in = in[1:]
		case dsCheck, dsDupIf, dsVerify, dsNonZero, dsZeroNotEqual:
			frag := map[decodeState]msFrag{dsCheck: msWrapC, dsDupIf: msWrapD, dsVerify: msWrapV, dsNonZero: msWrapJ, dsZeroNotEqual: msWrapN}[t.state]
			if !wrap(frag) {
				return nil, nil
			}
		case dsAndV, dsAndB, dsOrB, dsOrC, dsOrD:
			frag := map[decodeState]msFrag{dsAndV: msAndV, dsAndB: msAndB, dsOrB: msOrB, dsOrC: msOrC, dsOrD: msOrD}[t.state]
			if !join(frag) {
				return nil, nil
			}
		case dsAndOr:
			if len(built) < 3 {
				return nil, nil
			}
			// Built in script order from the end: Y (after ELSE), Z,
			// then X.
			x, z, y := built[len(built)-1], built[len(built)-2], built[len(built)-3]
			built = append(built[:len(built)-3], newMS(d.tap, msAndOr, []*msNode{x, y, z}, nil, 0, nil))
		case dsThreshW:
			if left == 0 {
				return nil, nil
			}
			if t.n >= msMaxThresh {
				return nil, nil
			}
			if in[0].op == txscript.OP_ADD {
				in = in[1:]
				todo = append(todo, decodeTask{state: dsThreshW, n: t.n + 1, k: t.k})
				push(dsW)
			} else {
				// thresh's subs are all d, so none is an and_v.
				todo = append(todo, decodeTask{state: dsThreshE, n: t.n + 1, k: t.k})
				push(dsSingleBKV)
			}
		case dsThreshE:
			if t.k < 1 || t.k > t.n || t.n > msMaxThresh || int64(len(built)) < t.n {
				return nil, nil
			}
			subs := make([]*msNode, t.n)
			for i := range subs {
				subs[i] = built[len(built)-1-i]
			}
			built = append(built[:len(built)-int(t.n)], newMS(d.tap, msThresh, subs, nil, uint32(t.k), nil))
		case dsEndIf:
			if left == 0 {
				return nil, nil
			}
			switch {
			case in[0].op == txscript.OP_ELSE:
				in = in[1:]
				push(dsEndIfElse, dsBKV)
			case in[0].op == txscript.OP_IF && left >= 2 && in[1].op == txscript.OP_DUP:
				in = in[2:]
				push(dsDupIf)
			case in[0].op == txscript.OP_IF && left >= 3 && in[1].op == txscript.OP_0NOTEQUAL && in[2].op == txscript.OP_SIZE:
				in = in[3:]
				push(dsNonZero)
			case in[0].op == txscript.OP_NOTIF:
				in = in[1:]
				push(dsEndIfNotIf)
			default:
				return nil, nil
			}
		case dsEndIfNotIf:
			if left == 0 {
				return nil, nil
			}
			if in[0].op == txscript.OP_IFDUP {
				in = in[1:]
				push(dsOrD)
			} else {
				push(dsOrC)
			}
			// or_c's and or_d's X is d, so no and_v.
			push(dsSingleBKV)
		case dsEndIfElse:
			if left == 0 {
				return nil, nil
			}
			switch in[0].op {
			case txscript.OP_IF:
				in = in[1:]
				if !join(msOrI) {
					return nil, nil
				}
			case txscript.OP_NOTIF:
				in = in[1:]
				// andor's X is d, so no and_v.
				push(dsAndOr, dsSingleBKV)
			default:
				return nil, nil
			}
		}
	}
	if len(built) != 1 || len(in) != 0 || !built[0].valid() {
		return nil, nil
	}
	return built[0], d.keys
}

// inferMiniscript is InferScript's last resort for a P2WSH witness script
// or (tap) a tapscript leaf: the miniscript it is, if sane.
func inferMiniscript(s []byte, tap bool, prov *Provider) *node {
	ms, keys := decodeMiniscript(s, tap, prov)
	if ms == nil {
		return nil
	}
	n := &node{kind: kindMiniscript, ms: ms, keys: keys}
	ids := n.msKeyIDs()
	if ms.findInsane(ids) != nil || !ms.validTop() || !ms.typ.has(ts) {
		return nil
	}
	return n
}

// InferMiniscript returns the text of the sane P2WSH miniscript whose
// script is witnessScript (keys in hex, as inferred with nothing known
// about them), or false: what decodescript shows inside "wsh(...)".
func InferMiniscript(witnessScript []byte) (string, bool) {
	n := inferMiniscript(witnessScript, false, NewProvider())
	if n == nil {
		return "", false
	}
	return n.msString(n.ms, MainNet), true
}
