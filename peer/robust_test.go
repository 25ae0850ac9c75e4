package peer

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/btcnode/btcd/peer/banmgr"
	"github.com/btcnode/btcd/wire"
)

// frame builds a raw message; a nil sum means the correct checksum.
func rawFrame(net wire.BitcoinNet, cmd string, payload []byte, length uint32, sum []byte) []byte {
	h := wire.MessageHeader{Net: net, Command: cmd, Length: length}
	if sum == nil {
		d := wire.DoubleHashH(payload)
		copy(h.Checksum[:], d[:4])
	} else {
		copy(h.Checksum[:], sum)
	}
	return append(h.AppendTo(nil), payload...)
}

func okFrame(cmd string, payload []byte) []byte {
	return rawFrame(testNet, cmd, payload, uint32(len(payload)), nil)
}

func TestRobustness(t *testing.T) {
	pingPayload := binary.LittleEndian.AppendUint64(nil, 7)
	tests := []struct {
		name      string
		handshake bool
		send      []byte
		sendMsg   wire.Message
		wantErr   error // nil: stays connected
		wantScore uint32
		anyScore  bool // some penalty below the threshold; which depends on wire's check order
		// beforeVersion: the remote does the handshake after sending.
		beforeVersion bool
	}{
		{name: "bad checksum", handshake: true,
			send: rawFrame(testNet, wire.CmdPing, pingPayload, 8, []byte{1, 2, 3, 4}), wantErr: ErrBadMessage, wantScore: PenaltyBadChecksum},
		{name: "oversized length", handshake: true,
			send: rawFrame(testNet, wire.CmdTx, nil, wire.MaxProtocolMessageLength+1, []byte{0, 0, 0, 0}), wantErr: ErrBadMessage, wantScore: PenaltyOversized},
		{name: "over command limit", handshake: true,
			send: rawFrame(testNet, wire.CmdPing, nil, 1000, []byte{0, 0, 0, 0}), wantErr: ErrBadMessage, wantScore: PenaltyOversized},
		// Payloads that do not decode are dropped, as Core drops them.
		{name: "truncated payload ignored", handshake: true,
			send: okFrame(wire.CmdPing, pingPayload[:4])},
		{name: "trailing data ignored", handshake: true,
			send: okFrame(wire.CmdInv, []byte{0, 0})},
		{name: "wrong network", handshake: true,
			send: rawFrame(wire.MainNet, wire.CmdPing, pingPayload, 8, nil), wantErr: ErrBadMessage, anyScore: true},
		{name: "unknown command ignored", handshake: true,
			send: okFrame("madeup", []byte("0123456789"))},
		{name: "garbage before handshake",
			send: []byte("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"), wantErr: ErrBadMessage, anyScore: true},
		// Core ignores messages before version without a score (the
		// peer then has until the handshake timeout).
		{name: "message before version", beforeVersion: true,
			send: okFrame(wire.CmdPing, pingPayload)},
		// Late feature negotiation disconnects, unscored, as in Core.
		{name: "wtxidrelay after verack", handshake: true,
			sendMsg: &wire.MsgWtxidRelay{}, wantErr: ErrProtocolViolation},
		{name: "sendaddrv2 after verack", handshake: true,
			sendMsg: &wire.MsgSendAddrV2{}, wantErr: ErrProtocolViolation},
		{name: "duplicate version", handshake: true,
			sendMsg: (&remote{}).version(9)},
		{name: "oversized addr", handshake: true,
			send: okFrame(wire.CmdAddr, addrPayload(1001)), wantErr: ErrProtocolViolation, wantScore: PenaltyOversized},
		{name: "filterload without bloom", handshake: true,
			sendMsg: &wire.MsgFilterLoad{Filter: []byte{0}, HashFuncs: 1}, wantErr: ErrProtocolViolation},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bans, _ := banmgr.New(banmgr.Config{})
			cfg := baseConfig()
			cfg.Bans = bans
			p, r := newInboundWithRemote(t, cfg, "203.0.113.9:4000")
			if tc.handshake {
				r.handshake()
				waitCond(t, "handshake", 5*time.Second, func() bool { return p.handshakeComplete() })
			}
			if tc.wantErr != nil {
				r.drain()
			}
			if tc.send != nil {
				r.sendRaw(tc.send)
			}
			if tc.sendMsg != nil {
				r.send(tc.sendMsg)
			}
			if tc.beforeVersion {
				r.handshake()
			}
			if tc.wantErr != nil {
				waitDone(t, p, 5*time.Second)
				if !errors.Is(p.Err(), tc.wantErr) {
					t.Fatalf("err %v, want %v", p.Err(), tc.wantErr)
				}
			} else {
				// Still in step: a ping is answered.
				r.send(&wire.MsgPing{Nonce: 4242})
				for {
					m := r.recvUntil(wire.CmdPong)
					if m.(*wire.MsgPong).Nonce == 4242 {
						break
					}
				}
				if !p.Connected() {
					t.Fatalf("disconnected: %v", p.Err())
				}
			}
			if got := p.BanScore(); tc.anyScore {
				if got == 0 || got >= DefaultBanThreshold {
					t.Fatalf("score %d (err %v)", got, p.Err())
				}
			} else if got != tc.wantScore {
				t.Fatalf("score %d, want %d (err %v)", got, tc.wantScore, p.Err())
			}
			if bans.IsBanned(netip.MustParseAddr("203.0.113.9")) {
				t.Fatal("a single protocol error banned the peer")
			}
		})
	}
}

func TestMisbehavingBans(t *testing.T) {
	dir := t.TempDir()
	bans, err := banmgr.New(banmgr.Config{DataDir: dir, Whitelist: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := baseConfig()
	cfg.Bans = bans
	cfg.BanThreshold = 100

	p, r := newInboundWithRemote(t, cfg, "203.0.113.50:4000")
	r.handshake()
	r.drain()
	if !p.WaitForHandshake() {
		t.Fatal(p.Err())
	}
	if p.Misbehaving(60, "invalid header") {
		t.Fatal("banned below threshold")
	}
	if !p.Connected() {
		t.Fatal("disconnected below threshold")
	}
	if !p.Misbehaving(40, "invalid block") {
		t.Fatal("not banned at threshold")
	}
	waitDone(t, p, 5*time.Second)
	if !errors.Is(p.Err(), ErrBanned) {
		t.Fatalf("err %v", p.Err())
	}
	ip := netip.MustParseAddr("203.0.113.50")
	if !bans.IsBanned(ip) {
		t.Fatal("address not banned")
	}
	// The ban survives a restart of the ban manager.
	bans2, err := banmgr.New(banmgr.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !bans2.IsBanned(ip) {
		t.Fatal("ban lost across restart")
	}

	// Whitelisted peers are neither banned nor disconnected.
	wp, wr := newInboundWithRemote(t, cfg, "192.0.2.7:4000")
	wr.handshake()
	wr.drain()
	if !wp.WaitForHandshake() {
		t.Fatal(wp.Err())
	}
	if !wp.Whitelisted() || wp.Misbehaving(500, "invalid block") {
		t.Fatal("whitelisted peer banned")
	}
	if !wp.Connected() || bans.IsBanned(netip.MustParseAddr("192.0.2.7")) {
		t.Fatal("whitelisted peer disconnected or banned")
	}
}

// A protocol penalty that reaches the threshold bans.
func TestProtocolPenaltyBansAtThreshold(t *testing.T) {
	bans, _ := banmgr.New(banmgr.Config{})
	cfg := baseConfig()
	cfg.Bans = bans
	cfg.BanThreshold = PenaltyOversized
	p, r := newInboundWithRemote(t, cfg, "203.0.113.77:1")
	r.handshake()
	r.drain()
	r.sendRaw(okFrame(wire.CmdAddr, addrPayload(1001)))
	waitDone(t, p, 5*time.Second)
	if !errors.Is(p.Err(), ErrBanned) || !bans.IsBanned(netip.MustParseAddr("203.0.113.77")) {
		t.Fatalf("err %v", p.Err())
	}
}
