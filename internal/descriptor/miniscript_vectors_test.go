package descriptor

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestMiniscriptCoreFixed runs Core's fixed miniscript vectors
// (testdata/miniscript_core.txt): each parses, gives Core's script,
// malleability, signature and timelock properties, opcode count and stack
// size, and its script decodes back to the same miniscript.
func TestMiniscriptCoreFixed(t *testing.T) {
	f, err := os.Open("testdata/miniscript_core.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<16)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 5 {
			t.Fatalf("bad line %q", line)
		}
		n++
		ms, want, flags := fs[0], fs[1], fs[2]
		p := &parser{net: MainNet}
		mp := &msParser{p: p, src: ms}
		mp.matchParens()
		m := mp.parse(span{0, len(ms)}, 0)
		if m == nil || !m.validTop() {
			t.Errorf("%s: not a valid expression", ms)
			continue
		}
		nd := &node{kind: kindMiniscript, ms: m}
		for _, ks := range mp.keys {
			nd.keys = append(nd.keys, ks[0])
		}
		pubs := pubsOf(t, nd)
		if got := hex.EncodeToString(m.script(nil, pubs)); got != want {
			t.Errorf("%s: script %s", ms, got)
		}
		if m.size != len(want)/2 {
			t.Errorf("%s: size %d", ms, m.size)
		}
		if m.typ.has(tm) != strings.Contains(flags, "N") || m.typ.has(ts) != strings.Contains(flags, "S") ||
			m.typ.has(tk) == strings.Contains(flags, "T") {
			t.Errorf("%s: type %s, want %s", ms, m.typ, flags)
		}
		if fs[3] != "-" {
			ops := m.c.ops
			if m.c.opsSat.ok() {
				ops += m.c.opsSat.val()
			}
			if want, _ := strconv.Atoi(fs[3]); ops != want {
				t.Errorf("%s: %d ops, want %d", ms, ops, want)
			}
			if want, _ := strconv.Atoi(fs[4]); !m.c.stSat.ok() || m.c.stSat.val()+1 != want {
				t.Errorf("%s: stack %d, want %d", ms, m.c.stSat.val()+1, want)
			}
		}
		// Decoding needs pk_h()'s keys: give them as an expansion would.
		prov := NewProvider()
		for _, pub := range pubs {
			prov.addKey(pub, keyOrigin{}, false)
		}
		script, _ := hex.DecodeString(want)
		dm, keys := decodeMiniscript(script, false, prov)
		if dm == nil {
			t.Errorf("%s: does not decode", ms)
			continue
		}
		dn := &node{kind: kindMiniscript, ms: dm, keys: keys}
		if got := dm.script(nil, pubsOf(t, dn)); !bytes.Equal(got, script) {
			t.Errorf("%s: decodes to another script", ms)
		}
	}
	if n < 30 {
		t.Fatalf("only %d vectors", n)
	}
}

// TestMiniscriptDecodeRejects checks Core's scripts that must not decode:
// a non-minimal push and a VERIFY after CHECKSIG instead of CHECKSIGVERIFY.
func TestMiniscriptDecodeRejects(t *testing.T) {
	for _, h := range []string{
		"0000210232780000feff00ffffffffffff21ff005f00ae21ae00000000060602060406564c2102320000060900fe00005f00ae21ae00100000060606060606000000000000000000000000000000000000000000000000000000000000000000",
		"2103a0434d9e47f3c86235477c7b1ae6ae5d3442d49b1943c2b752a68e2a47e247c7ac6951",
	} {
		s, _ := hex.DecodeString(h)
		if m, _ := decodeMiniscript(s, false, NewProvider()); m != nil {
			t.Errorf("%s decoded", h)
		}
	}
}
