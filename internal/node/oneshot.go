package node

import (
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/peer/connmgr"
)

// dialOneShot dials addr once, without retries and outside the automatic
// outbound slots, as a connection of type typ. The type is recorded
// before the dial starts, so onConnection always finds it.
func (s *server) dialOneShot(addr string, typ peer.ConnType) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	req, err := s.cm.ConnectOneShot(addr)
	if err != nil {
		return err
	}
	s.oneShot[req.ID] = typ
	return nil
}

// addrFetch opens an addr-fetch connection to host (a seed node, or a DNS
// seed's name through the proxy): the peer is asked for addresses and
// dropped once it answers.
func (s *server) addrFetch(host string) {
	addr := connmgr.NormalizeAddress(host, s.cfg.params.DefaultPort)
	if err := s.dialOneShot(addr, peer.ConnAddrFetch); err != nil {
		amgrLog.Debugf("addr-fetch %s: %v", addr, err)
	}
}
