package psbt

import "testing"

// TestAnalyzeTaprootMissing checks Core's analysis of taproot inputs: a
// key path or script path input without its signatures names none
// missing (Core's taproot signing records no missing signature) and has
// the updater next, until its signatures suffice and the finalizer is.
func TestAnalyzeTaprootMissing(t *testing.T) {
	check := func(name string, p *Packet, i int, next Role) {
		t.Helper()
		ia := p.Analyze().Inputs[i]
		if ia.Next != next || len(ia.MissingSigs) != 0 || len(ia.MissingPubKeys) != 0 {
			t.Errorf("%s: %+v, want next %v and nothing missing", name, ia, next)
		}
	}
	// Key path only (the fixture's input 2), unsigned.
	f := newFixture(t)
	check("key path", f.p, 2, RoleUpdater)
	f.sign(t)
	check("key path signed", f.p, 2, RoleFinalizer)

	// Script path: leaves and derivations known, no signature.
	tf := newTapFixture(t)
	tf.p.Sign(tf.signer(), nil, false)
	if len(tf.p.Inputs[0].TapLeafScripts) != 2 || len(tf.p.Inputs[0].TapBip32) == 0 {
		t.Fatalf("updated input: %+v", tf.p.Inputs[0])
	}
	check("script path", tf.p, 0, RoleUpdater)
	// One of the 2-of-2 leaf's signatures.
	tf.p.Sign(tf.signer(3), nil, false)
	check("script path, one of two", tf.p, 0, RoleUpdater)
	tf.p.Sign(tf.signer(2), nil, false)
	check("script path signed", tf.p, 0, RoleFinalizer)
}
