package descriptor

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/btcsuite/btcd/btcec/v2"

	"github.com/btcnode/btcd/txscript"
)

// HardenedKeyStart is the first hardened child index (BIP32's 2^31).
const HardenedKeyStart = 0x80000000

// serializedKeyLen is the length of a serialized extended key before its
// base58check checksum.
const serializedKeyLen = 78

// ErrDerive is returned when a BIP32 child cannot be derived: the child
// would be invalid (probability below 2^-127), the key is already at depth
// 255, or a hardened child of a public key was asked for.
var ErrDerive = errors.New("cannot derive child key")

// ExtendedKey is a BIP32 extended key, private or public.
type ExtendedKey struct {
	depth     uint8
	parentFP  [4]byte
	child     uint32
	chainCode [32]byte
	pub       [33]byte // compressed public key, set for private keys too
	priv      [32]byte
	isPriv    bool
	// point is pub decompressed, kept because every public child
	// derivation needs it and decompressing costs a square root.
	point *btcec.PublicKey
}

// NewMasterKey derives the master extended private key of a BIP32 seed
// (16 to 64 bytes).
func NewMasterKey(seed []byte) (*ExtendedKey, error) {
	if len(seed) < 16 || len(seed) > 64 {
		return nil, fmt.Errorf("seed of %d bytes, want 16 to 64", len(seed))
	}
	mac := hmac.New(sha512.New, []byte("Bitcoin seed"))
	mac.Write(seed)
	sum := mac.Sum(nil)
	k := &ExtendedKey{isPriv: true}
	copy(k.chainCode[:], sum[32:])
	var s btcec.ModNScalar
	if s.SetByteSlice(sum[:32]) || s.IsZero() {
		return nil, ErrDerive
	}
	k.setPriv(&s)
	return k, nil
}

// setPriv stores a private scalar and its public key.
func (k *ExtendedKey) setPriv(s *btcec.ModNScalar) {
	k.priv = s.Bytes()
	k.isPriv = true
	k.point = btcec.PrivKeyFromScalar(s).PubKey()
	copy(k.pub[:], k.point.SerializeCompressed())
}

// ParseExtendedKey decodes a base58check extended key of net (xpub/xprv on
// mainnet, tpub/tprv elsewhere), with Core's validity rules: a depth-0 key
// has no parent fingerprint or child number, a private key is 0x00 || k
// with 0 < k < n, and a public key is a compressed curve point.
func ParseExtendedKey(s string, net *Network) (*ExtendedKey, error) {
	raw, err := txscript.Base58Decode(s)
	if err != nil || len(raw) != serializedKeyLen+4 {
		return nil, errors.New("not a base58 extended key")
	}
	body, sum := raw[:serializedKeyLen], raw[serializedKeyLen:]
	h := sha256.Sum256(body)
	h = sha256.Sum256(h[:])
	if string(h[:4]) != string(sum) {
		return nil, errors.New("invalid checksum")
	}
	var version [4]byte
	copy(version[:], body[:4])
	k := &ExtendedKey{depth: body[4], child: binary.BigEndian.Uint32(body[9:13])}
	copy(k.parentFP[:], body[5:9])
	copy(k.chainCode[:], body[13:45])
	if k.depth == 0 && (k.parentFP != [4]byte{} || k.child != 0) {
		return nil, errors.New("zero depth with non-zero parent fingerprint or index")
	}
	data := body[45:78]
	switch version {
	case net.XPrvVersion:
		if data[0] != 0 {
			return nil, fmt.Errorf("invalid private key prefix %02x", data[0])
		}
		var s btcec.ModNScalar
		if s.SetByteSlice(data[1:]) || s.IsZero() {
			return nil, errors.New("private key not in 1..n-1")
		}
		k.setPriv(&s)
	case net.XPubVersion:
		if data[0] != 2 && data[0] != 3 {
			return nil, fmt.Errorf("invalid public key prefix %02x", data[0])
		}
		pt, err := btcec.ParsePubKey(data)
		if err != nil {
			return nil, errors.New("public key is not a curve point")
		}
		copy(k.pub[:], data)
		k.point = pt
	default:
		return nil, errors.New("unknown extended key version")
	}
	return k, nil
}

// serialize appends the 78-byte serialization with the given version.
func (k *ExtendedKey) serialize(version [4]byte, private bool) string {
	b := make([]byte, 0, serializedKeyLen+4)
	b = append(b, version[:]...)
	b = append(b, k.depth)
	b = append(b, k.parentFP[:]...)
	b = binary.BigEndian.AppendUint32(b, k.child)
	b = append(b, k.chainCode[:]...)
	if private {
		b = append(b, 0)
		b = append(b, k.priv[:]...)
	} else {
		b = append(b, k.pub[:]...)
	}
	h := sha256.Sum256(b)
	h = sha256.Sum256(h[:])
	return txscript.Base58Encode(append(b, h[:4]...))
}

// String returns k's base58 form on net: xprv/tprv for a private key,
// xpub/tpub for a public one.
func (k *ExtendedKey) String(net *Network) string {
	if k.isPriv {
		return k.serialize(net.XPrvVersion, true)
	}
	return k.serialize(net.XPubVersion, false)
}

// PublicString returns the xpub/tpub form of k on net.
func (k *ExtendedKey) PublicString(net *Network) string { return k.serialize(net.XPubVersion, false) }

// IsPrivate reports whether k holds its private key.
func (k *ExtendedKey) IsPrivate() bool { return k.isPriv }

// Neuter returns k without its private key.
func (k *ExtendedKey) Neuter() *ExtendedKey {
	n := *k
	n.isPriv, n.priv = false, [32]byte{}
	return &n
}

// PubKey returns the compressed public key.
func (k *ExtendedKey) PubKey() []byte { return append([]byte(nil), k.pub[:]...) }

// PrivKey returns the 32-byte private key, or nil for a public key.
func (k *ExtendedKey) PrivKey() []byte {
	if !k.isPriv {
		return nil
	}
	return append([]byte(nil), k.priv[:]...)
}

// Depth returns the number of derivations from the master key.
func (k *ExtendedKey) Depth() uint8 { return k.depth }

// ParentFingerprint returns the fingerprint of the parent key (zero for a
// master key).
func (k *ExtendedKey) ParentFingerprint() [4]byte { return k.parentFP }

// ChildNumber returns the index k was derived with from its parent.
func (k *ExtendedKey) ChildNumber() uint32 { return k.child }

// Fingerprint returns the first four bytes of HASH160 of the public key,
// the identifier children record as their parent and key origins start
// from.
func (k *ExtendedKey) Fingerprint() [4]byte {
	h := txscript.Hash160(k.pub[:])
	return [4]byte(h[:4])
}

// Child derives child i (hardened when i >= HardenedKeyStart, which needs
// the private key). It fails with ErrDerive in the cases where Core's
// derivation fails, rather than skipping to the next index as BIP32
// suggests, so that descriptors expand to the same scripts as Core's.
func (k *ExtendedKey) Child(i uint32) (*ExtendedKey, error) {
	hardened := i >= HardenedKeyStart
	if k.depth == 255 || (hardened && !k.isPriv) {
		return nil, ErrDerive
	}
	var data [37]byte
	if hardened {
		copy(data[1:33], k.priv[:])
	} else {
		copy(data[:33], k.pub[:])
	}
	binary.BigEndian.PutUint32(data[33:], i)
	mac := hmac.New(sha512.New, k.chainCode[:])
	mac.Write(data[:])
	sum := mac.Sum(nil)
	var tweak btcec.ModNScalar
	if tweak.SetByteSlice(sum[:32]) {
		return nil, ErrDerive
	}
	c := &ExtendedKey{depth: k.depth + 1, parentFP: k.Fingerprint(), child: i}
	copy(c.chainCode[:], sum[32:])
	if k.isPriv {
		var s btcec.ModNScalar
		s.SetBytes(&k.priv)
		s.Add(&tweak)
		if s.IsZero() {
			return nil, ErrDerive
		}
		c.setPriv(&s)
		return c, nil
	}
	parent := k.point
	if parent == nil {
		var err error
		if parent, err = btcec.ParsePubKey(k.pub[:]); err != nil {
			return nil, ErrDerive
		}
	}
	var p, t, sumPt btcec.JacobianPoint
	parent.AsJacobian(&p)
	btcec.ScalarBaseMultNonConst(&tweak, &t)
	btcec.AddNonConst(&p, &t, &sumPt)
	if (sumPt.X.IsZero() && sumPt.Y.IsZero()) || sumPt.Z.IsZero() {
		return nil, ErrDerive
	}
	sumPt.ToAffine()
	c.point = btcec.NewPublicKey(&sumPt.X, &sumPt.Y)
	copy(c.pub[:], c.point.SerializeCompressed())
	return c, nil
}

// Derive follows path from k, child by child.
func (k *ExtendedKey) Derive(path []uint32) (*ExtendedKey, error) {
	cur := k
	for _, i := range path {
		next, err := cur.Child(i)
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}
