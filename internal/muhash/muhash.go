package muhash

import (
	"crypto/sha256"
	"math/big"
	"math/bits"
)

const (
	// modC defines the modulus p = 2^3072 - modC (Core's MuHash3072).
	modC = 1103717
	// numBits is the size of the group's numbers.
	numBits = 3072
	// elemWords32 is the number of 32-bit keystream words per element.
	elemWords32 = numBits / 32
	// numWords is the number of big.Word limbs of a 3072-bit number.
	numWords = numBits / bits.UintSize
	// Size is the length of a MuHash digest.
	Size = sha256.Size
)

var (
	modulus = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), numBits), big.NewInt(modC))
	modCBig = big.NewInt(modC)
)

// MuHash is the MuHash3072 of a multiset of byte strings. The zero value
// is the empty set. A MuHash must not be copied after first use (its
// scratch numbers alias arrays inside it); use it through a pointer.
type MuHash struct {
	ready bool
	num   big.Int // product of inserted elements mod p
	den   big.Int // product of removed elements mod p

	// Scratch reused by every operation so that Insert and Remove do not
	// allocate: elem aliases elemLimbs; a and b hold products and folds.
	elem      big.Int
	elemLimbs [numWords]big.Word
	ks        [elemWords32]uint32
	a, b, hi  big.Int
	lo        big.Int
}

// New returns the MuHash of the empty set.
func New() *MuHash { return new(MuHash) }

func (m *MuHash) init() {
	if !m.ready {
		m.num.SetInt64(1)
		m.den.SetInt64(1)
		m.ready = true
	}
}

// Insert adds data to the set.
func (m *MuHash) Insert(data []byte) {
	m.init()
	m.mulMod(&m.num, m.toNum(data))
}

// Remove takes data out of the set. Removing an element that was never
// inserted is allowed (the set is then a quotient, as in Core); the digest
// only equals that of a plain set once every removal is matched.
func (m *MuHash) Remove(data []byte) {
	m.init()
	m.mulMod(&m.den, m.toNum(data))
}

// Combine adds every element of o to m (a union of multisets).
func (m *MuHash) Combine(o *MuHash) {
	m.init()
	if !o.ready {
		return
	}
	m.mulMod(&m.num, &o.num)
	m.mulMod(&m.den, &o.den)
}

// Finalize returns the digest of the set: SHA256 of numerator /
// denominator mod p as 384 little-endian bytes. Core prints it
// byte-reversed. m is not modified.
func (m *MuHash) Finalize() [Size]byte {
	m.init()
	var r big.Int
	if m.den.Cmp(big.NewInt(1)) == 0 {
		r.Set(&m.num)
	} else {
		// p is prime and den is a product of numbers that are nonzero
		// mod p (except with negligible probability), so the inverse
		// exists.
		var inv big.Int
		if inv.ModInverse(&m.den, modulus) == nil {
			inv.SetInt64(0)
		}
		r.Mul(&m.num, &inv)
		r.Mod(&r, modulus)
	}
	var buf [numBits / 8]byte
	r.FillBytes(buf[:])
	for i, j := 0, len(buf)-1; i < j; i, j = i+1, j-1 {
		buf[i], buf[j] = buf[j], buf[i]
	}
	return sha256.Sum256(buf[:])
}

// toNum maps data to its group element: the ChaCha20 keystream keyed by
// SHA256(data), read as a 3072-bit little-endian number. The result
// aliases m's scratch and is valid until the next call.
func (m *MuHash) toNum(data []byte) *big.Int {
	key := sha256.Sum256(data)
	keystreamWords(&key, &m.ks)
	if bits.UintSize == 64 {
		for i := range m.elemLimbs {
			m.elemLimbs[i] = big.Word(uint64(m.ks[2*i]) | uint64(m.ks[2*i+1])<<32)
		}
	} else {
		for i := range m.elemLimbs {
			m.elemLimbs[i] = big.Word(m.ks[i])
		}
	}
	return m.elem.SetBits(m.elemLimbs[:])
}

// mulMod sets z = z*y mod p. y may exceed p (keystream numbers can), but
// both are below 2^3072.
func (m *MuHash) mulMod(z, y *big.Int) {
	m.a.Mul(z, y)
	cur, next := &m.a, &m.b
	// Fold x = hi*2^3072 + lo into lo + modC*hi: from below 2^6144 the
	// first fold leaves less than 2^3094, the second less than
	// 2^3072 + 2^44, which is below 2p.
	for cur.BitLen() > numBits {
		w := cur.Bits()
		m.hi.SetBits(w[numWords:])
		m.lo.SetBits(w[:numWords])
		next.Mul(&m.hi, modCBig)
		next.Add(next, &m.lo)
		cur, next = next, cur
	}
	for cur.Cmp(modulus) >= 0 {
		cur.Sub(cur, modulus)
	}
	z.Set(cur)
}
