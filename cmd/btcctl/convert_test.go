package main

import "testing"

func TestConvertPositional(t *testing.T) {
	for _, c := range []struct {
		method string
		args   []string
		want   string
		err    string
	}{
		{"getblockhash", []string{"5"}, `[5]`, ""},
		{"getblock", []string{"00ff", "2"}, `["00ff",2]`, ""},            // string, then a multi-type argument
		{"getblockstats", []string{"abc"}, `["abc"]`, ""},                // multi-type, not JSON: a string
		{"echo", []string{"0", "[1]", "null"}, `["0","[1]","null"]`, ""}, // echo never converts
		{"echojson", []string{"0", "[1]", "null"}, `[0,[1],null]`, ""},
		{"createrawtransaction", []string{"[]", `{"data":"00"}`}, `[[],{"data":"00"}]`, ""},
		{"getblockhash", []string{"x"}, "", "Error parsing JSON: x"},
		{"decodescript", []string{"51", "7"}, `["51","7"]`, ""},                // beyond the declared arguments: strings
		{"nosuchmethod", []string{"1", "a", `{"x":1}`}, `[1,"a",{"x":1}]`, ""}, // unknown methods: JSON when it parses
		{"getblockcount", nil, `[]`, ""},
	} {
		v, err := convertPositional(c.method, c.args)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%s %v: %v, want %q", c.method, c.args, err, c.err)
			}
			continue
		}
		if err != nil || v.write(0) != c.want {
			t.Errorf("%s %v: %v %v, want %s", c.method, c.args, v.write(0), err, c.want)
		}
	}
}

func TestConvertNamed(t *testing.T) {
	for _, c := range []struct {
		method string
		args   []string
		want   string
	}{
		{"generateblock", []string{"output=bcrt1qxyz", "transactions=[]"}, `{"output":"bcrt1qxyz","transactions":[]}`},
		{"echo", []string{"0", "1", "arg3=3", "arg5=5"}, `{"arg3":"3","arg5":"5","args":["0","1"]}`},
		{"echo", []string{"arg0=0", "arg1=1", "arg2=2", "arg1=3"}, `{"arg0":"0","arg1":"3","arg2":"2"}`}, // later values replace earlier ones
		{"echo", []string{"args=[0,1,2,3]", "4", "5", "6"}, `{"args":"[0,1,2,3]","args":["4","5","6"]}`}, // the server reports the clash
		{"getblock", []string{"blockhash=00", "verbosity=2"}, `{"blockhash":"00","verbosity":2}`},
		{"getblock", []string{"blockhash=00", "verbose=0"}, `{"blockhash":"00","verbose":0}`}, // an alias
		{"getblock", []string{"00", "verbosity=2"}, `{"verbosity":2,"args":["00"]}`},
		{"getblockhash", []string{"height=3", "=x"}, `{"height":3,"":"x"}`},
	} {
		v, err := convertNamed(c.method, c.args)
		if err != nil || v.write(0) != c.want {
			t.Errorf("%s %v: %s %v, want %s", c.method, c.args, v.write(0), err, c.want)
		}
	}
	if _, err := convertNamed("getblockhash", []string{"height=x"}); err == nil || err.Error() != "Error parsing JSON: x" {
		t.Errorf("bad named JSON: %v", err)
	}
}
