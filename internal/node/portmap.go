package node

import (
	"context"
	"net/netip"
	"time"

	"github.com/btcnode/btcd/peer/addrmgr"
	"github.com/btcnode/btcd/peer/portmap"
	"github.com/btcnode/btcd/wire"
)

// The mapping is asked for with twice this lifetime and renewed this
// often; a failed attempt is retried after portmapRetry (bitcoind's
// periods).
const (
	portmapReannounce = 20 * time.Minute
	portmapRetry      = 5 * time.Minute
)

// startPortMapping runs --natpmp: it keeps a forwarding of the listening
// port on the default gateway (PCP, else NAT-PMP) and advertises the
// public address the gateway gives as one of ours.
func (s *server) startPortMapping() {
	if !s.cfg.NatPMP || len(s.listeners) == 0 {
		return
	}
	port := s.listenPort()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		cmgrLog.Info("mapport thread start")
		defer cmgrLog.Info("mapport thread exit")
		var last netip.AddrPort
		for {
			wait := portmapRetry
			m, err := s.mapPort(port)
			switch {
			case err != nil:
				cmgrLog.Debugf("portmap: %v", err)
				if last.IsValid() {
					s.addrs.RemoveLocalNetAddress(wire.NetAddressV2FromNetAddress(wire.NewNetAddress(last, 0, 0)))
					last = netip.AddrPort{}
				}
			default:
				cmgrLog.Infof("portmap: Added mapping %s %d -> %s (for %ds)", m.Proto, port, m.External, int(m.Lifetime/time.Second))
				if last.IsValid() && last != m.External {
					s.addrs.RemoveLocalNetAddress(wire.NetAddressV2FromNetAddress(wire.NewNetAddress(last, 0, 0)))
				}
				last = m.External
				s.addrs.AddLocalAddress(m.External, addrmgr.LocalScoreMapped)
				wait = min(portmapReannounce, max(m.Lifetime/2, time.Minute))
			}
			if !s.sleep(wait) {
				return
			}
		}
	}()
}

// mapPort asks the gateway (the default route's, or the one a test set)
// for the mapping.
func (s *server) mapPort(port uint16) (portmap.Mapping, error) {
	gw := s.cfg.portmapGateway
	if !gw.IsValid() {
		ip, err := portmap.DefaultGateway()
		if err != nil {
			return portmap.Mapping{}, err
		}
		gw = netip.AddrPortFrom(ip, portmap.Port)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return portmap.MapTCP(ctx, gw, port, 2*portmapReannounce)
}
