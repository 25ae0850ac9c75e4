package descriptor

import "testing"

// BenchmarkExpandRanged measures one index of a ranged extended key, the
// unit of work scans and deriveaddresses repeat.
func BenchmarkExpandRanged(b *testing.B) {
	ds, err := Parse("wpkh("+xpub1+"/0/*)", MainNet, false)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		if _, err := ds[0].Expand(uint32(i) % HardenedKeyStart); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseXpub measures parsing a descriptor with one extended key.
func BenchmarkParseXpub(b *testing.B) {
	for b.Loop() {
		if _, err := Parse("wpkh("+xpub1+"/0/*)", MainNet, false); err != nil {
			b.Fatal(err)
		}
	}
}
