package peer

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

func reconConfig() *Config {
	cfg := baseConfig()
	cfg.TxReconciliation = true
	return cfg
}

// versionUpTo sends the remote's version (and wtxidrelay when asked) and
// returns the commands the peer sends up to and including its verack, and
// the sendtxrcncl among them, if any.
func (r *remote) versionUpTo(v *wire.MsgVersion, wtxid bool) (cmds []string, rc *wire.MsgSendTxRcncl) {
	r.t.Helper()
	r.send(v)
	if wtxid {
		r.send(&wire.MsgWtxidRelay{})
	}
	for range 20 {
		msg, err := r.recv()
		if err != nil {
			r.t.Fatalf("remote waiting for verack: %v (got %v)", err, cmds)
		}
		cmds = append(cmds, msg.Command())
		if m, ok := msg.(*wire.MsgSendTxRcncl); ok {
			rc = m
		}
		if msg.Command() == wire.CmdVerAck {
			return cmds, rc
		}
	}
	r.t.Fatalf("no verack in %v", cmds)
	return nil, nil
}

// BIP330 puts sendtxrcncl between version and verack; Core sends it after
// wtxidrelay and sendaddrv2, with version 1 and a fresh salt.
func TestTxRcnclSentBeforeVerAck(t *testing.T) {
	_, r := newInboundWithRemote(t, reconConfig(), "203.0.113.60:1")
	cmds, rc := r.versionUpTo(r.version(1), true)
	want := []string{wire.CmdVersion, wire.CmdWtxidRelay, wire.CmdSendAddrV2, wire.CmdSendTxRcncl, wire.CmdVerAck}
	if fmt.Sprint(cmds) != fmt.Sprint(want) {
		t.Fatalf("sent %v, want %v", cmds, want)
	}
	if rc.Version != TxReconciliationVersion {
		t.Fatalf("announced version %d", rc.Version)
	}
	_, r2 := newInboundWithRemote(t, reconConfig(), "203.0.113.61:1")
	if _, rc2 := r2.versionUpTo(r2.version(2), true); rc2.Salt == rc.Salt {
		t.Fatalf("two peers got the same salt %#x", rc.Salt)
	}
}

// Who is offered reconciliation, by Core's rules.
func TestTxRcnclSendRules(t *testing.T) {
	cases := []struct {
		name    string
		off     bool // -txreconciliation not given
		inbound bool
		typ     ConnType
		perms   Permissions
		blocks  bool // -blocksonly
		pver    int32
		noRelay bool // the remote's version asks for no transactions
		want    bool
	}{
		{name: "inbound", inbound: true, want: true},
		{name: "outbound full relay", typ: ConnFullRelay, want: true},
		{name: "manual", typ: ConnManual, want: true},
		{name: "option off", off: true, inbound: true},
		{name: "before wtxid relay", inbound: true, pver: 70015},
		{name: "relay flag off", inbound: true, noRelay: true},
		{name: "blocksonly", inbound: true, blocks: true},
		{name: "blocksonly with relay permission", inbound: true, blocks: true, perms: PermRelay},
		{name: "block-relay-only", typ: ConnBlockRelay},
		{name: "addr-fetch", typ: ConnAddrFetch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := reconConfig()
			cfg.TxReconciliation = !c.off
			cfg.DisableRelayTx = c.blocks
			_, r := startWithRemote(t, cfg, c.inbound, c.typ, c.perms)
			if !c.inbound {
				r.recvUntil(wire.CmdVersion)
			}
			v := r.version(3)
			if c.pver != 0 {
				v.ProtocolVersion = c.pver
			}
			v.DisableRelayTx = c.noRelay
			_, rc := r.versionUpTo(v, true)
			if got := rc != nil; got != c.want {
				t.Fatalf("sendtxrcncl sent: %v, want %v", got, c.want)
			}
		})
	}
}

// A feeler is dropped at the remote's version and is sent nothing of the
// handshake, sendtxrcncl included.
func TestTxRcnclNotToFeeler(t *testing.T) {
	p, r := startWithRemote(t, reconConfig(), false, ConnFeeler, 0)
	r.recvUntil(wire.CmdVersion)
	r.send(r.version(4))
	if cmds := r.commandsFor(300 * time.Millisecond); len(cmds) != 0 {
		t.Fatalf("feeler sent %v", cmds)
	}
	waitDone(t, p, 5*time.Second)
}

// reconSaltRef is BIP330's salt written out with sha256 alone, so the
// check does not share code with the implementation.
func reconSaltRef(a, b uint64) (uint64, uint64) {
	if a > b {
		a, b = b, a
	}
	tag := sha256.Sum256([]byte("Tx Relay Salting"))
	h := sha256.New()
	h.Write(tag[:])
	h.Write(tag[:])
	h.Write(binary.LittleEndian.AppendUint64(nil, a))
	h.Write(binary.LittleEndian.AppendUint64(nil, b))
	sum := h.Sum(nil)
	return binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])
}

// A valid sendtxrcncl before verack registers the peer: the common
// version, the salts combined in either order, and who initiates.
func TestTxRcnclRegister(t *testing.T) {
	for _, remoteVersion := range []uint32{1, 2} {
		cfg := reconConfig()
		logs := captureLog(cfg)
		p, r := newInboundWithRemote(t, cfg, "203.0.113.62:1")
		_, ours := r.versionUpTo(r.version(5), true)
		r.send(&wire.MsgSendTxRcncl{Version: remoteVersion, Salt: 2})
		logs.waitFor(t, fmt.Sprintf("received: sendtxrcncl (12 bytes) peer=%d", p.ID()))
		logs.waitFor(t, fmt.Sprintf("Register peer=%d (inbound=1)", p.ID()))
		r.send(&wire.MsgVerAck{})
		r.inStep()
		st, ok := p.TxReconciliation()
		k0, k1 := reconSaltRef(ours.Salt, 2)
		want := ReconciliationState{Version: 1, Initiator: false, K0: k0, K1: k1}
		if !ok || st != want {
			t.Fatalf("remote version %d: state %+v %v, want %+v", remoteVersion, st, ok, want)
		}
		if logs.has("Forget txreconciliation state") {
			t.Fatal("registered state dropped at verack")
		}
	}
	if a, b := reconSalt(7, 9); fmt.Sprint(a, b) != fmt.Sprint(reconSalt(9, 7)) {
		t.Fatal("salt depends on the order")
	}
}

// An outbound full-relay peer registers too, and we are the initiator.
func TestTxRcnclRegisterOutbound(t *testing.T) {
	cfg := reconConfig()
	logs := captureLog(cfg)
	p, r := startWithRemote(t, cfg, false, ConnFullRelay, 0)
	r.recvUntil(wire.CmdVersion)
	if _, rc := r.versionUpTo(r.version(6), true); rc == nil {
		t.Fatal("no sendtxrcncl to an outbound full-relay peer")
	}
	r.send(&wire.MsgSendTxRcncl{Version: 1, Salt: 3})
	r.send(&wire.MsgVerAck{})
	r.inStep()
	logs.waitFor(t, fmt.Sprintf("Register peer=%d (inbound=0)", p.ID()))
	if st, ok := p.TxReconciliation(); !ok || !st.Initiator {
		t.Fatalf("state %+v %v", st, ok)
	}
}

// Each way a received sendtxrcncl is refused or ignored, with the log
// line Core's p2p_sendtxrcncl.py looks for.
func TestTxRcnclReceiveRules(t *testing.T) {
	valid := &wire.MsgSendTxRcncl{Version: 1, Salt: 2}
	cases := []struct {
		name       string
		off        bool
		typ        ConnType // outbound when set
		pver       int32
		noRelay    bool
		noWtxid    bool
		afterVerAk bool
		msgs       []wire.Message
		raw        []byte // sent instead of msgs
		log        string // %d, if present, is the peer id
		disconnect bool
	}{
		{name: "option off", off: true, msgs: []wire.Message{valid},
			log: "sendtxrcncl from peer=%d ignored, as our node does not have txreconciliation enabled"},
		{name: "twice", msgs: []wire.Message{valid, valid}, disconnect: true,
			log: "txreconciliation protocol violation (sendtxrcncl received from already registered peer), disconnecting peer=%d"},
		{name: "version 0", msgs: []wire.Message{&wire.MsgSendTxRcncl{Version: 0, Salt: 2}}, disconnect: true,
			log: "txreconciliation protocol violation, disconnecting peer=%d"},
		{name: "not offered", pver: 70015, msgs: []wire.Message{valid},
			log: "Ignore unexpected txreconciliation signal from peer=%d"},
		{name: "after verack", afterVerAk: true, msgs: []wire.Message{valid}, disconnect: true,
			log: "sendtxrcncl received after verack, disconnecting peer=%d"},
		{name: "malformed after verack", afterVerAk: true, raw: okFrame(wire.CmdSendTxRcncl, []byte{1}), disconnect: true,
			log: "sendtxrcncl received after verack, disconnecting peer=%d"},
		{name: "we asked for no transactions", typ: ConnBlockRelay, msgs: []wire.Message{valid}, disconnect: true,
			log: "sendtxrcncl received to which we indicated no tx relay, disconnecting peer=%d"},
		{name: "peer asked for no transactions", noRelay: true, msgs: []wire.Message{valid}, disconnect: true,
			log: "sendtxrcncl received which indicated no tx relay to us, disconnecting peer=%d"},
		{name: "no wtxidrelay", noWtxid: true, msgs: []wire.Message{valid, &wire.MsgVerAck{}},
			log: "Forget txreconciliation state of peer=%d"},
		{name: "malformed before verack", raw: okFrame(wire.CmdSendTxRcncl, []byte{1, 2, 3}),
			log: "ProcessMessages(sendtxrcncl, 3 bytes): Exception"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := reconConfig()
			cfg.TxReconciliation = !c.off
			logs := captureLog(cfg)
			p, r := startWithRemote(t, cfg, c.typ == "", c.typ, 0)
			if c.typ != "" {
				r.recvUntil(wire.CmdVersion)
			}
			v := r.version(7)
			if c.pver != 0 {
				v.ProtocolVersion = c.pver
			}
			v.DisableRelayTx = c.noRelay
			r.versionUpTo(v, !c.noWtxid)
			if c.afterVerAk {
				r.send(&wire.MsgVerAck{})
				r.inStep()
			}
			if c.raw != nil {
				r.sendRaw(c.raw)
			}
			for _, m := range c.msgs {
				r.send(m)
			}
			want := c.log
			if strings.Contains(want, "%d") {
				want = fmt.Sprintf(want, p.ID())
			}
			logs.waitFor(t, want)
			if c.disconnect {
				r.drain()
				waitDone(t, p, 5*time.Second)
				if !errors.Is(p.Err(), ErrProtocolViolation) || p.BanScore() != 0 {
					t.Fatalf("err %v score %d", p.Err(), p.BanScore())
				}
				return
			}
			if !c.afterVerAk && !c.noWtxid {
				r.send(&wire.MsgVerAck{})
			}
			r.inStep()
			if !p.Connected() {
				t.Fatalf("disconnected: %v", p.Err())
			}
			if _, ok := p.TxReconciliation(); ok {
				t.Fatal("peer registered")
			}
		})
	}
}

// A peer we offered reconciliation that never answers is forgotten at
// its verack.
func TestTxRcnclForgetUnanswered(t *testing.T) {
	cfg := reconConfig()
	logs := captureLog(cfg)
	p, r := newInboundWithRemote(t, cfg, "203.0.113.63:1")
	r.versionUpTo(r.version(8), true)
	r.send(&wire.MsgVerAck{})
	logs.waitFor(t, fmt.Sprintf("Forget txreconciliation state of peer=%d", p.ID()))
	if _, ok := p.TxReconciliation(); ok {
		t.Fatal("unanswered offer registered")
	}
}
