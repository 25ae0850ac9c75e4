package secp256k1

import (
	"fmt"
	"math/big"
	"math/rand/v2"

	"github.com/btcsuite/btcd/btcec/v2"
	btcecdsa "github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
)

// ecdsaCase is one ECDSA verification: serialized key, r and s as 32
// big-endian bytes each (any value, including >= n), and the hash.
type ecdsaCase struct {
	pub  []byte
	r, s [32]byte
	msg  [32]byte
}

// schnorrCase is one BIP340 verification.
type schnorrCase struct {
	pub [32]byte
	sig [64]byte
	msg [32]byte
}

func oursECDSA(c *ecdsaCase) bool {
	var pk PublicKey
	if !ParsePubKey(c.pub, &pk) {
		return false
	}
	var r, s Scalar
	if r.SetBytes(&c.r) || s.SetBytes(&c.s) {
		return false
	}
	return VerifyECDSA(&r, &s, &pk, &c.msg)
}

func btcecECDSA(c *ecdsaCase) bool {
	pk, err := btcec.ParsePubKey(c.pub)
	if err != nil {
		return false
	}
	var r, s btcec.ModNScalar
	if r.SetBytes(&c.r) != 0 || s.SetBytes(&c.s) != 0 || r.IsZero() || s.IsZero() {
		return false
	}
	return btcecdsa.NewSignature(&r, &s).Verify(c.msg[:], pk)
}

func oursSchnorr(c *schnorrCase) bool { return VerifySchnorr(&c.sig, &c.pub, &c.msg) }

func btcecSchnorr(c *schnorrCase) bool {
	pk, err := schnorr.ParsePubKey(c.pub[:])
	if err != nil {
		return false
	}
	sig, err := schnorr.ParseSignature(c.sig[:])
	if err != nil {
		return false
	}
	return sig.Verify(c.msg[:], pk)
}

func randBytes32(rng *rand.Rand) [32]byte {
	var b [32]byte
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

func randPriv(rng *rand.Rand) *btcec.PrivateKey {
	for {
		b := randBytes32(rng)
		var k btcec.ModNScalar
		if k.SetBytes(&b) == 0 && !k.IsZero() {
			return btcec.PrivKeyFromScalar(&k)
		}
	}
}

func flipBit(b []byte, rng *rand.Rand) {
	i := rng.IntN(len(b) * 8)
	b[i/8] ^= 1 << (i % 8)
}

// genECDSA makes a random signed case, then (most of the time) damages
// it: a flipped bit in the key, r, s or hash, a high S, or a key in
// another encoding.
func genECDSA(rng *rand.Rand) ecdsaCase {
	k := randPriv(rng)
	var c ecdsaCase
	c.msg = randBytes32(rng)
	sig := btcecdsa.Sign(k, c.msg[:])
	r, s := sig.R(), sig.S()
	r.PutBytes(&c.r)
	s.PutBytes(&c.s)
	switch rng.IntN(4) {
	case 0:
		c.pub = k.PubKey().SerializeUncompressed()
	case 1:
		c.pub = k.PubKey().SerializeUncompressed()
		c.pub[0] = 0x06 | c.pub[64]&1
	default:
		c.pub = k.PubKey().SerializeCompressed()
	}
	switch rng.IntN(10) {
	case 0:
		flipBit(c.pub, rng)
	case 1:
		flipBit(c.r[:], rng)
	case 2:
		flipBit(c.s[:], rng)
	case 3:
		flipBit(c.msg[:], rng)
	case 4:
		s.Negate()
		s.PutBytes(&c.s)
	case 5:
		c.pub[0] ^= byte(1 << rng.IntN(3))
	}
	return c
}

// genSchnorr is genECDSA for BIP340.
func genSchnorr(rng *rand.Rand) schnorrCase {
	k := randPriv(rng)
	var c schnorrCase
	c.msg = randBytes32(rng)
	sig, err := schnorr.Sign(k, c.msg[:], schnorr.FastSign())
	if err != nil {
		panic(err)
	}
	copy(c.sig[:], sig.Serialize())
	copy(c.pub[:], schnorr.SerializePubKey(k.PubKey()))
	switch rng.IntN(8) {
	case 0:
		flipBit(c.pub[:], rng)
	case 1:
		flipBit(c.sig[:32], rng)
	case 2:
		flipBit(c.sig[32:], rng)
	case 3:
		flipBit(c.msg[:], rng)
	}
	return c
}

func bigBytes(v *big.Int) [32]byte {
	var b [32]byte
	new(big.Int).Mod(v, new(big.Int).Lsh(big.NewInt(1), 256)).FillBytes(b[:])
	return b
}

// ecdsaEdgeCases builds the inputs that random signatures practically
// never reach.
func ecdsaEdgeCases(rng *rand.Rand) []ecdsaCase {
	var out []ecdsaCase
	k := randPriv(rng)
	msg := randBytes32(rng)
	sig := btcecdsa.Sign(k, msg[:])
	r, s := sig.R(), sig.S()
	var rb, sb [32]byte
	r.PutBytes(&rb)
	s.PutBytes(&sb)
	pubC := k.PubKey().SerializeCompressed()
	pubU := k.PubKey().SerializeUncompressed()
	valid := ecdsaCase{pub: pubC, r: rb, s: sb, msg: msg}
	out = append(out, valid)
	nb := bigBytes(bigN)
	ones := bigBytes(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)))
	for _, v := range [][32]byte{{}, nb, bigBytes(new(big.Int).Add(bigN, big.NewInt(1))), ones, bigBytes(bigP)} {
		c := valid
		c.r = v
		out = append(out, c)
		c = valid
		c.s = v
		out = append(out, c)
	}
	// r + n and s + n encode the same residues but overflow.
	c := valid
	c.r = bigBytes(new(big.Int).Add(new(big.Int).SetBytes(rb[:]), bigN))
	out = append(out, c)
	// High S.
	c = valid
	c.s = bigBytes(new(big.Int).Sub(bigN, new(big.Int).SetBytes(sb[:])))
	out = append(out, c)
	// Hash >= n and hash = 0 / all ones, with valid signatures.
	for _, m := range [][32]byte{{}, nb, ones, bigBytes(new(big.Int).Add(bigN, big.NewInt(5)))} {
		sg := btcecdsa.Sign(k, m[:])
		c := ecdsaCase{pub: pubU, msg: m}
		rr, ss := sg.R(), sg.S()
		rr.PutBytes(&c.r)
		ss.PutBytes(&c.s)
		out = append(out, c)
	}
	// Keys: every tag byte, lengths, x >= p, off-curve points, wrong
	// hybrid parity.
	for tag := range 9 {
		c := valid
		c.pub = append([]byte{byte(tag)}, pubC[1:]...)
		out = append(out, c)
		c = valid
		c.pub = append([]byte{byte(tag)}, pubU[1:]...)
		out = append(out, c)
	}
	c = valid
	c.pub = append([]byte(nil), pubU...)
	c.pub[0] = 0x06 | (pubU[64]&1 ^ 1)
	out = append(out, c)
	c = valid
	c.pub = pubC[:32]
	out = append(out, c)
	pb := bigBytes(bigP)
	for _, x := range [][32]byte{pb, ones, bigBytes(new(big.Int).Add(bigP, big.NewInt(1)))} {
		out = append(out, ecdsaCase{pub: append([]byte{0x02}, x[:]...), r: rb, s: sb, msg: msg})
		out = append(out, ecdsaCase{pub: append(append([]byte{0x04}, x[:]...), pubU[33:]...), r: rb, s: sb, msg: msg})
		out = append(out, ecdsaCase{pub: append(append([]byte{0x04}, pubU[1:33]...), x[:]...), r: rb, s: sb, msg: msg})
	}
	off := append([]byte(nil), pubU...)
	off[64] ^= 1
	out = append(out, ecdsaCase{pub: off, r: rb, s: sb, msg: msg})
	// x with no point (x^3 + 7 not a square), compressed.
	for x := int64(0); x < 40; x++ {
		xb := bigBytes(big.NewInt(x))
		out = append(out, ecdsaCase{pub: append([]byte{0x02}, xb[:]...), r: rb, s: sb, msg: msg})
	}
	out = append(out, rPlusNCases(rng)...)
	out = append(out, infinityCases(rng)...)
	return out
}

// rPlusNCases constructs signatures whose R has x in [n, p), so that the
// signature's r is R.x - n: the verifier must try r + n. The key is made
// to fit: with u1 = e/s, u2 = r/s, Q = (R - u1*G)/u2.
func rPlusNCases(rng *rand.Rand) []ecdsaCase {
	var out []ecdsaCase
	for t := int64(1); len(out) < 12 && t < 1000; t++ {
		x := new(big.Int).Add(bigN, big.NewInt(t))
		xb := bigBytes(x)
		var xf btcec.FieldVal
		xf.SetBytes(&xb)
		var y btcec.FieldVal
		if !btcec.DecompressY(&xf, t%2 == 0, &y) {
			continue
		}
		var R btcec.JacobianPoint
		R.X, R.Y = xf, y
		R.Z.SetInt(1)
		r := new(big.Int).Sub(x, bigN)
		s := randBig(rng)
		s.Mod(s, bigN)
		msg := randBytes32(rng)
		e := new(big.Int).SetBytes(msg[:])
		sInv := new(big.Int).ModInverse(s, bigN)
		u1 := new(big.Int).Mul(e, sInv)
		u1.Mod(u1, bigN)
		u2 := new(big.Int).Mul(r, sInv)
		u2.Mod(u2, bigN)
		// Q = u2^-1 * (R - u1*G).
		var u1s, u2inv btcec.ModNScalar
		u1b := bigBytes(new(big.Int).Sub(bigN, u1))
		u1s.SetBytes(&u1b)
		u2ib := bigBytes(new(big.Int).ModInverse(u2, bigN))
		u2inv.SetBytes(&u2ib)
		var mG, sum, Q btcec.JacobianPoint
		btcec.ScalarBaseMultNonConst(&u1s, &mG)
		btcec.AddNonConst(&R, &mG, &sum)
		btcec.ScalarMultNonConst(&u2inv, &sum, &Q)
		Q.ToAffine()
		pub := btcec.NewPublicKey(&Q.X, &Q.Y).SerializeCompressed()
		c := ecdsaCase{pub: pub, r: bigBytes(r), s: bigBytes(s), msg: msg}
		out = append(out, c)
		// The same with r = R.x itself, which overflows n.
		c.r = xb
		out = append(out, c)
		// And with r + 1: below p - n but matching neither candidate.
		c.r = bigBytes(new(big.Int).Add(r, big.NewInt(1)))
		out = append(out, c)
	}
	return out
}

// infinityCases makes u1*G + u2*Q the point at infinity: with Q = d*G,
// e = -r*d (mod n) gives u1 + u2*d = 0.
func infinityCases(rng *rand.Rand) []ecdsaCase {
	var out []ecdsaCase
	for range 4 {
		k := randPriv(rng)
		d := new(big.Int).SetBytes(k.Serialize())
		r := randBig(rng)
		r.Mod(r, bigN)
		s := randBig(rng)
		s.Mod(s, bigN)
		e := new(big.Int).Mul(r, d)
		e.Neg(e).Mod(e, bigN)
		out = append(out, ecdsaCase{pub: k.PubKey().SerializeCompressed(), r: bigBytes(r), s: bigBytes(s), msg: bigBytes(e)})
	}
	return out
}

// schnorrEdgeCases are BIP340's rejection rules.
func schnorrEdgeCases(rng *rand.Rand) []schnorrCase {
	var out []schnorrCase
	k := randPriv(rng)
	msg := randBytes32(rng)
	sig, _ := schnorr.Sign(k, msg[:], schnorr.FastSign())
	var valid schnorrCase
	copy(valid.sig[:], sig.Serialize())
	copy(valid.pub[:], schnorr.SerializePubKey(k.PubKey()))
	valid.msg = msg
	out = append(out, valid)
	ones := bigBytes(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)))
	pb, nb := bigBytes(bigP), bigBytes(bigN)
	for _, v := range [][32]byte{{}, pb, nb, ones, bigBytes(new(big.Int).Add(bigP, big.NewInt(1)))} {
		c := valid
		copy(c.sig[:32], v[:])
		out = append(out, c)
		c = valid
		copy(c.sig[32:], v[:])
		out = append(out, c)
		c = valid
		c.pub = v
		out = append(out, c)
	}
	// s + n: same residue, but out of range.
	c := valid
	sv := new(big.Int).SetBytes(valid.sig[32:])
	if sv.Cmp(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), bigN)) < 0 {
		b := bigBytes(sv.Add(sv, bigN))
		copy(c.sig[32:], b[:])
		out = append(out, c)
	}
	// Keys with no point.
	for x := int64(0); x < 20; x++ {
		c := valid
		c.pub = bigBytes(big.NewInt(x))
		out = append(out, c)
	}
	// R with odd y: s = k + e*d for a nonce whose R = k*G has odd y.
	d := new(big.Int).SetBytes(k.Serialize())
	pub := valid.pub
	for len(out) < 200 {
		nonce := randPriv(rng)
		R := nonce.PubKey().SerializeCompressed()
		var c schnorrCase
		c.pub = pub
		c.msg = randBytes32(rng)
		copy(c.sig[:32], R[1:])
		e := challenge(&c)
		kk := new(big.Int).SetBytes(nonce.Serialize())
		if R[0] == 0x02 {
			// Even R: a valid signature (with the key's parity folded in
			// as BIP340 signing does).
			if schnorrKeyNegated(k) {
				d2 := new(big.Int).Sub(bigN, d)
				s := new(big.Int).Add(kk, new(big.Int).Mul(e, d2))
				b := bigBytes(s.Mod(s, bigN))
				copy(c.sig[32:], b[:])
			} else {
				s := new(big.Int).Add(kk, new(big.Int).Mul(e, d))
				b := bigBytes(s.Mod(s, bigN))
				copy(c.sig[32:], b[:])
			}
			out = append(out, c)
			continue
		}
		dd := d
		if schnorrKeyNegated(k) {
			dd = new(big.Int).Sub(bigN, d)
		}
		s := new(big.Int).Add(kk, new(big.Int).Mul(e, dd))
		b := bigBytes(s.Mod(s, bigN))
		copy(c.sig[32:], b[:])
		out = append(out, c)
		// R at infinity: s*G = e*P with s = e*d.
		s = new(big.Int).Mul(e, dd)
		b = bigBytes(s.Mod(s, bigN))
		copy(c.sig[32:], b[:])
		out = append(out, c)
	}
	return out
}

// schnorrKeyNegated reports whether k's public key has odd y (BIP340
// then signs with n - k).
func schnorrKeyNegated(k *btcec.PrivateKey) bool {
	return k.PubKey().SerializeCompressed()[0] == 0x03
}

// challenge computes BIP340's e for a case (with its r and key).
func challenge(c *schnorrCase) *big.Int {
	h := schnorrChallenge(c)
	return new(big.Int).Mod(new(big.Int).SetBytes(h[:]), bigN)
}

func randBig(rng *rand.Rand) *big.Int {
	b := randBytes32(rng)
	return new(big.Int).SetBytes(b[:])
}

func (c *ecdsaCase) String() string {
	return fmt.Sprintf("pub %x r %x s %x msg %x", c.pub, c.r, c.s, c.msg)
}

func (c *schnorrCase) String() string {
	return fmt.Sprintf("pub %x sig %x msg %x", c.pub, c.sig, c.msg)
}
