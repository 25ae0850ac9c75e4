package descriptor

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/btcsuite/btcd/btcec/v2"

	"github.com/btcnode/btcd/txscript"
)

// maxMultipathItems bounds the values of one <a;b;...> specifier. Every
// value makes another copy of the descriptor, so an unbounded count would
// let a short input allocate without limit; real descriptors use two.
const maxMultipathItems = 256

// derivation says whether an extended key ends in a wildcard.
type derivation uint8

const (
	deriveNone       derivation = iota // a single key
	deriveUnhardened                   // .../*
	deriveHardened                     // .../*' or .../*h
)

// keyOrigin is a key's fingerprint and derivation path from it.
type keyOrigin struct {
	fingerprint [4]byte
	path        []uint32
}

// keyExpr is one parsed key expression. A constant key (hex or WIF) sets
// pub; an extended key sets ext. Key expressions are not modified after
// parsing (apart from the derivation cache), so the expansions of a
// multipath descriptor share the keys that are not multipath.
type keyExpr struct {
	origin *keyOrigin // the explicit [fingerprint/path], if any
	// apostrophe selects "'" rather than "h" when printing hardened
	// steps: Core keeps one marker per key expression, the last one the
	// input used.
	apostrophe bool

	pub           []byte // constant key: 33 or 65 bytes (02||x for x-only)
	xonly         bool   // printed as 32-byte x-only (inside tr())
	wif           []byte // private key of a WIF constant key
	wifCompressed bool

	ext    *ExtendedKey // extended key as given (private for xprv)
	path   []uint32
	derive derivation

	// parent caches ext derived along path, the key every index of a
	// ranged key derives from.
	once      sync.Once
	parent    *ExtendedKey
	parentErr error
}

// isRange reports a wildcard.
func (k *keyExpr) isRange() bool { return k.ext != nil && k.derive != deriveNone }

// size is the serialized size of the keys it produces (Core's GetSize), for
// the P2SH script size check.
func (k *keyExpr) size() int {
	if k.ext != nil {
		return 33
	}
	return len(k.pub)
}

// hardenedDerivation reports whether deriving needs the private key.
func (k *keyExpr) hardenedDerivation() bool {
	if k.derive == deriveHardened {
		return true
	}
	for _, i := range k.path {
		if i >= HardenedKeyStart {
			return true
		}
	}
	return false
}

// formatPath renders a derivation path as "/1/2h/3...".
func formatPath(b *strings.Builder, path []uint32, apostrophe bool) {
	for _, i := range path {
		b.WriteByte('/')
		b.WriteString(strconv.FormatUint(uint64(i&^HardenedKeyStart), 10))
		if i >= HardenedKeyStart {
			b.WriteByte(hardMark(apostrophe))
		}
	}
}

func hardMark(apostrophe bool) byte {
	if apostrophe {
		return '\''
	}
	return 'h'
}

// write appends the key expression; with private set, private keys are
// written where known. It reports whether a private key was written.
func (k *keyExpr) write(b *strings.Builder, net *Network, private bool) bool {
	if k.origin != nil {
		b.WriteByte('[')
		b.WriteString(hex.EncodeToString(k.origin.fingerprint[:]))
		formatPath(b, k.origin.path, k.apostrophe)
		b.WriteByte(']')
	}
	if k.ext == nil {
		if private && k.wif != nil {
			b.WriteString(encodeWIF(k.wif, k.wifCompressed, net))
			return true
		}
		if k.xonly {
			b.WriteString(hex.EncodeToString(k.pub[1:33]))
		} else {
			b.WriteString(hex.EncodeToString(k.pub))
		}
		return false
	}
	wrote := private && k.ext.IsPrivate()
	if wrote {
		b.WriteString(k.ext.String(net))
	} else {
		b.WriteString(k.ext.PublicString(net))
	}
	formatPath(b, k.path, k.apostrophe)
	switch k.derive {
	case deriveUnhardened:
		b.WriteString("/*")
	case deriveHardened:
		b.WriteString("/*")
		b.WriteByte(hardMark(k.apostrophe))
	}
	return wrote
}

// errNeedKey is the internal failure of a derivation that needs a private
// key it does not have (or whose child is invalid).
var errNeedKey = errors.New("cannot derive key")

// pubKey returns the public key at index pos (ignored unless ranged) and
// the origin Core records for it: the explicit origin's fingerprint with
// its path followed by the derivation path, or else the fingerprint of the
// key itself (the root extended key, or the constant key).
func (k *keyExpr) pubKey(pos uint32) ([]byte, keyOrigin, error) {
	var pub []byte
	var origin keyOrigin
	if k.ext == nil {
		pub = k.pub
		h := txscript.Hash160(pub)
		origin.fingerprint = [4]byte(h[:4])
	} else {
		k.once.Do(func() {
			// Derivation fails beyond depth 255: refuse long paths
			// before spending time on them.
			extra := 0
			if k.derive != deriveNone {
				extra = 1
			}
			if int(k.ext.Depth())+len(k.path)+extra > 255 {
				k.parentErr = errNeedKey
				return
			}
			if k.hardenedDerivation() && !k.ext.IsPrivate() {
				k.parentErr = errNeedKey
				return
			}
			k.parent, k.parentErr = k.ext.Derive(k.path)
		})
		if k.parentErr != nil {
			return nil, keyOrigin{}, errNeedKey
		}
		key := k.parent
		origin.fingerprint = k.ext.Fingerprint()
		origin.path = append(make([]uint32, 0, len(k.path)+1), k.path...)
		if k.derive != deriveNone {
			if pos >= HardenedKeyStart {
				return nil, keyOrigin{}, errNeedKey
			}
			i := pos
			if k.derive == deriveHardened {
				i |= HardenedKeyStart
			}
			c, err := key.Child(i)
			if err != nil {
				return nil, keyOrigin{}, errNeedKey
			}
			key = c
			origin.path = append(origin.path, i)
		}
		pub = key.PubKey()
	}
	if k.origin != nil {
		origin = keyOrigin{fingerprint: k.origin.fingerprint,
			path: append(append(make([]uint32, 0, len(k.origin.path)+len(origin.path)), k.origin.path...), origin.path...)}
	}
	return pub, origin, nil
}

// isSpace is C's isspace in the "C" locale, as Core's IsSpace.
func isSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

// isHex is Core's IsHex: a non-empty, even-length string of hex digits.
func isHex(s string) bool {
	if s == "" || len(s)%2 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// pubKeyLen is the length a public key with this header byte has (Core's
// CPubKey::GetLen): 33 compressed, 65 uncompressed or hybrid, else 0.
func pubKeyLen(header byte) int {
	switch header {
	case 2, 3:
		return 33
	case 4, 6, 7:
		return 65
	}
	return 0
}

// validPubKeySize is Core's CPubKey::ValidSize.
func validPubKeySize(b []byte) bool { return len(b) > 0 && pubKeyLen(b[0]) == len(b) }

// onCurve reports a fully valid compressed or uncompressed key.
func onCurve(b []byte) bool {
	_, err := btcec.ParsePubKey(b)
	return err == nil
}

// decodeWIF decodes a WIF private key of net, returning the 32-byte key
// and whether it is marked compressed, or nil.
func decodeWIF(s string, net *Network) ([]byte, bool) {
	if len(s) > 60 {
		return nil, false
	}
	raw, err := txscript.Base58Decode(s)
	if err != nil || len(raw) < 4 {
		return nil, false
	}
	body, sum := raw[:len(raw)-4], raw[len(raw)-4:]
	h := sha256.Sum256(body)
	h = sha256.Sum256(h[:])
	if string(h[:4]) != string(sum) || len(body) < 33 || body[0] != net.WIFPrefix {
		return nil, false
	}
	compressed := false
	switch {
	case len(body) == 33:
	case len(body) == 34 && body[33] == 1:
		compressed = true
	default:
		return nil, false
	}
	var s32 btcec.ModNScalar
	if s32.SetByteSlice(body[1:33]) || s32.IsZero() {
		return nil, false
	}
	return append([]byte(nil), body[1:33]...), compressed
}

// encodeWIF is the WIF form of a private key on net.
func encodeWIF(priv []byte, compressed bool, net *Network) string {
	b := append([]byte{net.WIFPrefix}, priv...)
	if compressed {
		b = append(b, 1)
	}
	h := sha256.Sum256(b)
	h = sha256.Sum256(h[:])
	return txscript.Base58Encode(append(b, h[:4]...))
}

// pubFromPriv returns the public key of a private key.
func pubFromPriv(priv []byte, compressed bool) []byte {
	_, pub := btcec.PrivKeyFromBytes(priv)
	if compressed {
		return pub.SerializeCompressed()
	}
	return pub.SerializeUncompressed()
}

// parseUint32 is Core's ToIntegral<uint32_t>: decimal digits only.
func parseUint32(s string) (uint32, bool) {
	if s == "" || len(s) > 20 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
		if v > 0xffffffff {
			return 0, false
		}
	}
	return uint32(v), true
}

// parsePathElem parses one "NUM", "NUM'" or "NUMh" step.
func parsePathElem(e string, apostrophe *bool) (uint32, error) {
	hardened := false
	if n := len(e); n > 0 && (e[n-1] == '\'' || e[n-1] == 'h') {
		hardened = true
		*apostrophe = e[n-1] == '\''
		e = e[:n-1]
	}
	v, ok := parseUint32(e)
	if !ok {
		return 0, fmt.Errorf("Key path value '%s' is not a valid uint32", e)
	}
	if v >= HardenedKeyStart {
		return 0, fmt.Errorf("Key path value %d is out of range", v)
	}
	if hardened {
		v |= HardenedKeyStart
	}
	return v, nil
}

// parseKeyPath parses the path elements after the key (elems[0] is the key
// and is skipped). With a multipath specifier it returns one path per
// value, else a single path.
func parseKeyPath(elems []string, apostrophe *bool, allowMultipath bool) ([][]uint32, error) {
	path := make([]uint32, 0, len(elems)-1)
	multiAt := -1
	var multi []uint32
	for _, e := range elems[1:] {
		if len(e) >= 2 && e[0] == '<' && e[len(e)-1] == '>' {
			if !allowMultipath {
				return nil, fmt.Errorf("Key path value '%s' specifies multipath in a section where multipath is not allowed", e)
			}
			if multiAt >= 0 {
				return nil, errors.New("Multiple multipath key path specifiers found")
			}
			items := strings.Split(e[1:len(e)-1], ";")
			if len(items) < 2 {
				return nil, errors.New("Multipath key path specifiers must have at least two items")
			}
			if len(items) > maxMultipathItems {
				return nil, fmt.Errorf("Multipath key path specifier has %d items; at most %d are supported", len(items), maxMultipathItems)
			}
			seen := make(map[uint32]bool, len(items))
			for _, it := range items {
				v, err := parsePathElem(it, apostrophe)
				if err != nil {
					return nil, err
				}
				if seen[v] {
					return nil, fmt.Errorf("Duplicated key path value %d in multipath specifier", v)
				}
				seen[v] = true
				multi = append(multi, v)
			}
			multiAt = len(path)
			path = append(path, 0)
			continue
		}
		v, err := parsePathElem(e, apostrophe)
		if err != nil {
			return nil, err
		}
		path = append(path, v)
	}
	if multiAt < 0 {
		return [][]uint32{path}, nil
	}
	out := make([][]uint32, len(multi))
	for i, v := range multi {
		p := append([]uint32(nil), path...)
		p[multiAt] = v
		out[i] = p
	}
	return out, nil
}

// parseKey parses a key expression with its optional origin, returning one
// expression per multipath value.
func (p *parser) parseKey(s string, ctx context) ([]*keyExpr, error) {
	parts := strings.Split(s, "]")
	if len(parts) > 2 {
		return nil, errors.New("Multiple ']' characters found for a single pubkey")
	}
	apostrophe := false
	var origin *keyOrigin
	if len(parts) == 2 {
		if parts[0] == "" || parts[0][0] != '[' {
			got := byte(']')
			if parts[0] != "" {
				got = parts[0][0]
			}
			return nil, fmt.Errorf("Key origin start '[ character expected but not found, got '%c' instead", got)
		}
		elems := strings.Split(parts[0][1:], "/")
		if len(elems[0]) != 8 {
			return nil, fmt.Errorf("Fingerprint is not 4 bytes (%d characters instead of 8 characters)", len(elems[0]))
		}
		if !isHex(elems[0]) {
			return nil, fmt.Errorf("Fingerprint '%s' is not hex", elems[0])
		}
		paths, err := parseKeyPath(elems, &apostrophe, false)
		if err != nil {
			return nil, err
		}
		origin = &keyOrigin{path: paths[0]}
		hex.Decode(origin.fingerprint[:], []byte(elems[0]))
		s = parts[1]
	}
	keys, err := p.parseKeyInner(s, ctx, &apostrophe)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		k.origin, k.apostrophe = origin, apostrophe
	}
	return keys, nil
}

// parseKeyInner parses a key expression without origin.
func (p *parser) parseKeyInner(s string, ctx context, apostrophe *bool) ([]*keyExpr, error) {
	permitUncompressed := ctx == ctxTop || ctx == ctxP2SH
	elems := strings.Split(s, "/")
	str := elems[0]
	if str == "" {
		return nil, errors.New("No key provided")
	}
	if isSpace(str[0]) || isSpace(str[len(str)-1]) {
		return nil, fmt.Errorf("Key '%s' is invalid due to whitespace", str)
	}
	if len(elems) == 1 {
		if isHex(str) {
			data, _ := hex.DecodeString(str)
			if validPubKeySize(data) && (data[0] == 6 || data[0] == 7) {
				return nil, errors.New("Hybrid public keys are not allowed")
			}
			if validPubKeySize(data) && onCurve(data) {
				if !permitUncompressed && len(data) != 33 {
					return nil, errors.New("Uncompressed keys are not allowed")
				}
				return []*keyExpr{{pub: data}}, nil
			}
			if len(data) == 32 && ctx == ctxP2TR {
				full := append([]byte{2}, data...)
				if onCurve(full) {
					return []*keyExpr{{pub: full, xonly: true}}, nil
				}
			}
			return nil, fmt.Errorf("Pubkey '%s' is invalid", str)
		}
		if priv, compressed := decodeWIF(str, p.net); priv != nil {
			if !permitUncompressed && !compressed {
				return nil, errors.New("Uncompressed keys are not allowed")
			}
			p.hasPrivate = true
			return []*keyExpr{{pub: pubFromPriv(priv, compressed), xonly: ctx == ctxP2TR, wif: priv, wifCompressed: compressed}}, nil
		}
	}
	ext, err := ParseExtendedKey(str, p.net)
	if err != nil {
		return nil, fmt.Errorf("key '%s' is not valid", str)
	}
	der := deriveNone
	switch last := elems[len(elems)-1]; {
	case len(elems) > 1 && last == "*":
		der = deriveUnhardened
		elems = elems[:len(elems)-1]
	case len(elems) > 1 && (last == "*'" || last == "*h"):
		der = deriveHardened
		*apostrophe = last == "*'"
		elems = elems[:len(elems)-1]
	}
	paths, err := parseKeyPath(elems, apostrophe, true)
	if err != nil {
		return nil, err
	}
	if ext.IsPrivate() {
		p.hasPrivate = true
	}
	out := make([]*keyExpr, len(paths))
	for i, path := range paths {
		out[i] = &keyExpr{ext: ext, path: path, derive: der}
	}
	return out, nil
}
