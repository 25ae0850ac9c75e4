package node

import (
	"encoding/json"
	"testing"
	"time"
)

type transportInfo struct {
	Addr      string           `json:"addr"`
	Inbound   bool             `json:"inbound"`
	Transport string           `json:"transport_protocol_type"`
	SessionID string           `json:"session_id"`
	Services  []string         `json:"servicesnames"`
	RecvPer   map[string]int64 `json:"bytesrecv_per_msg"`
}

// handshaken returns n's peers once exactly want of them have finished
// the version handshake.
func handshaken(t *testing.T, n *testNode, want int) []transportInfo {
	t.Helper()
	var out []transportInfo
	waitFor(t, 20*time.Second, "peers", func() bool {
		out = nil
		json.Unmarshal(n.must(t, "getpeerinfo"), &out)
		done := 0
		for _, p := range out {
			if p.RecvPer["verack"] > 0 {
				done++
			}
		}
		return len(out) == want && done == want
	})
	return out
}

// Two of our nodes speak v2 to each other: getpeerinfo on both sides
// says so, with the same session id, and the remote advertises P2P_V2.
func TestV2BetweenNodes(t *testing.T) {
	a := newTestNode(t)
	b := newTestNode(t)
	b.must(t, "addnode", a.s.p2pAddr(), "onetry", true)
	pa, pb := handshaken(t, a, 1)[0], handshaken(t, b, 1)[0]
	for _, p := range []transportInfo{pa, pb} {
		if p.Transport != "v2" || len(p.SessionID) != 64 {
			t.Fatalf("peer %+v", p)
		}
	}
	if pa.SessionID != pb.SessionID {
		t.Fatalf("session ids %s and %s", pa.SessionID, pb.SessionID)
	}
	found := false
	for _, s := range pb.Services {
		found = found || s == "P2P_V2"
	}
	if !found {
		t.Fatalf("services %v lack P2P_V2", pb.Services)
	}
	// Blocks travel over the session.
	a.mine(t, 3)
	sameTip(t, 20*time.Second, a, b)
}

// A v2 attempt to a v1-only node fails and is retried once in v1.
func TestV2FallbackToV1(t *testing.T) {
	a := newTestNode(t, "--v2transport=0")
	b := newTestNode(t)
	b.must(t, "addnode", a.s.p2pAddr(), "onetry", true)
	pa, pb := handshaken(t, a, 1)[0], handshaken(t, b, 1)[0]
	for _, p := range []transportInfo{pa, pb} {
		if p.Transport != "v1" || p.SessionID != "" {
			t.Fatalf("peer %+v", p)
		}
	}
	// And a v1-only node refuses to be asked for v2.
	if _, rerr := a.rpcCall(t, "addnode", b.s.p2pAddr(), "onetry", true); rerr == nil || rerr.Code != -8 {
		t.Fatalf("addnode v2transport on a v1 node: %v", rerr)
	}
}

// A v1 node dialing a v2 node is detected and served in v1.
func TestV2NodeAcceptsV1(t *testing.T) {
	a := newTestNode(t, "--v2transport=0")
	b := newTestNode(t)
	a.must(t, "addnode", b.s.p2pAddr(), "onetry")
	pb := handshaken(t, b, 1)[0]
	if pb.Transport != "v1" || pb.SessionID != "" || !pb.Inbound {
		t.Fatalf("peer %+v", pb)
	}
	handshaken(t, a, 1)
}
