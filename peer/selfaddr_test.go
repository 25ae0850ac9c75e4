package peer

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// TestPingNow: PingNow replaces an outstanding ping with a fresh nonce;
// only the pong to the new nonce sets the ping time.
func TestPingNow(t *testing.T) {
	p, r := newInboundWithRemote(t, baseConfig(), "198.51.100.7:1")
	r.handshake()
	first := r.recvUntil(wire.CmdPing).(*wire.MsgPing)
	p.PingNow()
	second := r.recvUntil(wire.CmdPing).(*wire.MsgPing)
	if second.Nonce == first.Nonce {
		t.Fatal("PingNow reused the outstanding nonce")
	}
	if p.Stats().PingWait <= 0 {
		t.Fatal("no ping outstanding after PingNow")
	}
	r.send(&wire.MsgPong{Nonce: first.Nonce})
	r.send(&wire.MsgPong{Nonce: second.Nonce})
	waitCond(t, "ping time", 5*time.Second, func() bool { return p.Stats().LastPingRTT > 0 })
	if st := p.Stats(); st.PingWait != 0 || st.MinPingRTT <= 0 {
		t.Fatalf("after pong: %+v", st)
	}
}

// outboundWithRemote starts an outbound peer whose remote (the accepting
// side) is driven by hand through the handshake; addrV2 makes the remote
// ask for BIP155 addresses.
func outboundWithRemote(t *testing.T, cfg *Config, addrV2 bool) (*Peer, *remote) {
	t.Helper()
	c1, c2 := net.Pipe()
	p := NewOutbound(cfg, withAddr(c1, "198.51.100.9:8333"), "198.51.100.9:8333")
	t.Cleanup(func() {
		p.Disconnect()
		c2.Close()
		<-p.Done()
	})
	p.Start()
	r := &remote{t: t, conn: c2, pver: wire.ProtocolVersion}
	r.recvUntil(wire.CmdVersion)
	v := r.version(999)
	v.AddrYou = wire.NetAddress{Addr: netip.MustParseAddr("5.6.7.8"), Port: 40000}
	r.send(v)
	if addrV2 {
		r.send(&wire.MsgSendAddrV2{})
	}
	r.send(&wire.MsgVerAck{})
	r.recvUntil(wire.CmdVerAck)
	return p, r
}

// TestAnnounceSelf: an outbound peer announces our address right after
// the handshake, in addr or addrv2 as negotiated, and records the address
// the remote saw us at; an inbound peer once it takes part in address
// relay (here by asking with getaddr), then on the periodic schedule.
func TestAnnounceSelf(t *testing.T) {
	us := wire.NetAddressV2FromNetAddress(wire.NewNetAddress(netip.MustParseAddrPort("1.2.3.4:8333"), wire.SFNodeNetwork, 0))
	cfg := baseConfig()
	cfg.LocalAddress = func(*Peer) (wire.NetAddressV2, bool) { return us, true }
	for _, v2 := range []bool{false, true} {
		p, r := outboundWithRemote(t, cfg, v2)
		var got string
		if v2 {
			m := r.recvUntil(wire.CmdAddrV2).(*wire.MsgAddrV2)
			got = m.AddrList[0].String()
		} else {
			m := r.recvUntil(wire.CmdAddr).(*wire.MsgAddr)
			got = m.AddrList[0].AddrPort().String()
		}
		if got != "1.2.3.4:8333" {
			t.Fatalf("announced %s", got)
		}
		if me := p.AddrLocal(); me.String() != "5.6.7.8:40000" {
			t.Fatalf("AddrLocal %v", me)
		}
	}
	in := baseConfig()
	in.LocalAddress = cfg.LocalAddress
	in.LocalAddrInterval = 50 * time.Millisecond
	in.AddrInterval = 20 * time.Millisecond
	_, r := newInboundWithRemote(t, in, "198.51.100.8:1")
	r.handshake()
	r.sendRaw(okFrame(wire.CmdGetAddr, nil))
	for range 2 {
		m := r.recvUntil(wire.CmdAddrV2).(*wire.MsgAddrV2)
		if m.AddrList[0].String() != "1.2.3.4:8333" {
			t.Fatalf("announcement %v", m.AddrList[0])
		}
	}
}
