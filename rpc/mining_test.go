package rpc

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestParseTemplateRequest: members of the wrong JSON type count as
// absent, as bitcoind reads them; a request that is not an object is a
// type error.
func TestParseTemplateRequest(t *testing.T) {
	req, err := ParseTemplateRequest(json.RawMessage(`{"mode":"proposal","capabilities":["longpoll",1],
		"rules":["segwit",null,"signet"],"longpollid":"ab12","data":""}`))
	if err != nil {
		t.Fatal(err)
	}
	if req.Mode != "proposal" || !slices.Equal(req.Capabilities, []string{"longpoll"}) ||
		!slices.Equal(req.Rules, []string{"segwit", "signet"}) || !req.HasRule("signet") || req.HasRule("csv") ||
		req.LongPollID != "ab12" || !req.HasData || req.Data != "" {
		t.Fatalf("%+v", req)
	}
	req, err = ParseTemplateRequest(json.RawMessage(`{"mode":5,"rules":"segwit","longpollid":7,"data":1}`))
	if err != nil || req.Mode != "" || req.Rules != nil || req.LongPollID != "" || req.HasData {
		t.Fatalf("wrong types: %+v %v", req, err)
	}
	if req, err := ParseTemplateRequest(nil); err != nil || req.Mode != "" || req.HasData {
		t.Fatalf("absent: %+v %v", req, err)
	}
	for _, bad := range []string{`[]`, `"x"`, `3`} {
		_, err := ParseTemplateRequest(json.RawMessage(bad))
		if e, ok := err.(*Error); !ok || e.Code != ErrType {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// FuzzParseTemplateRequest: any bytes parse or fail without a panic, and
// a parsed request keeps only string members.
func FuzzParseTemplateRequest(f *testing.F) {
	for _, s := range []string{
		`{"rules":["segwit"]}`,
		`{"mode":"proposal","data":"00"}`,
		`{"longpollid":"` + "00000000000000000000000000000000000000000000000000000000000000001" + `","rules":["segwit","signet"]}`,
		`{"capabilities":["coinbasetxn","workid",{}],"rules":[1,"x"]}`,
		`{"mode":null}`, `[]`, `null`, `{`, `{"rules":[`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16 {
			return
		}
		req, err := ParseTemplateRequest(json.RawMessage(b))
		if err != nil {
			return
		}
		if req.Data != "" && !req.HasData {
			t.Fatalf("data without HasData: %+v", req)
		}
	})
}
