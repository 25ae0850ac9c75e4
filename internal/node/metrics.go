package node

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/metrics"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// This file connects the metrics package to the node (--metrics). With
// the option unset s.metrics stays nil and every recording call below is
// a no-op on the nil receiver, so the hooks cost one pointer comparison.

// newMetrics creates the metric set when --metrics is given. The scrape
// sources are set later by serveMetrics, once what they read exists.
func (s *server) newMetrics() {
	if s.cfg.metricsAddr == "" {
		return
	}
	s.metrics = metrics.New(metrics.Options{RPCMethods: append(rpc.MethodNames(), "getzmqnotifications")})
}

// serveMetrics installs the scrape-time sources and binds the endpoint;
// a bind failure fails start-up like a busy P2P port.
func (s *server) serveMetrics() error {
	if s.metrics == nil {
		return nil
	}
	cs, bdb := s.cs, s.bdb
	s.metrics.SetSources(metrics.Sources{
		Chain: func() metrics.ChainStats {
			_, hh := s.chain.BestHeader()
			// The chain does not expose a count of held orphan
			// blocks, so that series is left out (-1).
			return metrics.ChainStats{HeaderHeight: hh, BlockHeight: s.chain.BestSnapshot().Height, Orphans: -1}
		},
		SigCache: s.sigCache.Stats,
		UtxoCache: func() metrics.UtxoCacheStats {
			st := s.cache.Stats()
			return metrics.UtxoCacheStats{
				Entries: st.Entries, Dirty: st.Dirty, MemUsage: st.MemUsage, MaxBytes: st.MaxBytes,
				Hits: st.Hits, Misses: st.Misses, Evictions: st.Evictions, Flushes: st.Flushes,
				FlushedCoins: st.FlushedCoins, LastFlush: st.LastFlush, TotalFlush: st.TotalFlush,
				LastPause: st.LastPause, TotalPause: st.TotalPause,
			}
		},
		LevelDB: map[string]func(*leveldb.DBStats) error{
			"chainstate": cs.LevelDBStats,
			"index":      bdb.LevelDBStats,
		},
		Mempool: func() metrics.MempoolStats {
			in := s.pool.Info()
			return metrics.MempoolStats{Count: in.Size, VSize: in.Bytes, Usage: in.Usage, MinFeeSatKvB: float64(in.MempoolMinFee)}
		},
		Peers: func() (inbound, outbound int) {
			for _, p := range s.peerList() {
				if p.Inbound() {
					inbound++
				} else {
					outbound++
				}
			}
			return inbound, outbound
		},
	})
	srv, err := metrics.Serve(s.cfg.metricsAddr, s.metrics)
	if err != nil {
		return err
	}
	s.metricsSrv = srv
	srvrLog.Infof("Metrics server listening on %s", srv.Addr())
	return nil
}

// closeMetrics stops the endpoint (before the databases its sources read
// are closed).
func (s *server) closeMetrics() {
	if s.metricsSrv == nil {
		return
	}
	if err := s.metricsSrv.Close(); err != nil {
		srvrLog.Warnf("Closing metrics server: %v", err)
	}
	s.metricsSrv = nil
}

// hookPeerMetrics counts every P2P message in both directions, keeping
// any read/write observers already installed.
func (s *server) hookPeerMetrics(l *peer.MessageListeners) {
	m := s.metrics
	if m == nil {
		return
	}
	prevRead, prevWrite := l.OnRead, l.OnWrite
	l.OnRead = func(p *peer.Peer, n int, msg wire.Message, err error) {
		if err == nil && msg != nil {
			m.PeerMessage(msg.Command(), true, n)
		}
		if prevRead != nil {
			prevRead(p, n, msg, err)
		}
	}
	l.OnWrite = func(p *peer.Peer, n int, cmd string, err error) {
		if err == nil {
			m.PeerMessage(cmd, false, n)
		}
		if prevWrite != nil {
			prevWrite(p, n, cmd, err)
		}
	}
}

// chainMetrics is the metrics part of the chain notification handler. A
// reorganisation shows as disconnections followed by the tip change that
// ends the same ProcessBlock call, so it is counted at that tip change.
type chainMetrics struct {
	m            *metrics.Metrics
	disconnected atomic.Bool // a block was disconnected since the last tip change
}

func (c *chainMetrics) notify(n *blockchain.Notification) {
	switch n.Type {
	case blockchain.NTBlockConnected:
		c.m.BlockConnected(len(n.Block.Transactions), 0)
	case blockchain.NTBlockDisconnected:
		c.m.BlockDisconnected()
		c.disconnected.Store(true)
	case blockchain.NTTipChanged:
		if c.disconnected.Swap(false) {
			c.m.Reorg()
		}
	}
}

// recordReject counts a transaction the mempool refused, by reason.
func (s *server) recordReject(err error) {
	if s.metrics == nil || err == nil {
		return
	}
	var re *mempool.RejectError
	if errors.As(err, &re) {
		s.metrics.TxRejected(string(re.Kind))
		return
	}
	s.metrics.TxRejected(metrics.OtherLabel)
}

// rpcOnCall is the RPC server's per-call hook: nil (no hook at all)
// without metrics.
func (s *server) rpcOnCall() func(method string, d time.Duration, err error) {
	m := s.metrics
	if m == nil {
		return nil
	}
	return func(method string, d time.Duration, err error) {
		m.RPCCall(method, d, err != nil)
	}
}
