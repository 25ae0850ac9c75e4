package node

import (
	"strings"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// This file wires btcd's websocket API (rpc/websocket.go) and btcd's
// extension methods to the node: the backend of getinfo, getheaders and
// getcurrentnet, and the chain and mempool events the websocket clients
// are notified of.

// maxLocateHeaders is how many headers getheaders returns at most, as a
// P2P headers message.
const maxLocateHeaders = 2000

// btcdBackend serves btcd's extension methods. Under bitcoind's front
// end getinfo stays "Method not found" as in bitcoind: rpcclient takes a
// server that answers it for btcd and would pick btcd's call variants.
func (s *server) btcdBackend() *rpc.BtcdBackend {
	b := &rpc.BtcdBackend{
		Info: func() (*rpc.BtcdInfo, error) {
			best := s.chain.BestSnapshot()
			name := s.cfg.params.Name
			return &rpc.BtcdInfo{
				ProtocolVersion: int32(wire.ProtocolVersion),
				Blocks:          best.Height,
				Connections:     int32(len(s.peerList())),
				Proxy:           s.cfg.Proxy,
				Difficulty:      rpc.GetDifficulty(best.Bits),
				TestNet:         name == "test" || name == "testnet4",
				RelayFee:        rpc.FormatBTC(s.cfg.minRelayTxFeeSat),
				Errors:          strings.Join(s.chain.Warnings(), "; "),
			}, nil
		},
		LocateHeaders: func(locator []wire.Hash, stop wire.Hash) ([]wire.BlockHeader, error) {
			return s.chain.LocateHeaders(locator, &stop, maxLocateHeaders), nil
		},
		Net: uint32(s.cfg.params.Net),
	}
	if s.cfg.Bitcoind.Layout {
		b.Info = nil
	}
	return b
}

// watchWebsockets feeds block connections and disconnections to the
// websocket clients. It is called once the RPC server exists; the chain
// delivers events after the mempool has applied them.
func (s *server) watchWebsockets() {
	if s.rpc == nil {
		return
	}
	srv := s.rpc
	s.chain.Subscribe(func(n *blockchain.Notification) {
		switch n.Type {
		case blockchain.NTBlockConnected:
			srv.NotifyBlockConnected(n.Block, n.Hash, n.Height)
		case blockchain.NTBlockDisconnected:
			srv.NotifyBlockDisconnected(n.Block, n.Hash, n.Height)
		}
	})
}

// wsTxAccepted tells the websocket clients of a transaction the mempool
// accepted (the mempool's OnAccept hook).
func (s *server) wsTxAccepted(e *mempool.Entry) {
	if s.rpc != nil {
		s.rpc.NotifyTxAccepted(e.Tx)
	}
}
