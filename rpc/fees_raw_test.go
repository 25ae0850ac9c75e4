package rpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/btcnode/btcd/wire"
)

func TestEstimateRawFee(t *testing.T) {
	var gotTarget int
	var gotThreshold float64
	_, url := startServer(t, func(c *Config) {
		c.Backend.Mempool = &MempoolBackend{EstimateRawFee: func(target int, threshold float64) ([]RawFeeHorizon, error) {
			gotTarget, gotThreshold = target, threshold
			none := RawFeeBucket{Start: -1, End: -1}
			return []RawFeeHorizon{
				{Name: "short", FeeRate: 1234, Decay: .962, Scale: 1, Pass: RawFeeBucket{Start: 1000, End: 1050.4, WithinTarget: 3.14159, TotalConfirmed: 4}, Fail: none},
				{Name: "medium", FeeRate: 2000, Decay: .9952, Scale: 2, Pass: RawFeeBucket{Start: 0, End: 2000}, Fail: RawFeeBucket{Start: 100, End: 200, InMempool: 1}},
				{Name: "long", Decay: .99931, Scale: 24, Pass: none, Fail: none},
			}, nil
		}}
	})
	v := mustResult(t, url, "estimaterawfee", []any{2}).(map[string]any)
	if gotTarget != 2 || gotThreshold != 0.95 {
		t.Errorf("backend got %d %v", gotTarget, gotThreshold)
	}
	bucket := shape{"startrange": "number", "endrange": "number", "withintarget": "number", "totalconfirmed": "number", "inmempool": "number", "leftmempool": "number"}
	checkShape(t, "short", v["short"], shape{"feerate": "number", "decay": "number", "scale": "number", "pass": "object"})
	checkShape(t, "short.pass", v["short"].(map[string]any)["pass"], bucket)
	checkShape(t, "medium", v["medium"], shape{"feerate": "number", "decay": "number", "scale": "number", "pass": "object", "fail": "object"})
	checkShape(t, "long", v["long"], shape{"decay": "number", "scale": "number", "fail": "object", "errors": "array"})
	short := v["short"].(map[string]any)
	pass := short["pass"].(map[string]any)
	if short["feerate"] != json.Number("0.00001234") || short["decay"] != json.Number("0.962") ||
		pass["endrange"] != json.Number("1050") || pass["withintarget"] != json.Number("3.14") {
		t.Errorf("short %v", short)
	}
	if e := v["long"].(map[string]any)["errors"].([]any); e[0] != "Insufficient data or no feerate found which meets threshold" {
		t.Errorf("long errors %v", e)
	}
	mustResult(t, url, "estimaterawfee", []any{1, nil})
	mustResult(t, url, "estimaterawfee", []any{1, 1})
	if gotThreshold != 1 {
		t.Errorf("threshold %v", gotThreshold)
	}
	for _, c := range []struct {
		params []any
		code   ErrorCode
		msg    string
	}{
		{nil, ErrMisc, "estimaterawfee"},
		{[]any{"foo"}, ErrType, "JSON value of type string is not of expected type number"},
		{[]any{1, "foo"}, ErrType, "JSON value of type string is not of expected type number"},
		{[]any{1, 1, 1}, ErrMisc, "estimaterawfee"},
		{[]any{1009}, ErrInvalidParam, "Invalid conf_target, must be between 1 and 1008"},
		{[]any{0}, ErrInvalidParam, "Invalid conf_target, must be between 1 and 1008"},
		{[]any{1, 1.5}, ErrInvalidParam, "Invalid threshold"},
		{[]any{1, -0.1}, ErrInvalidParam, "Invalid threshold"},
	} {
		if e := mustError(t, url, "estimaterawfee", c.params, c.code); !strings.Contains(e.Message, c.msg) {
			t.Errorf("%v: %q, want %q", c.params, e.Message, c.msg)
		}
	}
}

func TestGenerateIsGone(t *testing.T) {
	_, url := startServer(t, nil)
	e := mustError(t, url, "generate", nil, ErrMethodNotFound)
	if e.Message != generateHelp {
		t.Errorf("%q", e.Message)
	}
	if help := mustResult(t, url, "help", nil).(string); strings.Contains(help, "generate\n") || strings.Contains(help, "estimaterawfee") {
		t.Error("hidden methods listed by help")
	}
	if h := mustResult(t, url, "help", []any{"generate"}).(string); h != generateHelp {
		t.Errorf("help generate: %q", h)
	}
}

func TestAddPeerAddress(t *testing.T) {
	type call struct {
		addr  string
		port  uint16
		tried bool
	}
	var got []call
	_, url := startServer(t, func(c *Config) {
		c.Backend.Net = &NetBackend{AddPeerAddress: func(a string, p uint16, tried bool) (*AddPeerAddressResult, error) {
			got = append(got, call{a, p, tried})
			if a == "1.2.3.4" {
				return &AddPeerAddressResult{Error: "failed-adding-to-new"}, nil
			}
			return &AddPeerAddressResult{Success: true}, nil
		}}
	})
	if v := mustResult(t, url, "addpeeraddress", []any{"2.0.0.0", 8333}).(map[string]any); v["success"] != true || len(v) != 1 {
		t.Errorf("%v", v)
	}
	if v := mustResult(t, url, "addpeeraddress", map[string]any{"address": "1.2.3.4", "port": 65535, "tried": true}).(map[string]any); v["success"] != false || v["error"] != "failed-adding-to-new" {
		t.Errorf("%v", v)
	}
	if len(got) != 2 || got[1] != (call{"1.2.3.4", 65535, true}) {
		t.Errorf("backend calls %v", got)
	}
	for _, port := range []int{-1, 65536} {
		if e := mustError(t, url, "addpeeraddress", []any{"1.2.3.4", port}, ErrMisc); e.Message != "JSON integer out of range" {
			t.Errorf("port %d: %q", port, e.Message)
		}
	}
	mustError(t, url, "addpeeraddress", []any{"1.2.3.4", 1, "True"}, ErrType)
}

func TestGetBlockFromPeer(t *testing.T) {
	var asked wire.Hash
	var askedPeer int64
	_, url := startServer(t, func(c *Config) {
		c.Backend.Net = &NetBackend{FetchBlock: func(h wire.Hash, id int64) error {
			if id == 9 {
				return NewError(ErrMisc, "Peer does not exist")
			}
			asked, askedPeer = h, id
			return nil
		}}
	})
	h := strings.Repeat("ab", 32)
	if v := mustResult(t, url, "getblockfrompeer", []any{h, 3}).(map[string]any); len(v) != 0 {
		t.Errorf("result %v", v)
	}
	if asked.String() != h || askedPeer != 3 {
		t.Errorf("asked %v of %d", asked, askedPeer)
	}
	if e := mustError(t, url, "getblockfrompeer", []any{h, 9}, ErrMisc); e.Message != "Peer does not exist" {
		t.Errorf("%q", e.Message)
	}
	if e := mustError(t, url, "getblockfrompeer", []any{"1234", 0}, ErrInvalidParam); !strings.Contains(e.Message, "hash must be of length 64 (not 4, for '1234')") {
		t.Errorf("%q", e.Message)
	}
	mustError(t, url, "getblockfrompeer", []any{1234, 0}, ErrType)
	mustError(t, url, "getblockfrompeer", []any{h, "0"}, ErrType)
}
