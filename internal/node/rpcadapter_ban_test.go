package node

import (
	"strings"
	"testing"
)

// setban takes Tor v3 addresses (bitcoind bans them as single-host
// subnets) and refuses an absolute expiry already past with -8.
func TestSetBanOnionAndPastAbsolute(t *testing.T) {
	n := newTestNode(t, "--banduration=1234s")
	const onion = "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion"
	if _, rerr := n.rpcCall(t, "setban", onion, "add"); rerr != nil {
		t.Fatalf("setban onion: %d %s", rerr.Code, rerr.Message)
	}
	res, _ := n.rpcCall(t, "listbanned")
	if !strings.Contains(string(res), `"address":"`+onion+`"`) || !strings.Contains(string(res), `"ban_duration":1234`) {
		t.Fatalf("listbanned %s", res)
	}
	if _, rerr := n.rpcCall(t, "setban", onion, "remove"); rerr != nil {
		t.Fatalf("unban onion: %s", rerr.Message)
	}
	if _, rerr := n.rpcCall(t, "setban", "bad.onion", "add"); rerr == nil || rerr.Code != -30 {
		t.Fatalf("bad onion: %+v", rerr)
	}
	_, rerr := n.rpcCall(t, "setban", "127.27.0.1", "add", 123, true)
	if rerr == nil || rerr.Code != -8 || rerr.Message != "Error: Absolute timestamp is in the past" {
		t.Fatalf("past absolute: %+v", rerr)
	}
}
