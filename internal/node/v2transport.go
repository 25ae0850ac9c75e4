package node

import (
	"errors"
	"net/netip"

	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/peer/connmgr"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// v2Enabled reports whether --v2transport is on: NODE_P2P_V2 is
// advertised, inbound peers may use BIP324 and outbound ones do when
// they advertise it.
func (cfg *Config) v2Enabled() bool {
	return cfg.V2Transport != "0" && cfg.V2Transport != "false"
}

// setV2Choice records the transport for a connection request; the
// caller holds s.mu.
func (s *server) setV2Choice(id uint64, v2 bool) {
	if s.v2Choice == nil {
		s.v2Choice = make(map[uint64]bool)
	}
	s.v2Choice[id] = v2
}

// outboundV2 decides whether to open req in v2: when enabled, for a
// request whose caller asked for it (addnode, addconnection), and
// otherwise for addresses the address manager knows to advertise
// NODE_P2P_V2 (as Core, --connect peers of unknown services get v1).
func (s *server) outboundV2(req *connmgr.ConnReq) bool {
	s.mu.Lock()
	v2, chosen := s.v2Choice[req.ID]
	if chosen && !req.Permanent {
		delete(s.v2Choice, req.ID)
	}
	s.mu.Unlock()
	if !s.cfg.v2Enabled() {
		return false
	}
	if chosen {
		return v2
	}
	ap, err := netip.ParseAddrPort(req.Addr)
	if err != nil {
		return false
	}
	na := wire.NetAddressV2FromNetAddress(wire.NewNetAddress(netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), 0, 0))
	ka, ok := s.addrs.Lookup(na)
	return ok && ka.Addr.Services&wire.SFNodeP2PV2 != 0
}

// dialOneShotV2 is dialOneShot with the transport given.
func (s *server) dialOneShotV2(addr string, typ peer.ConnType, v2 bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	req, err := s.cm.ConnectOneShot(addr)
	if err != nil {
		return err
	}
	s.oneShot[req.ID] = typ
	s.setV2Choice(req.ID, v2)
	return nil
}

// retryV1 reconnects once in v1 to an outbound peer whose v2 handshake
// failed, as Core does for peers that turn out not to speak v2: a
// permanent request's next attempt is v1; any other becomes a one-shot
// v1 connection of the same type.
func (s *server) retryV1(p *peer.Peer, req *connmgr.ConnReq) {
	// A connection we closed ourselves (disconnectnode, eviction,
	// shutdown) mid-handshake is not the peer refusing v2.
	if req == nil || p.Inbound() || !p.V2HandshakeFailed() || errors.Is(p.Err(), peer.ErrDisconnected) {
		return
	}
	select {
	case <-s.quit:
		return
	default:
	}
	srvrLog.Debugf("v2 handshake with %s failed; retrying with v1", req.Addr)
	if req.Permanent {
		s.mu.Lock()
		s.setV2Choice(req.ID, false)
		s.mu.Unlock()
		return
	}
	if err := s.dialOneShotV2(req.Addr, p.ConnType(), false); err != nil {
		srvrLog.Debugf("v1 retry of %s: %v", req.Addr, err)
	}
}

// checkV2Request refuses an RPC's request for a v2 connection when
// --v2transport is off, with Core's error.
func (s *server) checkV2Request(v2 bool) error {
	if v2 && !s.cfg.v2Enabled() {
		return rpc.NewError(rpc.ErrInvalidParam, "Error: v2transport requested but not enabled (see -v2transport)")
	}
	return nil
}
