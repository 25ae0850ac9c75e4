package rpc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"

	"github.com/btcnode/btcd/wire"
)

// Output script descriptors (BIP380-386), the subset without extended keys:
// addr(), raw(), pk(), pkh(), wpkh(), sh(), wsh(), multi(), sortedmulti(),
// tr(KEY) and rawtr(), with hex public keys and optional [origin] prefixes.

const descInputCharset = "0123456789()[],'/*abcdefgh@:$%{}" +
	"IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~" +
	"ijklmnopqrstuvwxyzABCDEFGH`#\"\\ "

const descChecksumCharset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

func descPolymod(c uint64, val int) uint64 {
	c0 := c >> 35
	c = (c&0x7ffffffff)<<5 ^ uint64(val)
	gens := [5]uint64{0xf5dee51989, 0xa9fdca3312, 0x1bab10e32d, 0x3706b1677a, 0x644d626ffd}
	for i, g := range gens {
		if c0>>uint(i)&1 != 0 {
			c ^= g
		}
	}
	return c
}

// descriptorChecksum returns the BIP380 checksum of desc (without any
// "#checksum" part), or "" when desc has a character outside the
// descriptor character set.
func descriptorChecksum(desc string) string {
	c := uint64(1)
	cls, clsCount := 0, 0
	for i := 0; i < len(desc); i++ {
		pos := strings.IndexByte(descInputCharset, desc[i])
		if pos < 0 {
			return ""
		}
		c = descPolymod(c, pos&31)
		cls = cls*3 + pos>>5
		clsCount++
		if clsCount == 3 {
			c = descPolymod(c, cls)
			cls, clsCount = 0, 0
		}
	}
	if clsCount > 0 {
		c = descPolymod(c, cls)
	}
	for i := 0; i < 8; i++ {
		c = descPolymod(c, 0)
	}
	c ^= 1
	out := make([]byte, 8)
	for j := range out {
		out[j] = descChecksumCharset[c>>(5*(7-uint(j)))&31]
	}
	return string(out)
}

// addChecksum appends "#checksum".
func addChecksum(desc string) string { return desc + "#" + descriptorChecksum(desc) }

// descriptor is a parsed descriptor.
type descriptor struct {
	canonical string // without checksum
	script    []byte
	solvable  bool
}

// descContext is where a sub-descriptor appears.
type descContext uint8

const (
	ctxTop descContext = iota
	ctxSH
	ctxWSH
	ctxTR
)

// parseDescriptor parses a descriptor with an optional checksum (checked
// when present) and returns its canonical form and script. Errors carry
// bitcoind's -5 code.
func parseDescriptor(s string, net *NetParams) (*descriptor, error) {
	body := s
	if i := strings.IndexByte(s, '#'); i >= 0 {
		body = s[:i]
		sum := s[i+1:]
		if len(sum) != 8 {
			return nil, Errorf(ErrInvalidAddress, "Expected 8 character checksum, not %d characters", len(sum))
		}
		if want := descriptorChecksum(body); want != sum {
			return nil, Errorf(ErrInvalidAddress, "Provided checksum '%s' does not match computed checksum '%s'", sum, want)
		}
	}
	if descriptorChecksum(body) == "" {
		return nil, NewError(ErrInvalidAddress, "Invalid characters in payload")
	}
	d, err := parseDesc(body, ctxTop, net)
	if err != nil {
		return nil, err
	}
	return d, nil
}

func descErr(format string, args ...any) error { return Errorf(ErrInvalidAddress, format, args...) }

// splitCall splits "name(args)" into name and args.
func splitCall(s string) (string, string, bool) {
	i := strings.IndexByte(s, '(')
	if i <= 0 || !strings.HasSuffix(s, ")") {
		return "", "", false
	}
	return s[:i], s[i+1 : len(s)-1], true
}

func parseDesc(s string, ctx descContext, net *NetParams) (*descriptor, error) {
	name, arg, ok := splitCall(s)
	if !ok {
		return nil, descErr("'%s' is not a valid descriptor function", s)
	}
	switch name {
	case "addr", "raw":
		if ctx != ctxTop {
			return nil, descErr("Can only have %s() at top level", name)
		}
		if name == "raw" {
			if !isHex(arg) {
				return nil, descErr("Raw script is not hex")
			}
			b := decodeHex(arg)
			return &descriptor{canonical: "raw(" + hex.EncodeToString(b) + ")", script: b}, nil
		}
		a, msg := decodeAddress(arg, net)
		if msg != "" {
			return nil, descErr("Address is not valid")
		}
		return &descriptor{canonical: "addr(" + a.encode(net) + ")", script: a.script()}, nil
	case "pk", "pkh", "wpkh":
		if name == "wpkh" && ctx != ctxTop && ctx != ctxSH {
			return nil, descErr("Can only have wpkh() at top level or inside sh()")
		}
		k, err := parseDescKey(arg, ctx, name == "wpkh")
		if err != nil {
			return nil, err
		}
		d := &descriptor{canonical: name + "(" + k.text + ")", solvable: true}
		switch name {
		case "pk":
			if ctx == ctxTR {
				d.script = append(append([]byte{32}, k.xonly()...), opCheckSig)
			} else {
				d.script = append(append([]byte{byte(len(k.key))}, k.key...), opCheckSig)
			}
		case "pkh":
			h := hash160(k.key)
			d.script = address{kind: addrP2PKH, program: h[:]}.script()
		default:
			h := hash160(k.key)
			d.script = address{kind: addrWitness, program: h[:]}.script()
		}
		return d, nil
	case "sh", "wsh":
		if name == "sh" && ctx != ctxTop {
			return nil, descErr("Can only have sh() at top level")
		}
		if name == "wsh" && ctx != ctxTop && ctx != ctxSH {
			return nil, descErr("Can only have wsh() at top level or inside sh()")
		}
		inner := ctxSH
		if name == "wsh" {
			inner = ctxWSH
		}
		sub, err := parseDesc(arg, inner, net)
		if err != nil {
			return nil, err
		}
		d := &descriptor{canonical: name + "(" + sub.canonical + ")", solvable: sub.solvable}
		if name == "sh" {
			if len(sub.script) > 520 {
				return nil, descErr("P2SH script is too large, %d bytes is larger than 520 bytes", len(sub.script))
			}
			h := hash160(sub.script)
			d.script = address{kind: addrP2SH, program: h[:]}.script()
		} else {
			h := wshHash(sub.script)
			d.script = address{kind: addrWitness, program: h[:]}.script()
		}
		return d, nil
	case "multi", "sortedmulti":
		if ctx == ctxTR {
			return nil, descErr("Can only have %s at top level, in sh(), or in wsh()", name)
		}
		parts := strings.Split(arg, ",")
		if len(parts) < 2 {
			return nil, descErr("Multi: expected at least one key")
		}
		m, err := strconv.Atoi(parts[0])
		if err != nil || m < 1 {
			return nil, descErr("Multi threshold '%s' is not valid", parts[0])
		}
		keys := make([]descKey, 0, len(parts)-1)
		for _, p := range parts[1:] {
			k, err := parseDescKey(p, ctx, ctx == ctxWSH)
			if err != nil {
				return nil, err
			}
			keys = append(keys, k)
		}
		if len(keys) > maxMultisigKey {
			return nil, descErr("Cannot have %d keys in multisig; must have between 1 and 16 keys, inclusive", len(keys))
		}
		if m > len(keys) {
			return nil, descErr("Multisig threshold cannot be larger than the number of keys; threshold is %d but only %d keys specified", m, len(keys))
		}
		texts := make([]string, len(keys))
		for i, k := range keys {
			texts[i] = k.text
		}
		order := keys
		if name == "sortedmulti" {
			order = append([]descKey(nil), keys...)
			sort.Slice(order, func(i, j int) bool { return bytes.Compare(order[i].key, order[j].key) < 0 })
		}
		script := []byte{byte(op1 + m - 1)}
		for _, k := range order {
			script = append(append(script, byte(len(k.key))), k.key...)
		}
		script = append(script, byte(op1+len(keys)-1), opCheckMulti)
		return &descriptor{canonical: name + "(" + strconv.Itoa(m) + "," + strings.Join(texts, ",") + ")", script: script, solvable: true}, nil
	case "tr", "rawtr":
		if ctx != ctxTop {
			return nil, descErr("Can only have %s at top level", name)
		}
		if strings.Contains(arg, ",") {
			return nil, descErr("tr() with a script tree is not supported")
		}
		k, err := parseDescKey(arg, ctxTR, true)
		if err != nil {
			return nil, err
		}
		out := k.xonly()
		if name == "tr" {
			q, err := taprootOutputKey(out)
			if err != nil {
				return nil, err
			}
			out = q
		}
		return &descriptor{canonical: name + "(" + k.text + ")", script: append([]byte{op1, 32}, out...), solvable: name == "tr"}, nil
	}
	return nil, descErr("'%s' is not a valid descriptor function", name)
}

// descKey is a parsed key expression.
type descKey struct {
	text string // canonical text with origin
	key  []byte // 33 or 65 bytes, or 32 for an x-only key
}

func (k descKey) xonly() []byte {
	if len(k.key) == 32 {
		return k.key
	}
	return k.key[1:33]
}

// parseDescKey parses "[origin]hexkey". Extended keys and private keys are
// not supported.
func parseDescKey(s string, ctx descContext, compressedOnly bool) (descKey, error) {
	origin := ""
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return descKey{}, descErr("Key origin start '[ character expected but not found, got '%c' instead", s[0])
		}
		origin = s[:end+1]
		if err := checkOrigin(s[1:end]); err != nil {
			return descKey{}, err
		}
		s = s[end+1:]
	}
	if !isHex(s) {
		return descKey{}, descErr("key '%s' is not valid", s)
	}
	b := decodeHex(s)
	switch {
	case ctx == ctxTR && len(b) == 32:
		if _, err := schnorr.ParsePubKey(b); err != nil {
			return descKey{}, descErr("Pubkey '%s' is invalid", s)
		}
	case len(b) == 33 || len(b) == 65:
		if _, err := btcec.ParsePubKey(b); err != nil {
			return descKey{}, descErr("Pubkey '%s' is invalid", s)
		}
		if len(b) == 65 && (compressedOnly || ctx == ctxTR) {
			return descKey{}, descErr("Uncompressed keys are not allowed")
		}
	default:
		return descKey{}, descErr("key '%s' is not valid", s)
	}
	return descKey{text: origin + hex.EncodeToString(b), key: b}, nil
}

func checkOrigin(o string) error {
	parts := strings.Split(o, "/")
	if len(parts[0]) != 8 || !isHex(parts[0]) {
		return descErr("Fingerprint '%s' is not hex", parts[0])
	}
	for _, p := range parts[1:] {
		p = strings.TrimRight(p, "'h")
		if n, err := strconv.ParseUint(p, 10, 32); err != nil || n >= 1<<31 {
			return descErr("Key path value '%s' is not a valid uint32", p)
		}
	}
	return nil
}

// taprootOutputKey tweaks an x-only internal key with no script tree:
// Q = P + H_TapTweak(P)·G (BIP341/BIP86).
func taprootOutputKey(internal []byte) ([]byte, error) {
	p, err := schnorr.ParsePubKey(internal)
	if err != nil {
		return nil, descErr("Pubkey '%x' is invalid", internal)
	}
	h := wire.TaggedHash("TapTweak", internal)
	var t btcec.ModNScalar
	if overflow := t.SetByteSlice(h[:]); overflow {
		return nil, descErr("taproot tweak out of range")
	}
	var pj, tg, q btcec.JacobianPoint
	p.AsJacobian(&pj)
	btcec.ScalarBaseMultNonConst(&t, &tg)
	btcec.AddNonConst(&pj, &tg, &q)
	q.ToAffine()
	out := q.X.Bytes()
	return out[:], nil
}

// wshHash is the P2WSH program of a witness script.
func wshHash(script []byte) [32]byte { return sha256.Sum256(script) }
