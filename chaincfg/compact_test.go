package chaincfg

import (
	"math/big"
	"testing"
)

func hexBig(t testing.TB, s string) *big.Int {
	t.Helper()
	n, ok := new(big.Int).SetString(s, 16)
	if !ok {
		t.Fatalf("bad hex %q", s)
	}
	return n
}

// TestCompactCoreVectors checks the SetCompact/GetCompact cases from Bitcoin
// Core's arith_uint256 unit tests: decoded magnitude, both flags, and the
// re-encoding (with the sign re-applied when the flag was set).
func TestCompactCoreVectors(t *testing.T) {
	tests := []struct {
		bits      uint32
		magnitude string
		negative  bool
		overflow  bool
		reencode  uint32
	}{
		{0x00000000, "0", false, false, 0},
		{0x00123456, "0", false, false, 0},
		{0x01003456, "0", false, false, 0},
		{0x02000056, "0", false, false, 0},
		{0x03000000, "0", false, false, 0},
		{0x04000000, "0", false, false, 0},
		{0x00923456, "0", false, false, 0},
		{0x01803456, "0", false, false, 0},
		{0x02800056, "0", false, false, 0},
		{0x03800000, "0", false, false, 0},
		{0x04800000, "0", false, false, 0},
		{0x01123456, "12", false, false, 0x01120000},
		{0x01fedcba, "7e", true, false, 0x01fe0000},
		{0x02123456, "1234", false, false, 0x02123400},
		{0x03123456, "123456", false, false, 0x03123456},
		{0x04123456, "12345600", false, false, 0x04123456},
		{0x04923456, "12345600", true, false, 0x04923456},
		{0x05009234, "92340000", false, false, 0x05009234},
		{0x20123456, "1234560000000000000000000000000000000000000000000000000000000000", false, false, 0x20123456},
		{0x1d00ffff, "ffff0000000000000000000000000000000000000000000000000000", false, false, 0x1d00ffff},
	}
	for _, tc := range tests {
		mag, neg, ovf := DecodeCompact(tc.bits)
		if mag.Cmp(hexBig(t, tc.magnitude)) != 0 || neg != tc.negative || ovf != tc.overflow {
			t.Errorf("DecodeCompact(%08x) = %x,%v,%v; want %s,%v,%v",
				tc.bits, mag, neg, ovf, tc.magnitude, tc.negative, tc.overflow)
			continue
		}
		if got := BigToCompact(CompactToBig(tc.bits)); got != tc.reencode {
			t.Errorf("BigToCompact(CompactToBig(%08x)) = %08x, want %08x", tc.bits, got, tc.reencode)
		}
	}

	// The high mantissa bit must never be emitted as a sign bit.
	if got := BigToCompact(big.NewInt(0x80)); got != 0x02008000 {
		t.Errorf("BigToCompact(0x80) = %08x, want 02008000", got)
	}
}

// TestCompactRoundTripAllSizes re-encodes mantissas at every length, which
// exercises mantissas that straddle machine words.
func TestCompactRoundTripAllSizes(t *testing.T) {
	for size := uint32(3); size <= 32; size++ {
		for _, m := range []uint32{0x123456, 0x7fffff, 0x010000, 0x00ffff, 0x001234} {
			bits := size<<24 | m
			if m == 0x001234 {
				// A mantissa with a spare high byte re-encodes one
				// size smaller.
				want := (size-1)<<24 | m<<8
				if got := BigToCompact(CompactToBig(bits)); got != want {
					t.Errorf("%08x re-encoded as %08x, want %08x", bits, got, want)
				}
				continue
			}
			if got := BigToCompact(CompactToBig(bits)); got != bits {
				t.Errorf("%08x re-encoded as %08x", bits, got)
			}
		}
	}
}

func TestCompactOverflow(t *testing.T) {
	tests := []struct {
		bits     uint32
		overflow bool
	}{
		{0xff123456, true},
		{0x22000001, false}, // one-byte mantissa still fits at size 34
		{0x23000001, true},
		{0x21000100, false},
		{0x22000100, true},
		{0x20010000, false},
		{0x21010000, true},
		{0x23000000, false}, // zero mantissa never overflows
	}
	for _, tc := range tests {
		_, neg, ovf := DecodeCompact(tc.bits)
		if ovf != tc.overflow || neg {
			t.Errorf("DecodeCompact(%08x) overflow=%v negative=%v; want %v,false", tc.bits, ovf, neg, tc.overflow)
		}
	}
}

func TestCompactToBigSign(t *testing.T) {
	if got := CompactToBig(0x04923456); got.Cmp(big.NewInt(-0x12345600)) != 0 {
		t.Errorf("CompactToBig(04923456) = %v", got)
	}
	if got := BigToCompact(big.NewInt(-0x12345600)); got != 0x04923456 {
		t.Errorf("BigToCompact(-0x12345600) = %08x", got)
	}
}

func TestCalcWork(t *testing.T) {
	tests := []struct {
		bits uint32
		work string // hex
	}{
		{0x1d00ffff, "100010001"}, // difficulty 1: 4295032833 hashes
		{0x207fffff, "2"},         // regtest minimum
		{0x1e0377ae, "49d414"},    // signet genesis
		{0x1b0404cb, "3fb3ab764c00"},
		{0x00000000, "0"}, // zero target
		{0x04923456, "0"}, // negative
		{0xff123456, "0"}, // overflow
	}
	for _, tc := range tests {
		if got := CalcWork(tc.bits); got.Cmp(hexBig(t, tc.work)) != 0 {
			t.Errorf("CalcWork(%08x) = %x, want %s", tc.bits, got, tc.work)
		}
	}
}

func TestTargetFromBits(t *testing.T) {
	limit := hexBig(t, "00000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffff")
	tests := []struct {
		bits uint32
		ok   bool
	}{
		{0x1d00ffff, true},
		{0x1b0404cb, true},
		{0x1d010000, false}, // just above the limit
		{0x1e00ffff, false},
		{0x00000000, false},
		{0x04923456, false},
		{0xff123456, false},
	}
	for _, tc := range tests {
		if _, ok := TargetFromBits(tc.bits, limit); ok != tc.ok {
			t.Errorf("TargetFromBits(%08x) ok=%v, want %v", tc.bits, ok, tc.ok)
		}
	}
}

// FuzzCompact checks that every non-negative, non-overflowing encoding decodes
// to a value whose canonical re-encoding decodes back to the same value.
func FuzzCompact(f *testing.F) {
	for _, s := range []uint32{0, 0x1d00ffff, 0x207fffff, 0x01fedcba, 0x04923456, 0xff123456, 0x05009234} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, bits uint32) {
		mag, neg, ovf := DecodeCompact(bits)
		_ = CalcWork(bits)
		if neg || ovf {
			return
		}
		back, neg2, ovf2 := DecodeCompact(BigToCompact(mag))
		if neg2 || ovf2 || back.Cmp(mag) != 0 {
			t.Fatalf("%08x: %x re-decoded as %x (neg=%v ovf=%v)", bits, mag, back, neg2, ovf2)
		}
	})
}

func BenchmarkCalcWork(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = CalcWork(0x17034219)
	}
}

func BenchmarkBigToCompact(b *testing.B) {
	n := CompactToBig(0x17034219)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = BigToCompact(n)
	}
}
