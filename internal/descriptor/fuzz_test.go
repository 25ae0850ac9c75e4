package descriptor

import (
	"bytes"
	"testing"
)

// FuzzParse checks, for any string that parses, that the canonical forms
// parse back to the same descriptor with the same scripts, and that every
// output's inferred descriptor parses back to that output's script. The
// seed corpus is in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add("wpkh(" + pubC + ")")
	f.Add("tr(" + xpub1 + "/<0;1>/*,{pk(" + pubC + "),multi_a(1," + wifC + "," + xpub5 + "/0)})")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return // keep each run short; the length limit has its own test
		}
		for _, net := range []*Network{MainNet, RegTest} {
			ds, err := Parse(s, net, false)
			if err != nil {
				continue
			}
			for _, d := range ds[:min(len(ds), 3)] {
				checkRoundTrip(t, d, net)
			}
		}
	})
}

func checkRoundTrip(t *testing.T, d *Descriptor, net *Network) {
	priv := d.StringPrivate()
	again, err := Parse(priv, net, true)
	if err != nil || len(again) != 1 || again[0].StringPrivate() != priv || again[0].String() != d.String() {
		t.Fatalf("%s does not round-trip: %v", priv, err)
	}
	pub, err := Parse(d.String(), net, true)
	if err != nil || pub[0].String() != d.String() || pub[0].IsRange() != d.IsRange() {
		t.Fatalf("%s does not round-trip: %v", d, err)
	}
	indexes := []uint32{0}
	if d.IsRange() {
		indexes = append(indexes, 1, HardenedKeyStart-1)
	}
	for _, i := range indexes {
		outs, err := d.Expand(i)
		outs2, err2 := again[0].Expand(i)
		if (err == nil) != (err2 == nil) || len(outs) != len(outs2) {
			t.Fatalf("%s at %d: %v / %v", priv, i, err, err2)
		}
		for k, o := range outs {
			if !bytes.Equal(o.Script, outs2[k].Script) {
				t.Fatalf("%s at %d: scripts differ", priv, i)
			}
			inf := o.Describe()
			di, err := Parse(inf, net, true)
			if err != nil {
				// Core infers bare multisig of more than three
				// keys and keys off the curve, which it cannot
				// parse back; only raw() can produce those.
				if d.top.kind == kindRaw {
					continue
				}
				t.Fatalf("%s at %d: inferred %s does not parse: %v", priv, i, inf, err)
			}
			io, err := di[0].Expand(0)
			if err != nil || di[0].IsRange() || len(io) != 1 || !bytes.Equal(io[0].Script, o.Script) {
				t.Fatalf("%s at %d: inferred %s gives another script (%v)", priv, i, inf, err)
			}
		}
	}
}
