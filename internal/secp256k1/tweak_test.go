package secp256k1

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
)

// btcecTweak is TaprootTweak on btcec.
func btcecTweak(internal, tweak *[32]byte) (x [32]byte, oddY bool, ok bool) {
	pk, err := schnorr.ParsePubKey(internal[:])
	if err != nil {
		return x, false, false
	}
	var t btcec.ModNScalar
	if t.SetBytes(tweak) != 0 {
		return x, false, false
	}
	var P, T, Q btcec.JacobianPoint
	pk.AsJacobian(&P)
	btcec.ScalarBaseMultNonConst(&t, &T)
	btcec.AddNonConst(&P, &T, &Q)
	if (Q.X.IsZero() && Q.Y.IsZero()) || Q.Z.IsZero() {
		return x, false, false
	}
	Q.ToAffine()
	Q.X.PutBytesUnchecked(x[:])
	return x, Q.Y.IsOdd(), true
}

func TestTaprootTweakMatchesBtcec(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 61))
	type tc struct{ internal, tweak [32]byte }
	var cases []tc
	for range 2000 {
		k := randPriv(rng)
		var c tc
		copy(c.internal[:], schnorr.SerializePubKey(k.PubKey()))
		c.tweak = randBytes32(rng)
		switch rng.IntN(6) {
		case 0:
			flipBit(c.internal[:], rng)
		case 1:
			// Q at infinity: t = -d for the key's even-y secret d.
			d := new(big.Int).SetBytes(k.Serialize())
			if schnorrKeyNegated(k) {
				d.Sub(bigN, d)
			}
			c.tweak = bigBytes(new(big.Int).Sub(bigN, d))
		case 2:
			c.tweak = bigBytes(new(big.Int).Add(bigN, big.NewInt(int64(rng.IntN(3)))))
		case 3:
			c.tweak = [32]byte{}
		}
		cases = append(cases, c)
	}
	cases = append(cases, tc{internal: bigBytes(bigP)}, tc{internal: bigBytes(big.NewInt(5))})
	for i, c := range cases {
		x, odd, ok := TaprootTweak(&c.internal, &c.tweak)
		wx, wodd, wok := btcecTweak(&c.internal, &c.tweak)
		if ok != wok || (ok && (x != wx || odd != wodd)) {
			t.Fatalf("case %d: internal %x tweak %x: got %x %v %v, btcec %x %v %v", i, c.internal, c.tweak, x, odd, ok, wx, wodd, wok)
		}
	}
}

func TestTaprootTweakAllocs(t *testing.T) {
	internal := genG.x
	var ib [32]byte
	internal.bytes(&ib)
	tw := [32]byte{7}
	if n := testing.AllocsPerRun(20, func() { TaprootTweak(&ib, &tw) }); n != 0 {
		t.Errorf("%v allocs per tweak", n)
	}
}
