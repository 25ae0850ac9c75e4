package node

import (
	"encoding/json"
	"net"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// getpeerinfo's addr_relay_enabled is false for an inbound peer until it
// takes part in address relay (sends getaddr, addr or addrv2), as bitcoind.
func TestPeerInfoAddrRelayEnabled(t *testing.T) {
	n := newTestNode(t)
	r := dialNetPeer(t, n)
	relay := func() (bool, bool) {
		var out []struct {
			AddrRelay bool `json:"addr_relay_enabled"`
		}
		if err := json.Unmarshal(n.must(t, "getpeerinfo"), &out); err != nil {
			t.Fatal(err)
		}
		if len(out) != 1 {
			return false, false
		}
		return out[0].AddrRelay, true
	}
	waitFor(t, 10*time.Second, "peer listed", func() bool { _, ok := relay(); return ok })
	if on, _ := relay(); on {
		t.Fatal("addr relay enabled before the peer asked for it")
	}
	r.send(t, &wire.MsgGetAddr{})
	waitFor(t, 10*time.Second, "addr relay enabled", func() bool { on, _ := relay(); return on })
}

// A peer that has sent nothing yet is listed, as bitcoind lists it:
// version 0, heights -1 and never-sent times 0.
func TestPeerInfoBeforeVersion(t *testing.T) {
	n := newTestNode(t)
	dialP2P(t, n)
	type info struct {
		Version        int   `json:"version"`
		StartingHeight int   `json:"startingheight"`
		SyncedHeaders  int   `json:"synced_headers"`
		Presynced      int   `json:"presynced_headers"`
		LastSend       int64 `json:"lastsend"`
		LastRecv       int64 `json:"lastrecv"`
	}
	var out []info
	waitFor(t, 10*time.Second, "silent peer listed", func() bool {
		out = nil
		json.Unmarshal(n.must(t, "getpeerinfo"), &out)
		return len(out) == 1
	})
	want := info{Version: 0, StartingHeight: -1, SyncedHeaders: -1, Presynced: -1}
	if out[0] != want {
		t.Fatalf("getpeerinfo %+v, want %+v", out[0], want)
	}
}

// addnode onetry makes a manual connection.
func TestAddNodeOneTryIsManual(t *testing.T) {
	n := newTestNode(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	n.must(t, "addnode", l.Addr().String(), "onetry", false) // the test peer speaks v1
	acceptNetPeer(t, n, l, false)
	var out []struct {
		Type string `json:"connection_type"`
	}
	waitFor(t, 10*time.Second, "manual peer", func() bool {
		out = nil
		json.Unmarshal(n.must(t, "getpeerinfo"), &out)
		return len(out) == 1 && out[0].Type == "manual"
	})
}
