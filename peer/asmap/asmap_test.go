package asmap

import (
	"net/netip"
	"os"
	"path/filepath"
	"testing"
)

// bitWriter builds programs for the tests, least significant bit first.
type bitWriter struct {
	buf []byte
	n   int
}

func (w *bitWriter) bit(b uint32) {
	if w.n%8 == 0 {
		w.buf = append(w.buf, 0)
	}
	w.buf[w.n/8] |= byte(b&1) << (w.n % 8)
	w.n++
}

func (w *bitWriter) num(c code, v uint32) {
	v -= c.min
	for i, width := range c.widths {
		if v >= 1<<width && i < len(c.widths)-1 {
			w.bit(1)
			v -= 1 << width
			continue
		}
		if i < len(c.widths)-1 {
			w.bit(0)
		}
		for k := int(width) - 1; k >= 0; k-- {
			w.bit(v >> k)
		}
		return
	}
}

func (w *bitWriter) ret(asn uint32)   { w.num(typeCode, opReturn); w.num(asnCode, asn) }
func (w *bitWriter) def(asn uint32)   { w.num(typeCode, opDefault); w.num(asnCode, asn) }
func (w *bitWriter) jump(off uint32)  { w.num(typeCode, opJump); w.num(jumpCode, off) }
func (w *bitWriter) match(pat uint32) { w.num(typeCode, opMatch); w.num(matchCode, pat) }
func retLen(asn uint32) uint32        { var w bitWriter; w.ret(asn); return uint32(w.n) }
func ip(s string) netip.Addr          { return netip.MustParseAddr(s) }

func TestHandBuiltMaps(t *testing.T) {
	// RETURN 7: every address is AS7.
	var w bitWriter
	w.ret(7)
	m, err := New(w.buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Lookup(ip("1.2.3.4")); got != 7 {
		t.Fatalf("single RETURN: %d", got)
	}

	// JUMP over "RETURN 1" when the first address bit is set, to RETURN 2.
	w = bitWriter{}
	w.jump(retLen(1))
	w.ret(1)
	w.ret(2)
	if m, err = New(w.buf); err != nil {
		t.Fatal(err)
	}
	if a, b := m.Lookup(ip("10.0.0.1")), m.Lookup(ip("8000::1")); a != 1 || b != 2 {
		t.Fatalf("jump: IPv4 %d, 8000:: %d", a, b)
	}

	// DEFAULT 5, then MATCH the first byte 0x20 (pattern 1_00100000):
	// 2000::/8 is AS9, everything else falls back to AS5.
	w = bitWriter{}
	w.def(5)
	w.match(0x120)
	w.ret(9)
	if m, err = New(w.buf); err != nil {
		t.Fatal(err)
	}
	if a, b := m.Lookup(ip("2001:db8::1")), m.Lookup(ip("3000::1")); a != 9 || b != 5 {
		t.Fatalf("match: 2001:db8:: %d, 3000:: %d", a, b)
	}
	if got := m.Lookup(netip.Addr{}); got != 0 {
		t.Fatalf("invalid address mapped to %d", got)
	}
}

func TestCheckRefuses(t *testing.T) {
	for name, build := range map[string]func(w *bitWriter){
		"empty":               func(w *bitWriter) {},
		"no return":           func(w *bitWriter) { w.def(3) },
		"default then return": func(w *bitWriter) { w.def(3); w.ret(4) },
		"two defaults":        func(w *bitWriter) { w.def(3); w.def(4); w.ret(1) },
		"jump past the end":   func(w *bitWriter) { w.jump(100); w.ret(1) },
		"jump into an instruction": func(w *bitWriter) {
			w.jump(retLen(1) - 1)
			w.ret(1)
			w.ret(2)
		},
		"unreachable code": func(w *bitWriter) {
			w.jump(retLen(1) + retLen(1))
			w.ret(1)
			w.ret(2)
			w.ret(3)
		},
		"two partial matches": func(w *bitWriter) { w.match(0x5); w.match(0x5); w.ret(1) },
		"too many bits": func(w *bitWriter) {
			for range 17 {
				w.match(0x1ff) // 8 bits each: 136 > 128
			}
			w.ret(1)
		},
	} {
		var w bitWriter
		build(&w)
		if Check(w.buf) {
			t.Errorf("%s: accepted", name)
		}
	}
	// Padding: up to 7 zero bits only.
	var w bitWriter
	w.ret(1)
	ok := append([]byte(nil), w.buf...)
	if !Check(ok) {
		t.Fatal("minimal map refused")
	}
	if Check(append(ok, 0)) {
		t.Error("a whole byte of padding accepted")
	}
	bad := append([]byte(nil), ok...)
	bad[len(bad)-1] |= 0x80
	if Check(bad) {
		t.Error("non-zero padding accepted")
	}
}

// TestCoreTestMap loads the skeleton map of Core's unit tests (from the
// shared Core tree when present): it checks, its version is the one
// Core's feature_asmap.py expects, and it maps addresses to several ASNs.
func TestCoreTestMap(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "corefunc", "srcdir", "src", "test", "data", "asmap.raw")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("Core's test asmap not present (%v)", err)
	}
	m, err := New(data)
	if err != nil {
		t.Fatal(err)
	}
	const version = "fec61fa21a9f46f3b17bdcd660d7f4cd90b966aad3aec593c99b35f0aca15853"
	if v := m.Version(); v != version {
		t.Fatalf("version %s, want %s", v, version)
	}
	seen := map[uint32]bool{}
	for _, a := range []string{"101.0.0.0", "101.1.0.0", "101.2.0.0", "101.3.0.0"} {
		seen[m.Lookup(ip(a))] = true
	}
	if len(seen) != 3 {
		t.Fatalf("101.{0,1,2,3}.0.0 map to %d ASNs, want 3 (Core's health check)", len(seen))
	}
}

// FuzzCheck: Check never panics, and a lookup on any accepted map ends.
func FuzzCheck(f *testing.F) {
	var w bitWriter
	w.jump(retLen(1))
	w.ret(1)
	w.ret(2)
	f.Add(w.buf)
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		if Check(data) {
			m, _ := New(data)
			for _, a := range []string{"1.2.3.4", "8000::1", "::"} {
				if _, err := run(m.prog, ip(a).As16()); err != nil {
					t.Fatalf("checked map fails on %s: %v", a, err)
				}
			}
		}
	})
}
