package bitcoinconf

import (
	"strings"
	"testing"
)

func TestParseSyntax(t *testing.T) {
	text := "# comment\nrpcuser = a \n[regtest]\nrpcport=1 # trailing\nmain.server=1\n\nnoconnect=1\n"
	lines, secs, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []Line{{"rpcuser", "a", 2}, {"regtest.rpcport", "1", 4}, {"regtest.main.server", "1", 5}, {"regtest.noconnect", "1", 7}}
	if len(lines) != len(want) {
		t.Fatalf("lines = %+v", lines)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d = %+v, want %+v", i, lines[i], want[i])
		}
	}
	if len(secs) != 2 || secs[0] != (Section{"regtest", 3}) || secs[1] != (Section{"regtest.main", 5}) {
		t.Errorf("sections = %+v", secs)
	}
	// A section named by a key outside any [section] is recorded.
	if _, secs, _ := Parse("test.rpcport=1"); len(secs) != 1 || secs[0] != (Section{"test", 1}) {
		t.Errorf("key section = %+v", secs)
	}
	for text, want := range map[string]string{
		"-rpcuser=a":         "parse error on line 1: -rpcuser=a, options in configuration file must be specified without leading -",
		"\nnolisten":         "parse error on line 2: nolisten, if you intended to specify a negated option, use nolisten=1 instead",
		"junk":               "parse error on line 1: junk",
		"rpcpassword=a#b":    "parse error on line 1, using # in rpcpassword can be ambiguous and should be avoided",
		"[x]\nrpcpassword=#": "parse error on line 2, using # in rpcpassword can be ambiguous and should be avoided",
	} {
		if _, _, err := Parse(text); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
	if _, _, err := Parse(strings.Repeat("\n", maxLines)); err == nil {
		t.Error("no line limit")
	}
}

func TestValueNegation(t *testing.T) {
	zero, one := "0", "1"
	cases := []struct {
		key    string
		val    *string
		want   Value
		double bool
	}{
		{"name", nil, Value{}, false},
		{"name", &one, Value{Str: "1"}, false},
		{"noname", nil, Value{Negated: true}, false},
		{"noname", &one, Value{Negated: true}, false},
		{"noname", &zero, Value{Negated: true, Double: true}, true},
	}
	for _, c := range cases {
		v, double, err := Interpret(ParseKey(c.key), c.val, false)
		if err != nil || v != c.want || double != c.double {
			t.Errorf("%s: %+v %v %v", c.key, v, double, err)
		}
	}
	if _, _, err := Interpret(ParseKey("nodatadir"), nil, true); err == nil || err.Error() != "Negating of -datadir is meaningless and therefore forbidden" {
		t.Errorf("forbidden negation: %v", err)
	}
	if v := (Value{Negated: true}); v.String() != "0" || v.JSON() != "false" || v.Bool() || v.Int() != 0 {
		t.Error("negation reads wrong")
	}
	if v := (Value{Negated: true, Double: true}); v.String() != "1" || v.JSON() != "true" || !v.Bool() || v.Int() != 1 {
		t.Error("double negation reads wrong")
	}
	if v := (Value{Str: "12abc"}); v.JSON() != `"12abc"` || !v.Bool() || v.Int() != 12 {
		t.Error("string reads wrong")
	}
	sp := Span{{Str: "a"}, {Negated: true}, {Str: "b"}, {Negated: true, Double: true}, {Str: "c"}}
	if got := strings.Join(sp.Strings(), ","); got != "b,c" || sp.LastNegated() {
		t.Errorf("span strings %q", got)
	}
	if !sp[:2].LastNegated() || len(sp[:2].AfterNegation()) != 0 {
		t.Error("span ending in a negation")
	}
	k := ParseKey("regtest.nolisten")
	if k != (Key{Section: "regtest", Name: "listen", Negated: true}) {
		t.Errorf("key %+v", k)
	}
	if key, val := SplitArg("--a=b=c"); key != "a" || val == nil || *val != "b=c" {
		t.Errorf("split %q %v", key, val)
	}
	if key, val := SplitArg("-a"); key != "a" || val != nil {
		t.Errorf("split %q %v", key, val)
	}
}

func TestAtoi64(t *testing.T) {
	for in, want := range map[string]int64{
		"": 0, "12abc": 12, " -3": -3, "+4": 4, "+-4": 0, "x": 0,
		"99999999999999999999": 1<<63 - 1, "-99999999999999999999": -1 << 63,
	} {
		if got := Atoi64(in); got != want {
			t.Errorf("Atoi64(%q) = %d, want %d", in, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "a=b", "[regtest]\nrpcport=1", "-x", "nox", "rpcpassword=a#b", "[]\n.=\n#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		lines, _, err := Parse(text)
		if err != nil {
			return
		}
		for _, l := range lines {
			if strings.ContainsAny(l.Key, "\n#") || strings.ContainsAny(l.Value, "\n#") {
				t.Fatalf("line %+v holds a newline or comment", l)
			}
		}
	})
}
