package v2transport

import (
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"io"

	"github.com/btcsuite/btcd/btcec/v2"
)

// EllSwiftLen is the size of an ElligatorSwift-encoded public key: two
// 32-byte big-endian field elements u and t.
const EllSwiftLen = 64

// fe is a secp256k1 field element. Every helper below returns a
// normalized value, which keeps the magnitude preconditions of
// btcec.FieldVal trivially met; the cost does not matter because these
// functions run once per handshake.
type fe = btcec.FieldVal

func feInt(v uint16) fe {
	var r fe
	r.SetInt(v)
	return r
}

func feAdd(a, b fe) fe {
	a.Add(&b)
	a.Normalize()
	return a
}

func feNeg(a fe) fe {
	a.Normalize()
	a.Negate(1)
	a.Normalize()
	return a
}

func feSub(a, b fe) fe { return feAdd(a, feNeg(b)) }

func feMul(a, b fe) fe {
	a.Mul(&b)
	a.Normalize()
	return a
}

func feSqr(a fe) fe { return feMul(a, a) }

// feDiv returns a/b; b must not be zero.
func feDiv(a, b fe) fe {
	b.Inverse()
	b.Normalize()
	return feMul(a, b)
}

// feSqrt returns a square root of a and whether one exists.
func feSqrt(a fe) (fe, bool) {
	var r fe
	ok := r.SquareRootVal(&a)
	r.Normalize()
	return r, ok
}

func feFromBytes(b []byte) fe {
	var r fe
	r.SetByteSlice(b)
	r.Normalize() // reduces values of p and above, as the BIP requires
	return r
}

// curveRHS returns x^3 + 7.
func curveRHS(x fe) fe {
	return feAdd(feMul(feSqr(x), x), feInt(7))
}

// validX reports whether x is the X coordinate of a point on the curve.
func validX(x fe) bool {
	_, ok := feSqrt(curveRHS(x))
	return ok
}

// sqrtMinus3 is a square root of -3 mod p, the constant of the
// SwiftEC map.
var sqrtMinus3 = func() fe {
	r, ok := feSqrt(feNeg(feInt(3)))
	if !ok {
		panic("v2transport: -3 is not a square")
	}
	return r
}()

// xswiftec maps field elements (u, t) to an X coordinate on the curve,
// the ElligatorSwift decoding of BIP324. It is defined for every input:
// the exceptional u = 0, t = 0 and u^3 + t^2 + 7 = 0 are remapped first.
func xswiftec(u, t fe) fe {
	if u.IsZero() {
		u = feInt(1)
	}
	if t.IsZero() {
		t = feInt(1)
	}
	u3p7 := curveRHS(u)
	if sum := feAdd(u3p7, feSqr(t)); sum.IsZero() {
		t = feAdd(t, t)
	}
	// X = (u^3 + 7 - t^2) / (2t), Y = (X + t) / (sqrt(-3) * u)
	bigX := feDiv(feSub(u3p7, feSqr(t)), feAdd(t, t))
	bigY := feDiv(feAdd(bigX, t), feMul(sqrtMinus3, u))
	half := feDiv(feInt(1), feInt(2))
	x1 := feAdd(u, feMul(feInt(4), feSqr(bigY)))
	if validX(x1) {
		return x1
	}
	xy := feDiv(bigX, bigY)
	x2 := feMul(feSub(feNeg(xy), u), half)
	if validX(x2) {
		return x2
	}
	// One of the three is always on the curve (the SwiftEC property).
	return feMul(feSub(xy, u), half)
}

// xswiftecInv returns a t with xswiftec(u, t) = x for one of the eight
// preimage branches selected by c (0..7), or ok false when that branch
// has no solution.
func xswiftecInv(x, u fe, c int) (t fe, ok bool) {
	var v, s fe
	if c&2 == 0 {
		// x would not be the first valid candidate of the decoder.
		if validX(feSub(feNeg(x), u)) {
			return t, false
		}
		v = x
		// s = -(u^3 + 7) / (u^2 + u*v + v^2)
		den := feAdd(feAdd(feSqr(u), feMul(u, v)), feSqr(v))
		if den.IsZero() {
			return t, false
		}
		s = feNeg(feDiv(curveRHS(u), den))
	} else {
		s = feSub(x, u)
		if s.IsZero() {
			return t, false
		}
		// r = sqrt(-s * (4(u^3 + 7) + 3 s u^2))
		in := feAdd(feMul(feInt(4), curveRHS(u)), feMul(feMul(feInt(3), s), feSqr(u)))
		r, rok := feSqrt(feMul(feNeg(s), in))
		if !rok {
			return t, false
		}
		if c&1 != 0 && r.IsZero() {
			return t, false
		}
		v = feMul(feSub(feDiv(r, s), u), feDiv(feInt(1), feInt(2)))
	}
	w, wok := feSqrt(s)
	if !wok {
		return t, false
	}
	half := feDiv(feInt(1), feInt(2))
	// (1 - sqrt(-3))/2 and (1 + sqrt(-3))/2
	cMinus := feMul(feSub(feInt(1), sqrtMinus3), half)
	cPlus := feMul(feAdd(feInt(1), sqrtMinus3), half)
	switch c & 5 {
	case 0:
		return feNeg(feMul(w, feAdd(feMul(u, cMinus), v))), true
	case 1:
		return feMul(w, feAdd(feMul(u, cPlus), v)), true
	case 4:
		return feMul(w, feAdd(feMul(u, cMinus), v)), true
	default:
		return feNeg(feMul(w, feAdd(feMul(u, cPlus), v))), true
	}
}

// ellswiftDecode returns the X coordinate a 64-byte encoding stands for.
func ellswiftDecode(enc []byte) fe {
	return xswiftec(feFromBytes(enc[:32]), feFromBytes(enc[32:64]))
}

// ellswiftEncodeX writes a uniformly chosen encoding of the curve X
// coordinate x into out, drawing u and the branch from rnd.
func ellswiftEncodeX(rnd io.Reader, x fe, out *[EllSwiftLen]byte) error {
	var buf [33]byte
	// Each attempt succeeds with probability about 1/4; the bound only
	// guards against a broken random source.
	for range 4096 {
		if _, err := io.ReadFull(rnd, buf[:]); err != nil {
			return err
		}
		u := feFromBytes(buf[:32])
		if u.IsZero() {
			continue
		}
		t, ok := xswiftecInv(x, u, int(buf[32]&7))
		if !ok {
			continue
		}
		u.PutBytesUnchecked(out[:32])
		t.PutBytesUnchecked(out[32:])
		return nil
	}
	return errors.New("v2transport: no ElligatorSwift encoding found")
}

// PrivateKey is an ephemeral key with its ElligatorSwift public encoding.
type PrivateKey struct {
	priv btcec.ModNScalar
	// EllSwift is the public key as sent on the wire.
	EllSwift [EllSwiftLen]byte
}

// NewPrivateKey draws a key and a random encoding of its public key from
// rnd (crypto/rand when nil).
func NewPrivateKey(rnd io.Reader) (*PrivateKey, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	var b [32]byte
	for {
		if _, err := io.ReadFull(rnd, b[:]); err != nil {
			return nil, err
		}
		k, err := privateKeyFromBytes(b[:], nil, rnd)
		if err == errBadScalar {
			continue
		}
		return k, err
	}
}

var errBadScalar = errors.New("v2transport: private key out of range")

// privateKeyFromBytes builds a key from a 32-byte scalar; with enc nil a
// fresh encoding is drawn from rnd, otherwise enc is taken as given (the
// test vectors fix it).
func privateKeyFromBytes(b []byte, enc []byte, rnd io.Reader) (*PrivateKey, error) {
	k := &PrivateKey{}
	if overflow := k.priv.SetByteSlice(b); overflow || k.priv.IsZero() {
		return nil, errBadScalar
	}
	if enc != nil {
		copy(k.EllSwift[:], enc)
		return k, nil
	}
	var pub btcec.JacobianPoint
	btcec.ScalarBaseMultNonConst(&k.priv, &pub)
	pub.ToAffine()
	if err := ellswiftEncodeX(rnd, pub.X, &k.EllSwift); err != nil {
		return nil, err
	}
	return k, nil
}

// ecdhX returns the X coordinate of priv times the point whose X the
// peer's encoding gives (either lift of X gives the same X).
func ecdhX(priv *btcec.ModNScalar, theirs []byte) [32]byte {
	x := ellswiftDecode(theirs)
	var y fe
	btcec.DecompressY(&x, false, &y)
	var p, r btcec.JacobianPoint
	p.X, p.Y = x, y
	p.Z.SetInt(1)
	btcec.ScalarMultNonConst(priv, &p, &r)
	r.ToAffine()
	var out [32]byte
	r.X.Normalize()
	r.X.PutBytes(&out)
	return out
}

// ecdhTag is the BIP340 tagged-hash prefix for the shared secret.
var ecdhTag = func() [64]byte {
	h := sha256.Sum256([]byte("bip324_ellswift_xonly_ecdh"))
	var t [64]byte
	copy(t[:], h[:])
	copy(t[32:], h[:])
	return t
}()

// SharedSecret computes the BIP324 ECDH secret between our key and the
// peer's encoding: a tagged hash of the initiator's encoding, the
// responder's encoding and the shared X coordinate.
func (k *PrivateKey) SharedSecret(theirs []byte, initiator bool) [32]byte {
	x := ecdhX(&k.priv, theirs)
	h := sha256.New()
	h.Write(ecdhTag[:])
	if initiator {
		h.Write(k.EllSwift[:])
		h.Write(theirs[:EllSwiftLen])
	} else {
		h.Write(theirs[:EllSwiftLen])
		h.Write(k.EllSwift[:])
	}
	h.Write(x[:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}
