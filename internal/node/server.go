package node

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/blockfilter"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/metrics"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/peer/addrmgr"
	"github.com/btcnode/btcd/peer/banmgr"
	"github.com/btcnode/btcd/peer/connmgr"
	"github.com/btcnode/btcd/peer/netsync"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
	"github.com/btcnode/btcd/zmq"
)

// errHTTPServer wraps failures to set up the RPC server (bitcoind calls
// them "Unable to start HTTP server").
var errHTTPServer = errors.New("cannot start the RPC server")

// mempoolFile is the name of the persisted mempool in the data directory.
const mempoolFile = "mempool.dat"

// feeEstimatesFile is the fee estimator's state in the data directory.
const feeEstimatesFile = "fee_estimates.dat"

// server is the node: it owns the databases, the chain, the mempool, the
// peer layer, the sync manager and the RPC server, starts them in
// dependency order and stops them in reverse.
type server struct {
	cfg *Config

	bdb      *database.BlockDB
	cs       *database.ChainState
	cache    *database.UtxoCache
	sigCache *txscript.SigCache
	chain    *blockchain.BlockChain
	pool     *mempool.Pool
	feeEst   *mempool.FeeEstimator
	bans     *banmgr.Manager
	addrs    *addrmgr.Manager
	cm       *connmgr.Manager
	sync     *netsync.Manager
	rpc      *rpc.Server

	// Optional indexes, notifications and metrics; nil when disabled.
	filters      *blockfilter.Index
	filterKick   chan struct{} // capacity 1: "the tip moved, catch up"
	filterCancel context.CancelFunc
	filterDone   chan struct{}
	coinStats    *coinStatsWire // coinstatswire.go
	zmq          *zmq.Notifier
	metrics      *metrics.Metrics
	metricsSrv   *metrics.Server

	listeners []net.Listener
	peerCfg   peer.Config
	dnsSeed   bool
	// autoConnect: outbound connections to addresses from the address
	// manager are made (no --connect, --noconnect or --maxpeers=0).
	autoConnect bool
	discovery   localDiscovery // rpcadapter_net.go
	net         *netState      // setnetworkactive and traffic totals (rpcadapter_net.go)
	sched       *scheduler     // periodic chores (maintenance)
	upload      *uploadTarget  // --maxuploadtarget accounting (uploadtarget.go)
	// mempoolLoaded is set once block import and mempool.dat are done.
	mempoolLoaded atomic.Bool
	// fatal is the message of the fatal error that stopped the node
	// (abort, startstop.go), nil while none happened.
	fatal atomic.Pointer[string]
	// evictKey salts network groups for eviction so outsiders cannot
	// predict which groups are protected.
	evictKey  [16]byte
	startTime time.Time

	quit chan struct{}
	wg   sync.WaitGroup

	mu    sync.Mutex
	peers map[int32]*serverPeer
	// oneShot maps addconnection requests to their connection type.
	oneShot map[uint64]peer.ConnType
	// addedNames holds the added nodes' names as given (getaddednodeinfo
	// shows them so), by connection request; guarded by mu.
	addedNames map[uint64]string

	// miningMu serialises block generation so two generate calls never
	// build on the same tip.
	miningMu sync.Mutex

	startOnce sync.Once
	stopOnce  sync.Once
}

// serverPeer is a connected peer and the outbound request it came from.
type serverPeer struct {
	*peer.Peer
	req *connmgr.ConnReq // nil for inbound
}

// newServer opens the databases and builds every subsystem. The P2P
// listeners are bound here, so a port already in use fails start-up
// instead of surfacing later.
func newServer(cfg *Config) (_ *server, err error) {
	if cfg.params == nil {
		return nil, errors.New("server: no network parameters")
	}
	s := &server{
		cfg:       cfg,
		quit:      make(chan struct{}),
		peers:     make(map[int32]*serverPeer),
		oneShot:   make(map[uint64]peer.ConnType),
		startTime: time.Now(),
		sched:     newScheduler(),
		upload:    &uploadTarget{limit: cfg.maxUploadBytes},
	}
	rand.Read(s.evictKey[:])
	defer func() {
		if err != nil {
			if s.rpc != nil {
				s.rpc.Stop()
			}
			s.closeMetrics()
			s.closeZMQ()
			s.closeFilterIndex()
			s.closeCoinStatsIndex()
			if s.chain != nil {
				s.chain.Close()
			}
			s.closeDatabases()
		}
	}()
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, err
	}
	reindexDir := ""
	if cfg.Reindex {
		if reindexDir, err = prepareReindex(cfg.DataDir); err != nil {
			return nil, err
		}
	}
	if err := s.openChain(); err != nil {
		return nil, err
	}
	if err := s.openFilterIndex(); err != nil {
		return nil, err
	}
	if err := s.openCoinStatsIndex(); err != nil {
		return nil, err
	}
	if err := s.newZMQ(); err != nil {
		return nil, err
	}
	s.newMetrics()
	s.newMempool()

	syncCfg := netsync.Config{
		Chain:      s.chain,
		Mempool:    s.pool,
		BlocksOnly: cfg.BlocksOnly,
		CacheUsage: func() (int64, int64) {
			st := s.cache.Stats()
			return st.MemUsage, st.MaxBytes
		},
		Log: syncLog,
	}
	if cfg.PeerBlockFilters {
		syncCfg.Filters = s.filters
	}
	if cfg.maxUploadBytes > 0 {
		syncCfg.RefuseHistoricalBlock = func(blockTime int64) bool {
			best, _ := s.chain.BestHeader()
			h, _, _ := s.chain.HeaderByHash(&best)
			return s.upload.refuseBlock(blockTime, int64(h.Timestamp))
		}
		syncCfg.UploadTargetReached = func() bool { return s.upload.reached(false) }
	}
	if s.metrics != nil {
		syncCfg.OnBlockProcessed = s.metrics.BlockValidated
		syncCfg.OnTxRejected = s.recordReject
	}
	s.sync = netsync.New(syncCfg)
	if err := s.newPeerLayer(); err != nil {
		return nil, err
	}
	s.net = s.newNetState()
	if cfg.NoNetworkActive {
		s.net.active.Store(false)
	}
	srvrLog.Infof("SetNetworkActive: %v", !cfg.NoNetworkActive)
	s.watchChain()
	s.watchVersionBits() // versionbits.go
	if !cfg.DisableRPC {
		if s.rpc, err = s.newRPCServer(); err != nil {
			s.closeListeners()
			return nil, fmt.Errorf("%w: %v", errHTTPServer, err)
		}
		s.registerZMQRPC()
		s.registerNetRPC() // rpcadapter_net.go
		// Bind now, so an address that cannot be bound stops start-up
		// (bitcoind's "Unable to start HTTP server").
		if err := s.rpc.Start(); err != nil {
			s.closeListeners()
			return nil, fmt.Errorf("%w: %v", errHTTPServer, err)
		}
	}
	if err := s.serveMetrics(); err != nil {
		s.closeListeners()
		return nil, err
	}
	if reindexDir != "" {
		cfg.LoadBlocks = append([]string{reindexDir}, cfg.LoadBlocks...)
	}
	return s, nil
}

// openChain opens the block store, the chainstate with its cache and the
// chain on top of them.
func (s *server) openChain() error {
	cfg := s.cfg
	var err error
	bo := database.BlockDBOptions{FilesDir: cfg.blockFilesDir, XorFiles: cfg.BlocksXor}
	if cfg.FastPrune {
		bo.MaxFileSize = fastPruneFileSize
	}
	if s.bdb, err = database.OpenBlockDB(cfg.DataDir, cfg.params.Net, bo); err != nil {
		return err
	}
	key := s.bdb.XorKey()
	srvrLog.Infof("Using obfuscation key for blocksdir *.dat files (%s): '%s'", s.bdb.FilesDir(), hex.EncodeToString(key[:]))
	if s.cs, err = database.OpenChainState(cfg.DataDir, database.ChainStateOptions{CacheBudget: int64(cfg.UtxoCacheMaxSizeMiB) << 20}); err != nil {
		return err
	}
	s.cache = database.NewUtxoCache(s.cs, database.UtxoCacheOptions{
		MaxBytes:      int64(cfg.UtxoCacheMaxSizeMiB) << 20,
		FlushInterval: time.Hour,
	})
	s.sigCache = txscript.NewSigCache(cfg.SigCacheMaxSize)
	bc := &blockchain.Config{
		Params:      cfg.params,
		BlockDB:     s.bdb,
		ChainState:  s.cs,
		Cache:       s.cache,
		SigCache:    s.sigCache,
		Par:         cfg.scriptThreads,
		TxIndex:     cfg.TxIndex,
		PruneTarget: pruneTargetBytes(cfg.Prune),
		MaxTipAge:   cfg.MaxTipAge,
		OnFatal:     s.abort, // startstop.go
	}
	if cfg.minChainWork != nil {
		w := blockchain.WorkFromBig(cfg.minChainWork)
		bc.MinimumChainWork = &w
	}
	switch cfg.assumeValidMode {
	case assumeValidOff:
		bc.AssumeValidSet = true
	case assumeValidHash:
		bc.AssumeValidSet, bc.AssumeValid = true, cfg.assumeValid
	}
	if s.chain, err = blockchain.New(bc); err != nil {
		return err
	}
	tip := s.chain.BestSnapshot()
	srvrLog.Infof("Chain tip %v at height %d", tip.Hash, tip.Height)
	return s.verifyAtStartup()
}

// fastPruneFileSize is the block file size under --fastprune (Core's
// 64 KiB), so regtest chains of a few hundred blocks span many files.
const fastPruneFileSize = 64 << 10

// pruneTargetBytes converts --prune to the chain's byte target; manual
// pruning has a target no chain reaches.
func pruneTargetBytes(mib uint64) uint64 {
	if mib == PruneManual {
		return math.MaxUint64
	}
	return mib << 20
}

// newMempool creates the pool over the chain and hooks it to chain events.
func (s *server) newMempool() {
	cfg := s.cfg
	mc := mempool.DefaultConfig()
	mc.Chain = mempool.ChainView{
		FetchCoin: func(op wire.OutPoint) (mempool.Coin, bool) {
			e, ok, err := s.chain.FetchUtxo(op)
			if err != nil || !ok {
				return mempool.Coin{}, false
			}
			return mempool.Coin{Value: e.Amount, PkScript: e.PkScript, Height: e.Height, IsCoinBase: e.IsCoinBase}, true
		},
		Tip: func() mempool.ChainTip {
			b := s.chain.BestSnapshot()
			return mempool.ChainTip{Height: b.Height, Hash: b.Hash, MedianTimePast: b.MedianTime}
		},
		MedianTimePast: s.chain.MedianTimePast,
	}
	mc.VerifyScripts = s.verifyScripts
	// Script failures are worded "mandatory-script-verify-flag-failed
	// (...)" / "non-mandatory-script-verify-flag (...)", as the Core
	// releases that the functional test suite and current tools expect.
	mc.LegacyScriptReasons = true
	mc.Policy.MinRelayFee = mempool.FeeRate(cfg.minRelayTxFeeSat)
	mc.Policy.IncrementalRelayFee = mempool.FeeRate(cfg.incrementalRelayFeeSat)
	mc.Policy.DustRelayFee = mempool.FeeRate(cfg.dustRelayFeeSat)
	mc.Policy.MaxDataCarrierBytes = int(cfg.DataCarrierSize)
	mc.Policy.DataCarrier = !cfg.NoDataCarrier
	mc.Policy.PermitBareMultisig = !cfg.RejectBareMultisig
	mc.Policy.RequireStandard = !cfg.RelayNonStd
	mc.Policy.BytesPerSigOp = cfg.BytesPerSigOp
	mc.Policy.AncestorLimit = int64(cfg.LimitAncestorCount)
	mc.Policy.AncestorSizeLimitKvB = int64(cfg.LimitAncestorSizeKvB)
	mc.Policy.DescendantLimit = int64(cfg.LimitDescendantCount)
	mc.Policy.DescendantSizeLimitKvB = int64(cfg.LimitDescendantSizeKvB)
	mc.MaxMempoolBytes = int64(cfg.MaxMempool) * 1_000_000
	mc.Expiry = time.Duration(cfg.MempoolExpiry) * time.Hour
	mc.CoinbaseMaturity = cfg.params.CoinbaseMaturity
	// A node that ignores relayed transactions keeps no fee estimator,
	// as bitcoind with -blocksonly: it would learn only from its own.
	if !cfg.BlocksOnly {
		// The file's age is by the wall clock, not mock time, as in Core.
		est, err := mempool.LoadFeeEstimates(filepath.Join(cfg.DataDir, feeEstimatesFile), time.Now(), cfg.AcceptStaleFeeEstimates)
		if err != nil {
			mempLog.Warnf("Ignoring %s: %v", feeEstimatesFile, err)
		}
		s.feeEst = est
		mc.FeeEstimator = est
	}
	mc.OnAccept = func(e *mempool.Entry) {
		if s.sync != nil {
			s.sync.RelayTransaction(e)
		}
		s.zmq.TxAccepted(e.Tx, e.Sequence)
		s.metrics.TxAccepted()
	}
	if s.zmq != nil {
		mc.OnRemove = s.zmq.TxRemoved
	}
	mc.OnOrphanRejected = func(r mempool.RejectedOrphan) {
		if s.sync != nil {
			s.sync.OrphanRejected(r)
		}
	}
	s.pool = mempool.New(mc)
	s.chain.Subscribe(func(n *blockchain.Notification) {
		switch n.Type {
		case blockchain.NTBlockConnected:
			s.pool.BlockConnected(n.Block, n.Height)
		case blockchain.NTBlockDisconnected:
			s.pool.BlockDisconnected(n.Block)

		case blockchain.NTTipChanged:
			s.pool.ChainUpdated()
			if s.sync != nil {
				s.sync.ClearRejected()
			}
			s.kickFilterIndex()
		}
	})
	// The publishers and metrics see events after the mempool has
	// applied them (subscribers run in registration order).
	if s.zmq != nil {
		s.chain.Subscribe(s.zmqNotify)
	}
	if s.metrics != nil {
		cm := &chainMetrics{m: s.metrics}
		s.chain.Subscribe(cm.notify)
	}
}

// verifyScripts is the mempool's script seam over txscript with the shared
// signature cache. The mandatory set (Core's MANDATORY_SCRIPT_VERIFY_FLAGS)
// always applies, even before a deployment such as segwit's NULLDUMMY is
// active, so a failure under it is worded "mandatory" as in Core.
func (s *server) verifyScripts(tx *wire.MsgTx, coins []mempool.Coin, standard bool) error {
	flags := s.chain.NextBlockScriptFlags() | txscript.MandatoryVerifyFlags
	if standard {
		flags |= txscript.StandardVerifyFlags
	}
	prevs := make([]wire.TxOut, len(tx.TxIn))
	for i := range prevs {
		prevs[i] = wire.TxOut{Value: coins[i].Value, PkScript: coins[i].PkScript}
	}
	hashes := txscript.NewTxSigHashes(tx, prevs)
	for i := range tx.TxIn {
		if err := txscript.VerifyInput(tx, i, &prevs[i], flags, s.sigCache, hashes); err != nil {
			return &mempool.InputError{Input: i, Err: err}
		}
	}
	return nil
}

// feeFilter is the BIP133 value announced to peers, as Core: the pool's
// minimum fee, but never below the minimum relay fee (an empty pool's
// minimum of zero would invite transactions we refuse anyway).
func (s *server) feeFilter() int64 {
	return max(int64(s.pool.MinFee()), s.cfg.minRelayTxFeeSat)
}

// newPeerLayer creates the ban and address managers, the peer template
// and the connection manager, and binds the listeners.
func (s *server) newPeerLayer() error {
	cfg := s.cfg
	var err error
	// Peers with the noban permission are never banned.
	var wl []netip.Prefix
	for _, e := range cfg.whitelist {
		if e.Perms.ResolveImplicit(!cfg.NoWhitelistRelay, cfg.WhitelistForceRelay).Has(peer.PermNoBan) {
			wl = append(wl, e.Subnet)
		}
	}
	s.bans, err = banmgr.New(banmgr.Config{DataDir: cfg.DataDir, BanDuration: cfg.BanDuration, Whitelist: wl})
	if err != nil {
		if s.bans == nil {
			return err
		}
		bmgrLog.Warnf("Ignoring ban list: %v", err)
	}
	// As bitcoind, an unreadable peers.dat stops start-up with its error.
	am, err := s.loadASMap() // asmap.go
	if err != nil {
		return err
	}
	s.addrs, err = addrmgr.New(addrmgr.Config{DataDir: cfg.DataDir, Net: cfg.params.Net,
		ASMap: am, Deterministic: cfg.deterministicAddrMan, CheckRatio: cfg.CheckAddrMan})
	if err != nil {
		return err
	}
	s.asmapHealthCheck() // asmap.go

	s.peerCfg = peer.Config{
		Net:              cfg.params.Net,
		Services:         peer.Services(cfg.Prune > 0, cfg.PeerBlockFilters),
		UserAgent:        userAgent(cfg.UAComments),
		BestHeight:       func() int32 { return s.chain.BestSnapshot().Height },
		DisableRelayTx:   cfg.BlocksOnly,
		RequiredServices: wire.SFNodeNetwork | wire.SFNodeWitness,
		NearTip:          s.nearTip,
		SendHeaders:      true,
		FeeFilter:        s.feeFilter,
		InitialDownload:  func() bool { return !s.chain.IsCurrent() },
		Bans:             s.bans,
		BanThreshold:     cfg.BanThreshold,
		Nonces:           peer.NewNonceSet(),
		HandshakeTimeout: time.Duration(cfg.PeerTimeout) * time.Second,
		Log:              peerLog,
	}
	if cfg.PeerBloomFilters {
		s.peerCfg.Services |= wire.SFNodeBloom // BIP111
	}
	s.sync.SetListeners(&s.peerCfg.Listeners)
	if prev := s.peerCfg.Listeners.OnWrite; cfg.maxUploadBytes > 0 {
		s.peerCfg.Listeners.OnWrite = func(p *peer.Peer, n int, cmd string, err error) {
			s.upload.record(n)
			if prev != nil {
				prev(p, n, cmd, err)
			}
		}
	}
	s.hookPeerMetrics(&s.peerCfg.Listeners)
	s.hookMessageCapture(&s.peerCfg.Listeners) // msgcapture.go
	s.peerCfg.Listeners.OnVerAck = func(p *peer.Peer) {
		if na, ok := p.NetAddress(); ok && !p.Inbound() {
			s.addrs.Good(na)
			s.noteSeenAs(p) // rpcadapter_net.go
			// Ask outbound peers for addresses, as Core does once per
			// connection.
			p.PushGetAddr()
		}
		s.sync.NewPeer(p)
	}
	s.setupAddrRelay() // p2p_addr.go

	policy := connmgr.ResolvePolicy(connmgr.PolicyInput{
		Connect: cfg.ConnectPeers, Listen: cfg.Listeners, NoListen: cfg.DisableListen,
		Proxy: cfg.Proxy, NoDNSSeed: cfg.DisableDNSSeed,
	})
	if policy.Listen && len(cfg.Listeners)+len(cfg.whiteBinds) > 0 {
		addrs := append([]string(nil), cfg.Listeners...)
		for _, b := range cfg.whiteBinds {
			addrs = append(addrs, b.Addr.String())
		}
		if s.listeners, err = connmgr.Listen(addrs); err != nil {
			return err
		}
	}
	// As in Core, --externalip addresses are ours (getnetworkinfo lists
	// them) even when not listening, but only a node others can reach
	// announces itself.
	s.addExternalIPs()
	if len(s.listeners) > 0 && cfg.MaxPeers > 0 {
		s.peerCfg.LocalAddress = s.localAddressFor
	}
	cc := connmgr.Config{
		Listeners:    s.listeners,
		OnAccept:     s.onAccept,
		OnConnection: s.onConnection,
		EvictInbound: s.evictInbound,
		IsBanned:     s.bans.IsBanned,
		MaxPeers:     cfg.MaxPeers,
		MaxInbound:   connmgr.CoreInboundSlots(cfg.MaxPeers),
		Dial:         connmgr.NewDialer(dialConfig(cfg)),
		OutboundGroup: func(addr string) string {
			ap, err := netip.ParseAddrPort(addr)
			if err != nil {
				return addr
			}
			na := wire.NetAddressV2FromNetAddress(wire.NewNetAddress(ap, 0, 0))
			return addrmgr.GroupKey(&na)
		},
	}
	if cfg.MaxPeers == 0 {
		cc.MaxPeers = 0
		cc.TargetOutbound = 0
	}
	if cfg.MaxPeers == 0 {
		// connmgr reads zero as its default; --maxpeers=0 means no
		// connections at all, so no listeners and no automatic dials.
		s.closeListeners()
		s.listeners, cc.Listeners = nil, nil
	}
	if policy.AutoConnect && cfg.MaxPeers > 0 && !cfg.NoConnect {
		cc.GetNewAddress = s.newAddress
		cc.TargetOutbound = min(connmgr.DefaultTargetOutbound, cfg.MaxPeers)
		s.autoConnect = true
	}
	// validate has already applied -connect's soft -dnsseed=0.
	s.dnsSeed = !cfg.DisableDNSSeed && cfg.MaxPeers > 0
	s.cm = connmgr.New(cc)
	return nil
}

// nearTipBlocks is how far behind, in blocks estimated from the tip's age,
// the chain may be for pruned peers to be worth an outbound slot (Core's
// NODE_NETWORK_LIMITED_ALLOW_CONN_BLOCKS: they serve only recent blocks).
const nearTipBlocks = 144

// nearTip reports whether the tip is recent enough that peers serving only
// the last 288 blocks can bring us up to date.
func (s *server) nearTip() bool {
	tip := s.chain.BestSnapshot()
	h, _, ok := s.chain.HeaderByHash(&tip.Hash)
	if !ok {
		return false
	}
	age := clock.Unix() - int64(h.Timestamp)
	return age/int64(s.cfg.params.TargetTimePerBlock/time.Second) < nearTipBlocks
}

// errNoReachableAddress: the address manager gave no address of a
// network --onlynet allows.
var errNoReachableAddress = errors.New("no address of an --onlynet network")

// newAddress picks an address for an automatic outbound connection.
func (s *server) newAddress() (string, error) {
	ka, err := s.addrs.Select(false)
	// --onlynet: a bounded number of draws, as bitcoind's 100 tries.
	for i := 0; err == nil && !s.cfg.reachableNet(ka.Addr.NetworkID) && i < 100; i++ {
		ka, err = s.addrs.Select(false)
	}
	if err != nil {
		return "", err
	}
	if !s.cfg.reachableNet(ka.Addr.NetworkID) {
		return "", errNoReachableAddress
	}
	s.addrs.Attempt(ka.Addr)
	return ka.Addr.String(), nil
}

// evictInbound makes room for a new inbound connection by dropping the
// inbound peer connmgr.SelectEviction picks (Core's rules).
func (s *server) evictInbound() bool {
	var cands []connmgr.EvictionCandidate
	for _, p := range s.peerList() {
		if !p.Inbound() {
			continue
		}
		st := p.Stats()
		group := ""
		if na, ok := p.NetAddress(); ok {
			group = addrmgr.GroupKey(&na)
		}
		h := fnv.New64a()
		h.Write(s.evictKey[:])
		h.Write([]byte(group))
		cands = append(cands, connmgr.EvictionCandidate{
			ID: st.ID, Connected: st.ConnTime, MinPing: st.MinPingRTT,
			LastTx: st.LastNewTx, LastBlock: st.LastNewBlock,
			RelayTxs: st.RelayTx, RelevantServices: st.Services&wire.SFNodeNetwork != 0,
			NetGroup: h.Sum64(), NoBan: st.Whitelisted, Inbound: true,
			PreferEvict: st.BanScore > 0,
		})
	}
	id, ok := connmgr.SelectEviction(cands)
	if !ok {
		return false
	}
	s.mu.Lock()
	p := s.peers[id]
	s.mu.Unlock()
	if p == nil {
		return false
	}
	srvrLog.Debugf("Evicting inbound peer %v to make room", p)
	p.Disconnect()
	return true
}

func (s *server) onAccept(conn net.Conn) {
	srvrLog.Infof("Inbound connection from %s", conn.RemoteAddr())
	p := peer.NewInbound(&s.peerCfg, conn)
	p.SetPermissions(s.inboundPermissions(p.IP(), conn.LocalAddr()))
	s.runPeer(p, nil)
}

func (s *server) onConnection(req *connmgr.ConnReq, conn net.Conn) {
	srvrLog.Debugf("Connected to %s", req.Addr)
	p := peer.NewOutbound(&s.peerCfg, conn, req.Addr)
	s.mu.Lock()
	typ, oneShot := s.oneShot[req.ID]
	delete(s.oneShot, req.ID)
	s.mu.Unlock()
	if oneShot {
		p.SetConnType(typ)
	}
	if req.Permanent || typ == peer.ConnManual {
		// As Core, "out" whitelist entries apply to manual connections.
		p.SetManual()
		p.SetPermissions(peer.PermissionsFor(s.cfg.whitelist, p.IP(), false, !s.cfg.NoWhitelistRelay, s.cfg.WhitelistForceRelay))
	}
	s.runPeer(p, req)
}

// inboundPermissions are a new inbound peer's permissions: those of the
// --whitelist entries covering its address plus those of the --whitebind
// listener it connected to.
func (s *server) inboundPermissions(ip netip.Addr, local net.Addr) peer.Permissions {
	relay, force := !s.cfg.NoWhitelistRelay, s.cfg.WhitelistForceRelay
	perms := peer.PermissionsFor(s.cfg.whitelist, ip, true, relay, force)
	if ap, err := netip.ParseAddrPort(local.String()); err == nil {
		ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
		for _, b := range s.cfg.whiteBinds {
			if b.Addr == ap {
				perms |= b.Perms.ResolveImplicit(relay, force)
			}
		}
	}
	return perms
}

// runPeer starts a peer and arranges its removal when it disconnects.
func (s *server) runPeer(p *peer.Peer, req *connmgr.ConnReq) {
	sp := &serverPeer{Peer: p, req: req}
	s.mu.Lock()
	select {
	case <-s.quit:
		s.mu.Unlock()
		p.Disconnect()
		return
	default:
	}
	s.peers[p.ID()] = sp
	s.wg.Add(1)
	s.mu.Unlock()
	srvrLog.Debugf("Added connection peer=%d", p.ID())
	p.Start()
	go func() {
		defer s.wg.Done()
		p.WaitForDisconnect()
		s.mu.Lock()
		delete(s.peers, p.ID())
		s.mu.Unlock()
		s.sync.DonePeer(p)
		if errors.Is(p.Err(), peer.ErrBanned) {
			s.metrics.PeerBanned()
		}
		srvrLog.Debugf("Peer %v disconnected: %v", p, p.Err())
	}()
}

// Start begins importing blocks, accepting and making connections and
// serving RPC.
func (s *server) Start() {
	s.startOnce.Do(func() {
		srvrLog.Trace("Starting server")
		s.sync.Start()
		s.startFilterIndex()
		s.startCoinStatsIndex()
		if len(s.listeners) == 0 {
			srvrLog.Info("Not listening for inbound connections (--nolisten, --connect or --proxy)")
		}
		for _, l := range s.listeners {
			srvrLog.Infof("Bound to %s", l.Addr())
		}
		s.addrs.Start()
		s.cm.Start()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if len(s.cfg.LoadBlocks) > 0 {
				s.importBlocks(s.cfg.LoadBlocks)
			}
			if s.cfg.StopAfterBlockImport {
				srvrLog.Info("Stopping after block import")
				requestShutdown()
				return
			}
			// As bitcoind, the saved mempool is loaded once imported
			// blocks are connected, so its transactions meet the tip
			// they were saved against.
			s.loadMempool()
			for _, a := range s.cfg.ConnectPeers {
				s.connect(a, true)
			}
			for _, a := range s.cfg.AddPeers {
				s.connect(a, true)
			}
		}()
		s.wg.Add(1)
		go s.maintenance()
		s.startSeeding() // seeding.go
	})
}

// connect adds an outbound connection request.
func (s *server) connect(addr string, permanent bool) error {
	req, err := s.cm.Connect(addr, permanent)
	if err != nil {
		srvrLog.Warnf("Connecting to %s: %v", addr, err)
		return err
	}
	if permanent {
		s.setAddedName(req.ID, addr) // addnode.go
	}
	return nil
}

// loadMempool reads mempool.dat (--persistmempool) and then reports the
// mempool loaded (getmempoolinfo's "loaded").
func (s *server) loadMempool() {
	defer s.mempoolLoaded.Store(true)
	if !s.cfg.PersistMempool {
		return
	}
	path := filepath.Join(s.cfg.DataDir, mempoolFile)
	if st, err := s.pool.LoadFile(path); err == nil {
		mempLog.Infof("Loaded mempool from %s: %+v", path, st)
	} else if !errors.Is(err, os.ErrNotExist) {
		mempLog.Warnf("Loading %s: %v", path, err)
	}
}

// feeFlushInterval is how often the fee estimates are saved (Core's
// FEE_FLUSH_INTERVAL), so a crash loses at most an hour of them.
const feeFlushInterval = time.Hour

// maintenance schedules the periodic chores (mempool and orphan expiry
// every minute, saving the fee estimates every hour) and runs them until
// shutdown.
func (s *server) maintenance() {
	defer s.wg.Done()
	s.sched.every("mempool expiry", time.Minute, func() {
		s.pool.Expire(clock.Now())
		s.pool.ExpireOrphans()
	})
	s.sched.every("fee estimates", feeFlushInterval, s.saveFeeEstimates)
	s.sched.everyJittered("unbroadcast", reattemptBroadcastEvery, reattemptBroadcastJitter, s.reattemptBroadcast)
	s.sched.run(s.quit)
}

// saveFeeEstimates writes the fee estimator's state to its file.
func (s *server) saveFeeEstimates() {
	if s.feeEst == nil {
		return
	}
	if err := s.feeEst.SaveFile(filepath.Join(s.cfg.DataDir, feeEstimatesFile)); err != nil {
		mempLog.Warnf("Saving fee estimates: %v", err)
		return
	}
	// Core's words; feature_fee_estimation.py waits for them.
	mempLog.Infof("Flushed fee estimates to %s.", feeEstimatesFile)
}

// Stop shuts the node down in order: RPC, peers, sync, then the chain is
// flushed, the mempool saved and the databases closed. It is safe to call
// more than once and returns once everything is closed.
func (s *server) Stop() {
	s.stopOnce.Do(func() {
		srvrLog.Info("Server shutting down")
		if s.rpc != nil {
			s.rpc.Stop()
		}
		s.closeMetrics()
		s.mu.Lock()
		close(s.quit)
		peers := make([]*serverPeer, 0, len(s.peers))
		for _, p := range s.peers {
			peers = append(peers, p)
		}
		s.mu.Unlock()
		if s.autoConnect {
			s.dumpAnchors(peers) // anchors.go
		}
		s.cm.Stop()
		for _, p := range peers {
			p.Disconnect()
		}
		s.wg.Wait()
		s.sync.Stop()
		s.stopFilterIndex()
		s.stopCoinStatsIndex()
		if err := s.chain.Close(); err != nil {
			srvrLog.Errorf("Flushing chain state: %v", err)
		}
		if s.cache != nil {
			st := s.cache.Stats()
			utxoLog.Infof("UTXO cache since start: %d hits, %d misses read from the chainstate, "+
				"%d evictions, %d flushes writing %d records in %v (longest lock pause %v)",
				st.Hits, st.Misses, st.Evictions, st.Flushes, st.FlushedCoins,
				st.TotalFlush.Round(time.Millisecond), st.LongestPause.Round(time.Microsecond))
		}
		s.closeZMQ()
		if s.cfg.PersistMempool && s.mempoolLoaded.Load() {
			path := filepath.Join(s.cfg.DataDir, mempoolFile)
			if err := s.pool.SaveFile(path); err != nil {
				mempLog.Errorf("Saving %s: %v", path, err)
			}
		}
		s.saveFeeEstimates()
		if err := s.addrs.Stop(); err != nil {
			amgrLog.Warnf("Saving peers: %v", err)
		}
		if err := s.bans.Save(); err != nil {
			bmgrLog.Warnf("Saving bans: %v", err)
		}
		s.closeDatabases()
	})
}

func (s *server) closeListeners() {
	for _, l := range s.listeners {
		l.Close()
	}
}

func (s *server) closeDatabases() {
	if s.cs != nil {
		if err := s.cs.Close(); err != nil {
			srvrLog.Errorf("Closing chainstate: %v", err)
		}
		s.cs = nil
	}
	if s.bdb != nil {
		if err := s.bdb.Close(); err != nil {
			srvrLog.Errorf("Closing block database: %v", err)
		}
		s.bdb = nil
	}
}

// WaitForShutdown blocks until Stop has finished.
func (s *server) WaitForShutdown() {
	<-s.quit
	s.wg.Wait()
}

// p2pAddr returns the first P2P listen address (tests).
func (s *server) p2pAddr() string {
	if len(s.listeners) == 0 {
		return ""
	}
	return s.listeners[0].Addr().String()
}

// rpcAddr returns the first RPC listen address (tests).
func (s *server) rpcAddr() string {
	if s.rpc == nil {
		return ""
	}
	a := s.rpc.Addrs()
	if len(a) == 0 {
		return ""
	}
	return a[0].String()
}

// peerList returns the connected peers.
func (s *server) peerList() []*serverPeer {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*serverPeer, 0, len(s.peers))
	for _, p := range s.peers {
		out = append(out, p)
	}
	return out
}

// dialConfig builds the outbound dialer options from --proxy and --onion.
func dialConfig(cfg *Config) connmgr.DialConfig {
	var dc connmgr.DialConfig
	if cfg.Proxy != "" {
		dc.Proxy = &connmgr.Proxy{Addr: cfg.Proxy, TorIsolation: true}
	}
	if cfg.OnionProxy != "" {
		dc.Onion = &connmgr.Proxy{Addr: cfg.OnionProxy, TorIsolation: true}
	}
	return dc
}
