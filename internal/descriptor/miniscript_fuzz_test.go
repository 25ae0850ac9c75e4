package descriptor

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// FuzzMiniscript parses wsh(s) for any s and checks, when it parses, that
// the canonical text parses back to the same script, that the witness
// script decodes back to the same miniscript (keys known from the
// expansion) and that the parser's limits hold. The seed corpus is in
// testdata/fuzz/FuzzMiniscript.
func FuzzMiniscript(f *testing.F) {
	f.Add("and_v(v:pk(" + msKeyA + "),older(144))")
	f.Add("thresh(2,pk(" + msKeyA + "),s:pk(" + msKeyB + "),sln:older(12))")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 8192 {
			return
		}
		// In a tr() leaf it is tapscript; only the round trip applies.
		if ds, err := Parse("tr("+pubC+","+s+")", MainNet, false); err == nil {
			checkRoundTrip(t, ds[0], MainNet)
		}
		ds, err := Parse("wsh("+s+")", MainNet, false)
		if err != nil {
			return
		}
		d := ds[0]
		checkRoundTrip(t, d, MainNet)
		if d.top.subs[0].kind != kindMiniscript {
			return
		}
		outs, err := d.Expand(0)
		if err != nil {
			return
		}
		ms := d.top.subs[0].ms
		if ms.size > msMaxScriptSize {
			t.Fatalf("%s: script of %d bytes accepted", s, ms.size)
		}
		for _, w := range outs[0].prov.wscripts {
			if len(w) != ms.size {
				t.Fatalf("%s: script is %d bytes, computed %d", s, len(w), ms.size)
			}
			n := inferMiniscript(w, false, outs[0].prov)
			if n == nil {
				t.Fatalf("%s: witness script %x does not decode", s, w)
			}
			if got := n.ms.script(nil, pubsOf(t, n)); !bytes.Equal(got, w) {
				t.Fatalf("%s: decodes to another script", s)
			}
		}
	})
}

// FuzzMiniscriptScript decodes arbitrary witness scripts, as decodescript
// does with untrusted hex, and checks that whatever decodes re-encodes to
// the same bytes and that its text parses back to that script.
func FuzzMiniscriptScript(f *testing.F) {
	for _, h := range []string{
		"82012088a914ffffffffffffffffffffffffffffffffffffffff88210250929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0ad51b2",
		"82012088a914ffffffffffffffffffffffffffffffffffffffff882102ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffacb2",
		"21" + msKeyA + "ac7364" + "21" + msKeyB + "ad0190b268",
	} {
		b, _ := hex.DecodeString(h)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		if n := inferMiniscript(s, true, NewProvider()); n != nil {
			// Tapscript: it re-encodes to the same leaf.
			if got := n.ms.script(nil, xOnly(pubsOf(t, n))); !bytes.Equal(got, s) {
				t.Fatalf("tapscript %x re-encodes as %x", s, got)
			}
		}
		n := inferMiniscript(s, false, NewProvider())
		if n == nil {
			return
		}
		if got := n.ms.script(nil, pubsOf(t, n)); !bytes.Equal(got, s) {
			t.Fatalf("%x re-encodes as %x", s, got)
		}
		if !n.ms.satisfiable() {
			// Core infers sane miniscript it would not parse, such
			// as 0.
			return
		}
		for _, k := range n.keys {
			if !onCurve(k.pub) {
				// Core infers keys off the curve, which no
				// descriptor can hold.
				return
			}
		}
		text := "wsh(" + n.msString(n.ms, MainNet) + ")"
		ds, err := Parse(text, MainNet, false)
		if err != nil {
			t.Fatalf("%x: inferred %s does not parse: %v", s, text, err)
		}
		outs, err := ds[0].Expand(0)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range outs[0].prov.wscripts {
			if !bytes.Equal(w, s) {
				t.Fatalf("%x: %s gives %x", s, text, w)
			}
		}
	})
}

func pubsOf(t *testing.T, n *node) [][]byte {
	t.Helper()
	pubs := make([][]byte, len(n.keys))
	for i, k := range n.keys {
		p, _, err := k.pubKey(0)
		if err != nil {
			t.Fatal(err)
		}
		pubs[i] = p
	}
	return pubs
}

func xOnly(pubs [][]byte) [][]byte {
	out := make([][]byte, len(pubs))
	for i, p := range pubs {
		out[i] = p[1:33]
	}
	return out
}
