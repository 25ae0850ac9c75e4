package node

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/peer/addrmgr"
	"github.com/btcnode/btcd/peer/connmgr"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// newRPCServer builds the RPC server with its backend adapters over the
// chain, the mempool and the peers.
func (s *server) newRPCServer() (*rpc.Server, error) {
	cfg := s.cfg
	backend := rpc.Backend{
		Chain:   s.chainBackend(),
		Mempool: s.mempoolBackend(),
		Mining:  s.miningBackend(),
		Net:     s.netBackend(),
		Test:    s.testBackend(),
		Btcd:    s.btcdBackend(), // websocket.go
		// s.zmq is set before the RPC server is built, which stops
		// before closeZMQ clears it.
		ZMQNotifications: s.zmqEndpoints, // zmq.go
	}
	return rpc.New(rpc.Config{
		Listeners:   cfg.RPCListeners,
		DefaultPort: cfg.rpcPort,
		User:        cfg.RPCUser,
		Pass:        cfg.RPCPass,
		AuthEntries: cfg.RPCAuth,
		TLS:         cfg.RPCTLS,
		CertFile:    cfg.RPCCert,
		KeyFile:     cfg.RPCKey,
		CookieFile:  cfg.RPCCookieFile,
		NoCookie:    cfg.RPCNoCookie,
		// bitcoind's -rpccookieperms, -rpcwhitelist, -rpcwhitelistdefault.
		CookiePerms:      cfg.rpcCookiePerms,
		Whitelist:        cfg.RPCWhitelist,
		WhitelistDefault: cfg.rpcWhitelistDefault,
		// bitcoind serves only loopback clients unless -rpcallowip says
		// otherwise; btcd serves every authenticated client unless
		// --rpcallowip is given.
		RestrictClients: cfg.Bitcoind.Layout || len(cfg.rpcAllowIPs) > 0,
		AllowIPs:        cfg.rpcAllowIPs,
		MaxClients:      cfg.RPCMaxClients,
		IdleTimeout:     time.Duration(min(cfg.RPCServerTimeout, 1<<30)) * time.Second,
		DataDir:         cfg.DataDir,
		Net:             rpc.NetParamsOf(cfg.params),
		Backend:         backend,
		Shutdown:        requestShutdown,
		StopMessage:     stopMessage(cfg),
		Logging:         loggingControl(subsystemLoggers), // logging_rpc.go
		LogPath:         cfg.logFile,
		StartTime:       s.startTime,
		OnCall:          s.rpcOnCall(), // metrics.go
		REST:            cfg.REST,
		MaxWebsockets:   cfg.RPCMaxWebsockets,
	})
}

// stopMessage is the stop RPC's answer: bitcoind's under its front end.
func stopMessage(cfg *Config) string {
	if cfg.Bitcoind.Layout {
		return "Bitcoin Core stopping"
	}
	return appName + " stopping"
}

func (s *server) chainBackend() *rpc.ChainBackend {
	c := s.chain
	return &rpc.ChainBackend{
		BestBlock: func() (wire.Hash, int32, error) {
			b := c.BestSnapshot()
			return b.Hash, b.Height, nil
		},
		BlockHash: func(height int32) (wire.Hash, error) {
			h, ok := c.BlockHashByHeight(height)
			if !ok {
				return wire.Hash{}, rpc.ErrBlockHeightOutOfRange
			}
			return h, nil
		},
		BlockHeader: func(hash wire.Hash) (*wire.BlockHeader, *rpc.BlockHeaderInfo, error) {
			st, ok := c.LookupBlock(&hash)
			if !ok {
				return nil, nil, rpc.ErrBlockNotFound
			}
			return &st.Header, s.headerInfo(&st), nil
		},
		Block: func(hash wire.Hash) (*wire.MsgBlock, error) {
			st, ok := c.LookupBlock(&hash)
			if !ok {
				return nil, rpc.ErrBlockNotFound
			}
			if !st.HaveData {
				// As bitcoind's IsBlockPruned: a block once stored
				// (its transaction count known) on a pruning node.
				if c.Pruned() && st.NumTx > 0 {
					return nil, rpc.NewError(rpc.ErrMisc, "Block not available (pruned data)")
				}
				return nil, rpc.NewError(rpc.ErrMisc, "Block not available (not fully downloaded)")
			}
			return c.BlockByHash(&hash)
		},
		BlockchainInfo: func() (*rpc.BlockchainInfo, error) {
			b := c.BestSnapshot()
			_, hdr := c.BestHeader()
			progress := 1.0
			if hdr > 0 && b.Height < hdr {
				progress = float64(b.Height) / float64(hdr)
			}
			var tm int64
			if h, _, ok := c.HeaderByHash(&b.Hash); ok {
				tm = int64(h.Timestamp)
			}
			info := &rpc.BlockchainInfo{
				Chain:                s.cfg.params.Name,
				Blocks:               b.Height,
				Headers:              hdr,
				BestBlockHash:        b.Hash.String(),
				Bits:                 rpc.BitsHex(b.Bits),
				Target:               rpc.TargetHex(b.Bits),
				Difficulty:           rpc.GetDifficulty(b.Bits),
				Time:                 tm,
				MedianTime:           b.MedianTime,
				VerificationProgress: rpc.Float(progress),
				InitialBlockDownload: !c.IsCurrent(),
				ChainWork:            b.ChainWork.String(),
				SizeOnDisk:           uint64(s.bdb.DiskUsage()),
				Pruned:               c.Pruned(),
				SignetChallenge:      hex.EncodeToString(s.cfg.params.SignetChallenge),
				Warnings:             s.warnings(),
			}
			if c.Pruned() {
				ph, auto, target := c.PruneHeight(), true, c.PruneTarget()
				info.PruneHeight, info.AutomaticPruning, info.PruneTargetSize = &ph, &auto, &target
			}
			return info, nil
		},
		ChainTips: func() ([]rpc.ChainTip, error) {
			tips := c.ChainTips()
			out := make([]rpc.ChainTip, len(tips))
			for i, t := range tips {
				out[i] = rpc.ChainTip{Height: t.Height, Hash: t.Hash.String(), BranchLen: t.BranchLen, Status: t.Status}
			}
			sort.Slice(out, func(i, j int) bool { return out[i].Height > out[j].Height })
			return out, nil
		},
		TxOut: func(op wire.OutPoint, includeMempool bool) (*rpc.TxOutInfo, error) {
			b := c.BestSnapshot()
			if includeMempool {
				if _, spent := s.pool.SpentBy(op); spent {
					return nil, nil
				}
				if out, ok := s.pool.FetchOutput(op); ok {
					return &rpc.TxOutInfo{BestBlock: b.Hash, Confirmations: 0, Value: out.Value, PkScript: out.PkScript}, nil
				}
			}
			e, ok, err := c.FetchUtxo(op)
			if err != nil || !ok {
				return nil, err
			}
			return &rpc.TxOutInfo{BestBlock: b.Hash, Confirmations: int64(b.Height-e.Height) + 1,
				Value: e.Amount, PkScript: e.PkScript, Coinbase: e.IsCoinBase}, nil
		},
		TxOutSetInfo:    s.txOutSetInfo, // coinstatsindex.go
		DumpTxOutSet:    s.dumpTxOutSet, // rpcadapter_dumptxoutset.go
		PruneBlockchain: s.pruneBlockchain,
		PreciousBlock: func(hash wire.Hash) error {
			return rpcChainErr(c.PreciousBlock(&hash))
		},
		InvalidateBlock: func(hash wire.Hash) error {
			return rpcChainErr(c.InvalidateBlock(&hash))
		},
		ReconsiderBlock: func(hash wire.Hash) error {
			return rpcChainErr(c.ReconsiderBlock(&hash))
		},
		Transaction:      s.lookupTransaction,
		BlockPrevOuts:    s.blockPrevOuts,
		BlockStats:       s.blockStats,
		ChainTxStats:     s.chainTxStats,
		TxOutProof:       s.txOutProof,
		VerifyTxOutProof: s.verifyTxOutProof,
		VerifyChain:      s.verifyChain,
		DeploymentInfo:   s.deploymentInfo,
		TxPrevOuts:       s.txPrevOuts,
		IndexInfo:        s.indexInfo,
		ScanUTXOs:        s.scanUTXOs,         // rpcadapter_scan.go
		Coins:            s.rpcCoins,          // rpcadapter_coins.go
		BlockFilters:     s.rpcBlockFilters(), // rpcadapter_scanblocks.go
		BlockFilter:      s.rpcBlockFilter(),  // filterindex.go
	}
}

func rpcChainErr(err error) error {
	var re *blockchain.RuleError
	if errors.As(err, &re) && errors.Is(err, blockchain.ErrPrevBlockNotFound) {
		return rpc.ErrBlockNotFound
	}
	return err
}

// headerInfo fills the index data of a block for getblock/getblockheader.
func (s *server) headerInfo(st *blockchain.BlockStatus) *rpc.BlockHeaderInfo {
	info := &rpc.BlockHeaderInfo{
		Height:        st.Height,
		Confirmations: -1,
		MedianTime:    st.MedianTime,
		ChainWork:     st.ChainWork.String(),
		NTx:           int(st.NumTx),
	}
	if st.MainChain {
		tip := s.chain.BestSnapshot()
		info.Confirmations = int64(tip.Height-st.Height) + 1
		if next, ok := s.chain.BlockHashByHeight(st.Height + 1); ok {
			info.NextHash = next.String()
		}
	}
	return info
}

// lookupTransaction finds a transaction in the mempool or in a named
// block, or with --txindex in the main chain.
func (s *server) lookupTransaction(txid wire.Hash, blockHash *wire.Hash) (*rpc.TxLookup, error) {
	if blockHash == nil {
		if e, ok := s.pool.Get(txid); ok {
			return &rpc.TxLookup{Tx: e.Tx}, nil
		}
		if !s.cfg.TxIndex {
			return nil, rpc.NewError(rpc.ErrInvalidAddress,
				"No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries. Use gettransaction for wallet transactions.")
		}
		tx, bh, height, err := s.chain.TxByID(&txid)
		if err != nil {
			return nil, rpc.ErrTxNotFound
		}
		l := &rpc.TxLookup{Tx: tx, BlockHash: &bh,
			Confirmations: int64(s.chain.BestSnapshot().Height-height) + 1}
		if h, _, ok := s.chain.HeaderByHash(&bh); ok {
			l.BlockTime = int64(h.Timestamp)
		}
		return l, nil
	}
	return s.txFromBlock(txid, blockHash)
}

// txFromBlock finds txid in a stored block.
func (s *server) txFromBlock(txid wire.Hash, blockHash *wire.Hash) (*rpc.TxLookup, error) {
	st, ok := s.chain.LookupBlock(blockHash)
	if !ok {
		return nil, rpc.NewError(rpc.ErrInvalidAddress, "Block hash not found")
	}
	blk, err := s.chain.BlockByHash(blockHash)
	if err != nil {
		return nil, rpc.NewError(rpc.ErrMisc, "Block not available")
	}
	inActive := st.MainChain
	for i, h := range blk.TxHashes() {
		if h != txid {
			continue
		}
		l := &rpc.TxLookup{Tx: blk.Transactions[i], BlockHash: blockHash, BlockTime: int64(blk.Header.Timestamp), InActiveChain: &inActive}
		if st.MainChain {
			l.Confirmations = int64(s.chain.BestSnapshot().Height-st.Height) + 1
		}
		return l, nil
	}
	return nil, rpc.NewError(rpc.ErrInvalidAddress, "No such transaction found in the provided block. Use gettransaction for wallet transactions.")
}

func (s *server) mempoolBackend() *rpc.MempoolBackend {
	p := s.pool
	return &rpc.MempoolBackend{
		Import: s.importMempool, // importmempool.go
		Info: func() (*rpc.MempoolInfo, error) {
			in := p.Info()
			return &rpc.MempoolInfo{
				Loaded:              s.mempoolLoaded.Load(),
				Size:                int64(in.Size),
				Bytes:               in.Bytes,
				Usage:               in.Usage,
				TotalFee:            rpc.FormatBTC(in.TotalFee),
				MaxMempool:          in.MaxMempool,
				MempoolMinFee:       rpc.FormatBTC(int64(in.MempoolMinFee)),
				MinRelayTxFee:       rpc.FormatBTC(int64(in.MinRelayTxFee)),
				IncrementalRelayFee: rpc.FormatBTC(int64(in.IncrementalRelayFee)),
				UnbroadcastCount:    int64(in.Unbroadcast),
				FullRBF:             in.FullRBF,
			}, nil
		},
		TxIDs: func() ([]wire.Hash, uint64, error) {
			return p.TxIDs(), p.Sequence(), nil
		},
		SpentBy: func(op wire.OutPoint) (wire.Hash, bool, error) {
			if e, ok := p.SpentBy(op); ok {
				return e.TxID, true, nil
			}
			return wire.Hash{}, false, nil
		},
		Save: func() (string, error) {
			path := filepath.Join(s.cfg.DataDir, mempoolFile)
			if err := p.SaveFile(path); err != nil {
				return "", rpc.NewError(rpc.ErrMisc, "Unable to dump mempool to disk")
			}
			return path, nil
		},
		Entry: func(txid wire.Hash) (*rpc.MempoolEntry, error) {
			e, ok := p.Get(txid)
			if !ok {
				return nil, rpc.ErrNotInMempool
			}
			return s.mempoolEntry(e), nil
		},
		Ancestors: func(txid wire.Hash) ([]wire.Hash, error) {
			es, ok := p.Ancestors(txid)
			if !ok {
				return nil, rpc.ErrNotInMempool
			}
			return entryIDs(es), nil
		},
		Descendants: func(txid wire.Hash) ([]wire.Hash, error) {
			es, ok := p.Descendants(txid)
			if !ok {
				return nil, rpc.ErrNotInMempool
			}
			return entryIDs(es), nil
		},
		Send:             s.sendRawTransaction, // rpcadapter_mempool.go
		TestAccept:       s.testAccept,         // rpcadapter_mempool.go
		SubmitPackage:    s.submitPackage,      // rpcadapter_mempool.go
		Prioritise:       s.prioritise,         // rpcadapter_mempool.go
		Prioritised:      s.prioritised,        // rpcadapter_mempool.go
		Orphans:          s.orphans,            // rpcadapter_mempool.go
		EstimateRawFee:   s.estimateRawFee,     // rpcadapter_fees.go
		Transactions:     s.mempoolTxs,         // rpcadapter_scanblocks.go
		EstimateSmartFee: s.estimateSmartFee,   // rpcadapter_fees.go
	}
}

func entryIDs(es []*mempool.Entry) []wire.Hash {
	out := make([]wire.Hash, len(es))
	for i, e := range es {
		out[i] = e.TxID
	}
	return out
}

// mempoolRPCError maps a rejection to bitcoind's error codes.
func mempoolRPCError(err error) error {
	var re *mempool.RejectError
	if !errors.As(err, &re) {
		return err
	}
	switch {
	case mempool.IsMissingInputs(err):
		return rpc.NewError(rpc.ErrVerify, "bad-txns-inputs-missingorspent").WithCause(err)
	case mempool.IsAlreadyKnown(err):
		return rpc.NewError(rpc.ErrVerifyExists, re.Reason).WithCause(err)
	}
	return rpc.NewError(rpc.ErrVerifyRejected, re.Error()).WithCause(err)
}

func (s *server) mempoolEntry(e *mempool.Entry) *rpc.MempoolEntry {
	parents, children, _ := s.pool.Relatives(e.TxID)
	hs := func(l []wire.Hash) []string {
		out := make([]string, len(l))
		for i, h := range l {
			out[i] = h.String()
		}
		return out
	}
	return &rpc.MempoolEntry{
		VSize:           e.VSize,
		Weight:          e.Weight,
		Time:            e.Time.Unix(),
		Height:          e.Height,
		DescendantCount: e.DescCount,
		DescendantSize:  e.DescSize,
		AncestorCount:   e.AncCount,
		AncestorSize:    e.AncSize,
		WTxID:           e.WTxID.String(),
		Fees: rpc.MempoolFees{
			Base: rpc.FormatBTC(e.Fee), Modified: rpc.FormatBTC(e.ModFee),
			Ancestor: rpc.FormatBTC(e.AncFees), Descendant: rpc.FormatBTC(e.DescFees),
		},
		Depends:           hs(parents),
		SpentBy:           hs(children),
		BIP125Replaceable: s.signalsRBF(e),
		Unbroadcast:       s.pool.IsUnbroadcast(e.TxID),
	}
}

func (s *server) netBackend() *rpc.NetBackend {
	ns := s.net
	return &rpc.NetBackend{
		NetTotals:        func() (*rpc.NetTotals, error) { return s.netTotals(ns) },
		SetNetworkActive: func(active bool) (bool, error) { return s.setNetworkActive(ns, active) },
		NodeAddresses:    s.nodeAddresses,
		AddedNodeInfo:    s.addedNodeInfo,
		AddConnection:    s.addConnection,
		AddPeerAddress:   s.addPeerAddress, // rpcadapter_addpeer.go
		SendMsgToPeer:    s.sendMsgToPeer,  // rpcadapter_addpeer.go
		RawAddrMan:       s.rawAddrMan,     // asmap.go
		AddrManInfo:      s.addrManInfo,    // asmap.go
		FetchBlock:       s.fetchBlock,     // rpcadapter_fetchblock.go
		V2Transport:      s.cfg.v2Enabled,
		AddNode: func(node, command string, v2 bool) error {
			addr := normalizePeerAddr(node, s.cfg.params.DefaultPort)
			if err := s.checkV2Request(v2); err != nil && command != "remove" {
				return err
			}
			switch command {
			case "add":
				for _, r := range s.cm.Requests() {
					if r.Permanent && sameNode(r.Addr, addr) { // addnode.go
						return rpc.NewError(rpc.ErrClientNodeAlreadyAdded, "Error: Node already added")
					}
				}
				s.mu.Lock()
				req, err := s.cm.Connect(addr, true)
				if err == nil {
					s.setV2Choice(req.ID, v2) // v2transport.go
				}
				s.mu.Unlock()
				if err == nil {
					s.setAddedName(req.ID, node)
				}
				return err
			case "onetry":
				// A manual connection, as bitcoind's, though never retried.
				return s.dialOneShotV2(addr, peer.ConnManual, v2)
			case "remove":
				for _, r := range s.cm.Requests() {
					if r.Addr == addr && r.Permanent {
						s.cm.Remove(r.ID)
						return nil
					}
				}
				return rpc.NewError(rpc.ErrClientNodeNotAdded, "Error: Node could not be removed. It has not been added previously.")
			}
			return rpc.NewError(rpc.ErrInvalidParams, "Error: Invalid command")
		},
		DisconnectNode: func(address string, id int64, byID bool) error {
			for _, p := range s.peerList() {
				if (byID && int64(p.ID()) == id) || (!byID && p.Addr() == address) {
					p.Disconnect()
					return nil
				}
			}
			return rpc.NewError(rpc.ErrClientNodeNotConnected, "Node not found in connected nodes")
		},
		ConnectionCount: func() (int, error) { return len(s.peerList()), nil },
		PeerInfo: func() ([]rpc.PeerInfo, error) {
			infos, err := s.peerInfo()
			if err == nil {
				s.addPeerInfoExtras(infos) // rpcadapter_net.go
			}
			return infos, err
		},
		NetworkInfo: func() (*rpc.NetworkInfo, error) {
			out, in := 0, 0
			for _, p := range s.peerList() {
				if p.Inbound() {
					in++
				} else {
					out++
				}
			}
			svc := s.peerCfg.Services
			return &rpc.NetworkInfo{
				Version:            dialectNumber(),
				SubVersion:         s.peerCfg.UserAgent,
				ProtocolVersion:    int(wire.ProtocolVersion),
				LocalServices:      fmt.Sprintf("%016x", uint64(svc)),
				LocalServicesNames: serviceNames(svc),
				LocalRelay:         !s.cfg.BlocksOnly,
				Connections:        in + out,
				ConnectionsIn:      in,
				ConnectionsOut:     out,
				NetworkActive:      ns.active.Load(),
				Networks:           networksInfo(s.cfg, s.tor.socksText()),
				RelayFee:           rpc.FormatBTC(s.cfg.minRelayTxFeeSat),
				IncrementalFee:     rpc.FormatBTC(100),
				LocalAddresses:     s.localAddresses(),
				Warnings:           s.warnings(),
			}, nil
		},
		SetBan: func(subnet, command string, banTime int64, absolute bool) error {
			return s.setBan(subnet, command, banTime, absolute)
		},
		ListBanned: func() ([]rpc.BannedEntry, error) {
			now := clock.Now()
			list := s.bans.List()
			out := make([]rpc.BannedEntry, len(list))
			for i, e := range list {
				out[i] = rpc.BannedEntry{
					Address: e.Address(), BanCreated: e.Created.Unix(), BannedUntil: e.Until.Unix(),
					BanDuration: e.Until.Unix() - e.Created.Unix(), TimeRemaining: max(0, e.Until.Unix()-now.Unix()),
				}
			}
			return out, nil
		},
		ClearBanned: func() error { s.bans.ClearBanned(); return nil },
		// ping asks every peer now; the answers show in getpeerinfo.
		Ping: func() error {
			for _, p := range s.peerList() {
				p.PingNow()
			}
			return nil
		},
	}
}

func (s *server) peerInfo() ([]rpc.PeerInfo, error) {
	peers := s.peerList()
	sort.Slice(peers, func(i, j int) bool { return peers[i].ID() < peers[j].ID() })
	out := make([]rpc.PeerInfo, 0, len(peers))
	for _, p := range peers {
		// As bitcoind, peers still in the handshake are listed too.
		st := p.Stats()
		pi := rpc.PeerInfo{
			ID:                    int64(st.ID),
			Addr:                  st.Addr,
			AddrBind:              p.LocalAddr().String(),
			Network:               "ipv4",
			Services:              fmt.Sprintf("%016x", uint64(st.Services)),
			ServicesNames:         serviceNames(st.Services),
			RelayTxes:             st.RelayTx,
			LastSend:              unixOrZero(st.LastSend),
			LastRecv:              unixOrZero(st.LastRecv),
			BytesSent:             st.BytesSent,
			BytesRecv:             st.BytesRecv,
			ConnTime:              st.ConnTime.Unix(),
			TimeOffset:            st.TimeOffset,
			Version:               st.Version,
			SubVer:                st.UserAgent,
			Inbound:               st.Inbound,
			StartingHeight:        st.StartingHeight,
			SyncedHeaders:         st.LastBlock,
			SyncedBlocks:          st.LastBlock,
			Inflight:              []int32{},
			AddrRelayEnabled:      p.AddrRelayEnabled(),
			AddrProcessed:         st.AddrProcessed,
			AddrRateLimited:       st.AddrRateLimited,
			Permissions:           []string{},
			MinFeeFilter:          rpc.FormatBTC(st.FeeFilter),
			BytesSentPerMsg:       toInt64Map(st.BytesSentPerMsg),
			BytesRecvPerMsg:       toInt64Map(st.BytesRecvPerMsg),
			ConnectionType:        string(p.ConnType()),
			TransportProtocolType: p.Transport(),
			SessionID:             p.SessionID(),
		}
		pi.Network = s.peerNetwork(p)
		if asn := s.addrs.MappedAS(p.IP()); asn != 0 {
			v := int64(asn)
			pi.MappedAS = &v
		}
		if s.sync != nil {
			pi.BIP152HBTo, pi.BIP152HBFrom = s.sync.PeerCompactState(p.Peer)
		}
		if st.LastPingRTT > 0 {
			f := rpc.Float(st.LastPingRTT.Seconds())
			pi.PingTime = &f
		}
		if st.MinPingRTT > 0 {
			f := rpc.Float(st.MinPingRTT.Seconds())
			pi.MinPing = &f
		}
		pi.Permissions = st.Permissions.Names()
		pi.PresyncedHeaders = -1
		if s.sync != nil {
			pi.PresyncedHeaders = s.sync.PresyncedHeaders(p.Peer)
		}
		if !st.VersionReceived {
			// Nothing is known of the peer before its version.
			pi.Version, pi.StartingHeight = 0, -1
		}
		if !st.HandshakeDone {
			pi.SyncedHeaders, pi.SyncedBlocks = -1, -1
		}
		out = append(out, pi)
	}
	return out, nil
}

// peerNetwork is getpeerinfo's "network": the peer's address class, with
// local and private addresses "not_publicly_routable", as Core's
// GetNetClass. A peer through the onion service is an onion peer, and
// with --cjdnsreachable an fc00::/8 address is a CJDNS one.
func (s *server) peerNetwork(p *serverPeer) string {
	if s.inboundOnion(p.Peer) {
		return "onion"
	}
	na, ok := p.NetAddress()
	if ok {
		na.NetworkID = s.cfg.flipCJDNS(na.NetworkID, na.Addr)
	}
	return addrNetwork(na, ok, p.Addr())
}

// connectedNetwork is the network p came through, as Core's
// ConnectedThroughNetwork: onion for a peer of our onion service, the
// network of the name for a peer reached by an onion or I2P name, else
// that of its IP address (CJDNS under --cjdnsreachable); 0 when unknown.
func (s *server) connectedNetwork(p *peer.Peer) wire.NetworkID {
	if s.inboundOnion(p) {
		return wire.NetTorV3
	}
	if na, ok := p.NetAddress(); ok {
		return s.cfg.flipCJDNS(na.NetworkID, na.Addr)
	}
	if host, _, err := net.SplitHostPort(p.Addr()); err == nil {
		if id, _, err := wire.ParseHost(host); err == nil {
			return id
		}
	}
	return 0
}

// addrNetwork is peerNetwork for a peer at addr whose IP address, when
// it has one (ok), is na.
func addrNetwork(na wire.NetAddressV2, ok bool, addr string) string {
	if !ok {
		// A peer reached by name through a proxy: its network is the
		// name's (a Tor or I2P address).
		if host, _, err := net.SplitHostPort(addr); err == nil {
			if id, _, err := wire.ParseHost(host); err == nil && (id == wire.NetTorV3 || id == wire.NetI2P) {
				return networkName(id)
			}
		}
		return "not_publicly_routable"
	}
	if !addrmgr.IsRoutable(&na) {
		return "not_publicly_routable"
	}
	return networkName(na.NetworkID)
}

// unixOrZero is t in Unix seconds, 0 for the zero time (never).
func unixOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

func toInt64Map(m map[string]uint64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = int64(v)
	}
	return out
}

// serviceNames lists service flags as bitcoind names them.
func serviceNames(f wire.ServiceFlag) []string {
	known := map[wire.ServiceFlag]string{
		wire.SFNodeNetwork: "NETWORK", wire.SFNodeBloom: "BLOOM", wire.SFNodeWitness: "WITNESS",
		wire.SFNodeCompactFilters: "COMPACT_FILTERS", wire.SFNodeNetworkLimited: "NETWORK_LIMITED",
		wire.SFNodeP2PV2: "P2P_V2",
	}
	// Bit by bit from the lowest, unknown bits as bitcoind names them.
	out := []string{}
	for i := 0; i < 64; i++ {
		bit := wire.ServiceFlag(1) << i
		if f&bit == 0 {
			continue
		}
		if name, ok := known[bit]; ok {
			out = append(out, name)
		} else {
			out = append(out, fmt.Sprintf("UNKNOWN[2^%d]", i))
		}
	}
	return out
}

func normalizePeerAddr(node, port string) string {
	return connmgr.NormalizeAddress(node, port)
}

func parseSubnet(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		return netip.ParsePrefix(s)
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}
