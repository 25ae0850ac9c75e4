package descriptor

import (
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/btcnode/btcd/txscript"
)

// The two forms a miniscript node is written in: its text (as Core
// prints it, with its abbreviations) and its script.

// write appends n's text: wrappers as letters before ':', and the pk(),
// pkh(), t:, l: and u: abbreviations Core prints. keyStr gives a key's text.
func (n *msNode) write(b *strings.Builder, wrapped bool, keyStr func(int) string) {
	switch n.frag {
	case msWrapA, msWrapS, msWrapD, msWrapV, msWrapJ, msWrapN:
		b.WriteByte(wrapperLetters[n.frag])
		n.subs[0].write(b, true, keyStr)
		return
	case msWrapC:
		if f := n.subs[0].frag; f == msPkK || f == msPkH {
			if wrapped {
				b.WriteByte(':')
			}
			if f == msPkK {
				b.WriteString("pk(")
			} else {
				b.WriteString("pkh(")
			}
			b.WriteString(keyStr(n.subs[0].keys[0]))
			b.WriteByte(')')
			return
		}
		b.WriteByte('c')
		n.subs[0].write(b, true, keyStr)
		return
	case msAndV:
		if n.subs[1].frag == msJust1 {
			b.WriteByte('t')
			n.subs[0].write(b, true, keyStr)
			return
		}
	case msOrI:
		if n.subs[0].frag == msJust0 {
			b.WriteByte('l')
			n.subs[1].write(b, true, keyStr)
			return
		}
		if n.subs[1].frag == msJust0 {
			b.WriteByte('u')
			n.subs[0].write(b, true, keyStr)
			return
		}
	}
	if wrapped {
		b.WriteByte(':')
	}
	if n.frag == msAndOr && n.subs[2].frag == msJust0 {
		b.WriteString("and_n(")
		n.subs[0].write(b, false, keyStr)
		b.WriteByte(',')
		n.subs[1].write(b, false, keyStr)
		b.WriteByte(')')
		return
	}
	b.WriteString(msFragNames[n.frag])
	switch n.frag {
	case msJust0, msJust1:
		return
	case msPkK, msPkH:
		b.WriteByte('(')
		b.WriteString(keyStr(n.keys[0]))
	case msOlder, msAfter:
		b.WriteByte('(')
		b.WriteString(strconv.FormatUint(uint64(n.k), 10))
	case msSha256, msHash256, msRipemd160, msHash160:
		b.WriteByte('(')
		b.WriteString(hex.EncodeToString(n.hash))
	case msMulti, msMultiA:
		b.WriteByte('(')
		b.WriteString(strconv.FormatUint(uint64(n.k), 10))
		for _, k := range n.keys {
			b.WriteByte(',')
			b.WriteString(keyStr(k))
		}
	case msThresh:
		b.WriteByte('(')
		b.WriteString(strconv.FormatUint(uint64(n.k), 10))
		for _, s := range n.subs {
			b.WriteByte(',')
			s.write(b, false, keyStr)
		}
	default:
		b.WriteByte('(')
		for i, s := range n.subs {
			if i > 0 {
				b.WriteByte(',')
			}
			s.write(b, false, keyStr)
		}
	}
	b.WriteByte(')')
}

// wrapperLetters are the letters of the wrappers that print as such.
var wrapperLetters = map[msFrag]byte{msWrapA: 'a', msWrapS: 's', msWrapC: 'c', msWrapD: 'd', msWrapV: 'v', msWrapJ: 'j', msWrapN: 'n'}

// verifyForm maps an opcode to its VERIFY variant, for v: of a node
// without x.
var verifyForm = map[byte]byte{
	txscript.OP_EQUAL:         txscript.OP_EQUALVERIFY,
	txscript.OP_CHECKSIG:      txscript.OP_CHECKSIGVERIFY,
	txscript.OP_CHECKMULTISIG: txscript.OP_CHECKMULTISIGVERIFY,
	txscript.OP_NUMEQUAL:      txscript.OP_NUMEQUALVERIFY,
}

// script appends n's script to s; pubs are the serialized keys (x-only
// in tapscript).
func (n *msNode) script(s []byte, pubs [][]byte) []byte {
	push := func(s, d []byte) []byte { return append(append(s, byte(len(d))), d...) }
	switch n.frag {
	case msJust0:
		return append(s, txscript.OP_0)
	case msJust1:
		return append(s, txscript.OP_1)
	case msPkK:
		return push(s, pubs[n.keys[0]])
	case msPkH:
		h := txscript.Hash160(pubs[n.keys[0]])
		s = append(s, txscript.OP_DUP, txscript.OP_HASH160)
		return append(push(s, h[:]), txscript.OP_EQUALVERIFY)
	case msOlder:
		return append(pushNum(s, int(n.k)), txscript.OP_CHECKSEQUENCEVERIFY)
	case msAfter:
		return append(pushNum(s, int(n.k)), txscript.OP_CHECKLOCKTIMEVERIFY)
	case msSha256, msHash256, msRipemd160, msHash160:
		op := map[msFrag]byte{msSha256: txscript.OP_SHA256, msHash256: txscript.OP_HASH256,
			msRipemd160: txscript.OP_RIPEMD160, msHash160: txscript.OP_HASH160}[n.frag]
		s = append(pushNum(append(s, txscript.OP_SIZE), 32), txscript.OP_EQUALVERIFY, op)
		return append(push(s, n.hash), txscript.OP_EQUAL)
	case msMulti:
		s = pushNum(s, int(n.k))
		for _, k := range n.keys {
			s = push(s, pubs[k])
		}
		return append(pushNum(s, len(n.keys)), txscript.OP_CHECKMULTISIG)
	case msMultiA:
		for i, k := range n.keys {
			s = push(s, pubs[k])
			if i == 0 {
				s = append(s, txscript.OP_CHECKSIG)
			} else {
				s = append(s, txscript.OP_CHECKSIGADD)
			}
		}
		return append(pushNum(s, int(n.k)), txscript.OP_NUMEQUAL)
	case msWrapA:
		s = n.subs[0].script(append(s, txscript.OP_TOALTSTACK), pubs)
		return append(s, txscript.OP_FROMALTSTACK)
	case msWrapS:
		return n.subs[0].script(append(s, txscript.OP_SWAP), pubs)
	case msWrapC:
		return append(n.subs[0].script(s, pubs), txscript.OP_CHECKSIG)
	case msWrapD:
		s = n.subs[0].script(append(s, txscript.OP_DUP, txscript.OP_IF), pubs)
		return append(s, txscript.OP_ENDIF)
	case msWrapV:
		s = n.subs[0].script(s, pubs)
		if v, ok := verifyForm[s[len(s)-1]]; ok && !n.subs[0].typ.has(tx) {
			s[len(s)-1] = v
			return s
		}
		return append(s, txscript.OP_VERIFY)
	case msWrapJ:
		s = n.subs[0].script(append(s, txscript.OP_SIZE, txscript.OP_0NOTEQUAL, txscript.OP_IF), pubs)
		return append(s, txscript.OP_ENDIF)
	case msWrapN:
		return append(n.subs[0].script(s, pubs), txscript.OP_0NOTEQUAL)
	case msAndV:
		return n.subs[1].script(n.subs[0].script(s, pubs), pubs)
	case msAndB:
		return append(n.subs[1].script(n.subs[0].script(s, pubs), pubs), txscript.OP_BOOLAND)
	case msOrB:
		return append(n.subs[1].script(n.subs[0].script(s, pubs), pubs), txscript.OP_BOOLOR)
	case msOrC:
		s = append(n.subs[0].script(s, pubs), txscript.OP_NOTIF)
		return append(n.subs[1].script(s, pubs), txscript.OP_ENDIF)
	case msOrD:
		s = append(n.subs[0].script(s, pubs), txscript.OP_IFDUP, txscript.OP_NOTIF)
		return append(n.subs[1].script(s, pubs), txscript.OP_ENDIF)
	case msOrI:
		s = append(n.subs[0].script(append(s, txscript.OP_IF), pubs), txscript.OP_ELSE)
		return append(n.subs[1].script(s, pubs), txscript.OP_ENDIF)
	case msAndOr:
		s = append(n.subs[0].script(s, pubs), txscript.OP_NOTIF)
		s = append(n.subs[2].script(s, pubs), txscript.OP_ELSE)
		return append(n.subs[1].script(s, pubs), txscript.OP_ENDIF)
	case msThresh:
		for i, sub := range n.subs {
			s = sub.script(s, pubs)
			if i > 0 {
				s = append(s, txscript.OP_ADD)
			}
		}
		return append(pushNum(s, int(n.k)), txscript.OP_EQUAL)
	}
	return s
}
