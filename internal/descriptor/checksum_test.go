package descriptor

import "testing"

// TestChecksumBIP380 runs BIP380's checksum and character set vectors.
func TestChecksumBIP380(t *testing.T) {
	if got := Checksum("raw(deadbeef)"); got != "89f8spxm" {
		t.Fatalf("Checksum = %q", got)
	}
	if got := AddChecksum("raw(deadbeef)"); got != "raw(deadbeef)#89f8spxm" {
		t.Fatalf("AddChecksum = %q", got)
	}
	for _, c := range []struct {
		desc    string
		require bool
		err     string
	}{
		{"raw(deadbeef)#89f8spxm", true, ""},
		{"raw(deadbeef)", false, ""},
		{"raw(deadbeef)", true, "Missing checksum"},
		{"raw(deadbeef)#", false, "Expected 8 character checksum, not 0 characters"},
		{"raw(deadbeef)#89f8spxmx", false, "Expected 8 character checksum, not 9 characters"},
		{"raw(deadbeef)#89f8spx", false, "Expected 8 character checksum, not 7 characters"},
		{"raw(deedbeef)#89f8spxm", false, "Provided checksum '89f8spxm' does not match computed checksum '" + Checksum("raw(deedbeef)") + "'"},
		{"raw(deedbeef)##9f8spxm", false, "Multiple '#' symbols"},
		{"raw(Ü)#00000000", false, "Invalid characters in payload"},
	} {
		payload, sum, err := SplitChecksum(c.desc, c.require)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.desc, err)
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%s: error %v, want %q", c.desc, err, c.err)
		case c.err == "" && (payload != "raw(deadbeef)" || sum != "89f8spxm"):
			t.Errorf("%s: %q %q", c.desc, payload, sum)
		}
		// Parse reports the same errors.
		if _, err := Parse(c.desc, MainNet, c.require); (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) {
			t.Errorf("Parse(%s): %v, want %q", c.desc, err, c.err)
		}
	}
}
