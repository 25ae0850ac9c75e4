package node

import (
	"errors"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// addPeerAddress serves addpeeraddress. As Core, the address is taken to
// announce itself (it is its own source), with NODE_NETWORK|NODE_WITNESS
// and the current time; a host that is not an IP, Tor v3 or I2P address
// is not added and gets no error text.
func (s *server) addPeerAddress(host string, port uint16, tried bool) (*rpc.AddPeerAddressResult, error) {
	netID, raw, err := wire.ParseHost(host)
	if err != nil || host == "" {
		return &rpc.AddPeerAddressResult{}, nil
	}
	netID = s.cfg.flipCJDNS(netID, raw)
	na := wire.NetAddressV2{
		Timestamp: uint32(clock.Now().Unix()),
		Services:  wire.SFNodeNetwork | wire.SFNodeWitness,
		NetworkID: netID, Addr: raw, Port: port,
	}
	added, moved := s.addrs.AddSelfAnnounced(na, tried)
	switch {
	case !added:
		return &rpc.AddPeerAddressResult{Error: "failed-adding-to-new"}, nil
	case tried && !moved:
		return &rpc.AddPeerAddressResult{Error: "failed-adding-to-tried"}, nil
	}
	return &rpc.AddPeerAddressResult{Success: true}, nil
}

// sendMsgToPeer serves sendmsgtopeer.
func (s *server) sendMsgToPeer(id int64, cmd string, payload []byte) error {
	for _, p := range s.peerList() {
		if int64(p.ID()) == id {
			return p.QueueRaw(cmd, payload)
		}
	}
	return errors.New("no such peer")
}
