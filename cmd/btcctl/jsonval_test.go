package main

import "testing"

func TestJSONWrite(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,"b":[],"c":{},"d":[1,{"e":null}],"f":"x"}`: "{\n  \"a\": 1,\n  \"b\": [\n  ],\n  \"c\": {\n  },\n  \"d\": [\n    1,\n    {\n      \"e\": null\n    }\n  ],\n  \"f\": \"x\"\n}",
		`[]`:                      "[\n]",
		`{}`:                      "{\n}",
		`1.50000000`:              "1.50000000", // numbers keep the server's text
		`4.656542373906925e-10`:   "4.656542373906925e-10",
		`true`:                    "true",
		`"a\u0001\"\\/é\u007f\n"`: `"a\u0001\"\\/é\u007f\n"`,
		`{"k":1,"k":2}`:           "{\n  \"k\": 1,\n  \"k\": 2\n}", // duplicates kept, in order
	} {
		v, err := parseJSON([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := v.write(2); got != want {
			t.Errorf("write(2) of %s =\n%s\nwant\n%s", in, got, want)
		}
	}
	v, _ := parseJSON([]byte(` {"b": [1, 2], "a": "x"} `))
	if got := v.write(0); got != `{"b":[1,2],"a":"x"}` {
		t.Errorf("compact: %s", got)
	}
	for _, bad := range []string{"", "abc", "1 2", "{", `{"a":}`, "[1,]"} {
		if _, err := parseJSON([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestJSONAccess(t *testing.T) {
	v, _ := parseJSON([]byte(`{"s":"x","n":-12,"f":0.5,"b":true,"o":{"k":[1]}}`))
	if v.get("s").valStr() != "x" || v.get("n").valStr() != "-12" || v.get("b").valStr() != "1" || v.get("o").valStr() != "" {
		t.Error("valStr")
	}
	if n, ok := v.get("n").int(); !ok || n != -12 {
		t.Error("int")
	}
	if v.get("f").float() != 0.5 || v.get("missing").get("deeper").valStr() != "" || !v.get("missing").isNull() {
		t.Error("float or missing")
	}
	o := jObject()
	o.pushKV("a", jInt(1))
	o.pushKV("b", nil)
	o.pushKV("a", jString("2")) // replaces in place
	o.pushKVEnd("b", jBoolean(false))
	if got := o.write(0); got != `{"a":"2","b":null,"b":false}` {
		t.Errorf("pushKV: %s", got)
	}
}
