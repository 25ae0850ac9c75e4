package node

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/blockfilter"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/internal/mining"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/metrics"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/peer/addrmgr"
	"github.com/btcnode/btcd/peer/banmgr"
	"github.com/btcnode/btcd/peer/connmgr"
	"github.com/btcnode/btcd/peer/i2p"
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
	coinStats    *coinStatsWire // coinstatsindex.go
	zmq          *zmq.Notifier
	metrics      *metrics.Metrics
	metricsSrv   *metrics.Server

	listeners []net.Listener
	// i2p is the SAM session of --i2psam (nil without it); i2pListener
	// its inbound streams under --i2pacceptincoming (i2p.go).
	i2p         *i2p.Session
	i2pListener *i2p.Listener
	tor         torService // --listenonion (tor.go)
	peerCfg     peer.Config
	dnsSeed     bool
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
	// v2Choice holds, by connection request, a transport chosen by the
	// caller (addnode, addconnection, the v1 retry); see v2transport.go.
	v2Choice map[uint64]bool
	// addedNames holds the added nodes' names as given (getaddednodeinfo
	// shows them so), by connection request; guarded by mu.
	addedNames map[uint64]string

	// miningMu serialises block generation so two generate calls never
	// build on the same tip.
	miningMu sync.Mutex
	miner    *mining.Miner // block assembly and generate* (mining.go)

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
		if reindexDir, err = prepareReindex(cfg.DataDir, cfg.blockFilesDir, cfg.Prune != 0); err != nil {
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
	s.newMiner() // mining.go

	syncCfg := netsync.Config{
		Chain:      s.chain,
		Mempool:    s.pool,
		BlocksOnly: cfg.BlocksOnly,
		ExtraTxns:  extraTxns(cfg.BlockReconstructionExtraTxn),
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
		s.watchWebsockets()
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
		// bitcoind tells a database that would not open from records
		// that would not read; other failures (a refused -blocksxor=0)
		// keep their own message.
		switch {
		case database.OpenFailed(err):
			srvrLog.Errorf("Opening the block database: %v", err)
			return rebuildMessage("Error opening block database")
		case errors.Is(err, database.ErrCorrupt), errors.Is(err, database.ErrIO):
			srvrLog.Errorf("Opening the block database: %v", err)
			return rebuildMessage("Error loading block database")
		}
		return err
	}
	key := s.bdb.XorKey()
	srvrLog.Infof("Using obfuscation key for blocksdir *.dat files (%s): '%s'", s.bdb.FilesDir(), hex.EncodeToString(key[:]))
	if s.cs, err = database.OpenChainState(cfg.DataDir, database.ChainStateOptions{CacheBudget: int64(cfg.UtxoCacheMaxSizeMiB) << 20}); err != nil {
		if database.OpenFailed(err) || errors.Is(err, database.ErrCorrupt) || errors.Is(err, database.ErrIO) {
			srvrLog.Errorf("Opening the chainstate: %v", err)
			return rebuildMessage("Error opening coins database")
		}
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
		var nr *blockchain.NeedsRedownloadError
		if errors.As(err, &nr) {
			return rebuildMessage(nr.Error())
		}
		var le *blockchain.BlockIndexLoadError
		if errors.As(err, &le) {
			srvrLog.Errorf("%v", err)
			return rebuildMessage("Error loading block database")
		}
		return err
	}
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
	mc.PersistV1 = cfg.PersistMempoolV1
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
	// -maxorphantx bounds the orphan pool's count; one peer may still
	// fill it (Core's per-peer share is the whole pool). The pool reads
	// a zero count as its default, so none at all is -1.
	mc.Orphans = mempool.DefaultOrphanLimits()
	mc.Orphans.MaxCount, mc.Orphans.MaxPerPeer = cfg.MaxOrphanTx, cfg.MaxOrphanTx
	if cfg.MaxOrphanTx == 0 {
		mc.Orphans.MaxCount, mc.Orphans.MaxPerPeer = -1, -1
	}
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
		s.wsTxAccepted(e) // websocket.go
		s.metrics.TxAccepted()
	}
	if s.zmq != nil {
		mc.OnRemove = s.zmq.TxRemoved
		mc.OnReaccept = s.zmq.TxAccepted
	}
	mc.OnOrphanRejected = func(r mempool.RejectedOrphan) {
		if s.sync != nil {
			s.sync.OrphanRejected(r)
		}
	}
	mc.OnReplaced = func(tx *wire.MsgTx, wtxid wire.Hash) {
		if s.sync != nil {
			s.sync.AddExtraTx(tx, wtxid) // its own lock only
		}
	}
	s.pool = mempool.New(mc)
	if s.zmq != nil {
		// A disconnected block is published before the mempool takes
		// its transactions back, as bitcoind publishes "D" before the
		// "A" of each returned transaction.
		s.chain.Subscribe(s.zmqNotifyDisconnect)
	}
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
	// The publishers and metrics see the other events after the mempool
	// has applied them (subscribers run in registration order).
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

// nearTipBlocks is how far behind, in blocks estimated from the tip's age,
// the chain may be for pruned peers to be worth an outbound slot (Core's
// NODE_NETWORK_LIMITED_ALLOW_CONN_BLOCKS: they serve only recent blocks).
const nearTipBlocks = 144

// errNoReachableAddress: the address manager gave no address of a
// network --onlynet allows.
var errNoReachableAddress = errors.New("no address of an --onlynet network")

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
		btcdLog.Info("init message: Starting network threads…")
		s.addrs.Start()
		// The connection manager's accept loops and the peers' reads
		// and writes are what bitcoind's net thread does.
		cmgrLog.Info("net thread start")
		s.cm.Start()
		s.startTorControl()  // tor.go
		s.startPortMapping() // portmap.go
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			// Core's initload thread: block import, then the mempool.
			srvrLog.Info("initload thread start")
			defer srvrLog.Info("initload thread exit")
			if s.cfg.Reindex {
				s.importStoredBlocks() // blockimport.go
			}
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

// loadMempool reads mempool.dat (--persistmempool) and then reports the
// mempool loaded (getmempoolinfo's "loaded").
func (s *server) loadMempool() {
	defer s.mempoolLoaded.Store(true)
	if !s.cfg.PersistMempool {
		return
	}
	path := filepath.Join(s.cfg.DataDir, mempoolFile)
	f, err := mempool.ReadMempoolFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		mempLog.Debugf("No %s to load", path)
	case err != nil:
		mempLog.Warnf("Loading %s: %v", path, err)
	default:
		logMempoolLoad(s.pool.LoadMempoolFile(f, mempool.StartupLoadOptions))
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
		if s.i2p != nil {
			s.i2p.Close()
		}
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
