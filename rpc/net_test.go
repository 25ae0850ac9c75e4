package rpc

import (
	"errors"
	"strings"
	"testing"
)

// addnode's v2transport argument defaults to the node's -v2transport.
func TestAddNodeV2Default(t *testing.T) {
	for _, nodeV2 := range []bool{false, true} {
		var got []bool
		_, url := startServer(t, func(c *Config) {
			c.Backend.Net = &NetBackend{
				AddNode: func(_, _ string, v2 bool) error {
					got = append(got, v2)
					return nil
				},
				V2Transport: func() bool { return nodeV2 },
			}
		})
		mustResult(t, url, "addnode", []any{"127.0.0.1:1", "onetry"})
		mustResult(t, url, "addnode", []any{"127.0.0.1:1", "onetry", !nodeV2})
		if len(got) != 2 || got[0] != nodeV2 || got[1] != !nodeV2 {
			t.Errorf("-v2transport=%v: backend saw %v", nodeV2, got)
		}
	}
}

func TestSendMsgToPeer(t *testing.T) {
	type sent struct {
		id      int64
		cmd     string
		payload string
	}
	var got []sent
	_, url := startServer(t, func(c *Config) {
		c.Backend.Net = &NetBackend{SendMsgToPeer: func(id int64, cmd string, payload []byte) error {
			if id != 0 {
				return errors.New("no such peer")
			}
			got = append(got, sent{id, cmd, string(payload)})
			return nil
		}}
	})
	if v := mustResult(t, url, "sendmsgtopeer", []any{0, "addr", "ffffff"}).(map[string]any); len(v) != 0 {
		t.Errorf("result %v", v)
	}
	mustResult(t, url, "sendmsgtopeer", []any{0, "", ""})
	if len(got) != 2 || got[0] != (sent{0, "addr", "\xff\xff\xff"}) || got[1] != (sent{0, "", ""}) {
		t.Errorf("backend saw %+v", got)
	}
	if e := mustError(t, url, "sendmsgtopeer", []any{0, "long_msg_type", "ff"}, ErrInvalidParam); e.Message != "Error: msg_type too long, max length is 12" {
		t.Errorf("long type: %q", e.Message)
	}
	if e := mustError(t, url, "sendmsgtopeer", []any{100, "addr", "ff"}, ErrMisc); e.Message != "Error: Could not send message to peer" {
		t.Errorf("unknown peer: %q", e.Message)
	}
	if e := mustError(t, url, "sendmsgtopeer", []any{0, "addr", "zz"}, ErrInvalidParam); !strings.Contains(e.Message, "msg") {
		t.Errorf("bad hex: %q", e.Message)
	}
}
