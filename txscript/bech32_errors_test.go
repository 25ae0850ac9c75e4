package txscript

import (
	"errors"
	"slices"
	"testing"
)

// TestDecodeBech32Errors checks failure kinds and error locations against
// BIP173/BIP350 invalid strings (locations as bitcoind reports them).
func TestDecodeBech32Errors(t *testing.T) {
	valid := "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"
	cases := []struct {
		s    string
		kind Bech32ErrorKind
		locs []int
	}{
		{"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5", Bech32ErrChecksumBech32, []int{41}},
		{"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3tt", Bech32ErrChecksumBech32, []int{41}},
		{"bc1qw508d6qejxtdg4y5r3zarvarY0c5xw7kv8f3t4", Bech32ErrInvalidChar, []int{28}},
		{"pzry9x0s0muk", Bech32ErrMissingSeparator, []int{}},
		{"1pzry9x0s0muk", Bech32ErrSeparatorPos, []int{0}},
		{"x1b4n0q5v", Bech32ErrBase32Char, []int{2}},
		{"bc1" + "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq", Bech32ErrTooLong, []int{90, 91}},
	}
	for _, c := range cases {
		_, _, _, err := DecodeBech32(c.s)
		var be *Bech32Error
		if !errors.As(err, &be) || !errors.Is(err, ErrBech32) {
			t.Fatalf("%s: err %v", c.s, err)
		}
		if be.Kind != c.kind || !slices.Equal(be.Locations, c.locs) {
			t.Errorf("%s: kind %d locs %v, want %d %v", c.s, be.Kind, be.Locations, c.kind, c.locs)
		}
	}
	hrp, data, m, err := DecodeBech32(valid)
	if err != nil || hrp != "bc" || m || len(data) != 33 {
		t.Fatalf("valid: %q %d %v %v", hrp, len(data), m, err)
	}
	if prog, ok := Bech32DataToBytes(data[1:]); !ok || len(prog) != 20 {
		t.Fatalf("program %x %v", prog, ok)
	}
}

// FuzzDecodeBech32 checks the detailed decoder never panics, agrees with
// the plain one and reports locations inside the string.
func FuzzDecodeBech32(f *testing.F) {
	for _, s := range []string{"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c",
		"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5", "", "1", "A1G7SGD8"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		hrp, data, _, err := DecodeBech32(s)
		h2, d2, _, err2 := bech32Decode(s)
		if (err == nil) != (err2 == nil) || hrp != h2 || string(data) != string(d2) {
			t.Fatalf("decoders disagree on %q", s)
		}
		var be *Bech32Error
		if errors.As(err, &be) {
			for _, l := range be.Locations {
				if l < 0 || l >= len(s) {
					t.Fatalf("%q: location %d out of range", s, l)
				}
			}
		}
	})
}
