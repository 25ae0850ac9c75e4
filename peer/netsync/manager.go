package netsync

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/blockfilter"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
	"github.com/btcsuite/btclog"
)

// Download policy defaults (Core's BLOCK_DOWNLOAD_WINDOW,
// MAX_BLOCKS_IN_TRANSIT_PER_PEER and BLOCK_STALLING_TIMEOUT).
const (
	DefaultWindow         = 1024
	DefaultMaxInFlight    = 16
	DefaultStallTimeout   = 2 * time.Second
	DefaultRequestTimeout = 60 * time.Second
	// DefaultHeadersTimeout is the base of the time a headers-sync peer
	// gets to bring our best header close to now (Core's
	// HEADERS_DOWNLOAD_TIMEOUT_BASE); headersTimeoutPerHeader is added
	// for every header expected.
	DefaultHeadersTimeout   = 15 * time.Minute
	DefaultProgressInterval = 10 * time.Second

	// Misbehaviour scores the manager applies.
	PenaltyInvalid    = 100 // invalid header or block: ban at once
	PenaltyBadTx      = 100 // transaction breaking consensus rules
	PenaltyNonConnect = 20  // every tenth headers message that does not connect

	// maxRejected bounds the set of recently rejected transactions.
	maxRejected = 50000
	// eventQueue bounds the events waiting for the loop; block events are
	// additionally bounded by the in-flight caps.
	eventQueue = 256
	// blockQueue bounds decoded blocks waiting for the loop; a peer whose
	// block does not fit waits in its reader, so at most this many blocks
	// (plus one per peer) are held in memory.
	blockQueue = 32
)

// Config configures a Manager.
type Config struct {
	// Chain is the block chain (required).
	Chain *blockchain.BlockChain
	// Mempool receives relayed transactions; nil disables transaction
	// relay.
	Mempool *mempool.Pool
	// BlocksOnly ignores transaction announcements (--blocksonly).
	BlocksOnly bool
	// Window is how far ahead of the tip blocks are requested.
	Window int32
	// MaxInFlight caps blocks requested from one peer.
	MaxInFlight int
	// StallTimeout is how long the block the window waits on may stay
	// with one peer while others are idle before that peer is dropped.
	StallTimeout time.Duration
	// RequestTimeout disconnects a peer that answers none of its block
	// requests for this long.
	RequestTimeout time.Duration
	// HeadersTimeout disconnects a headers sync peer that does not answer
	// getheaders.
	HeadersTimeout time.Duration
	// ProgressInterval is the period of the IBD progress log line.
	ProgressInterval time.Duration
	// CacheUsage reports the UTXO cache's use and budget for the progress
	// log; nil omits it.
	CacheUsage func() (used, max int64)
	// Filters, when set, serves BIP157 getcfilters, getcfheaders and
	// getcfcheckpt from the block filter index (--peerblockfilters).
	Filters *blockfilter.Index
	// OnBlockProcessed, when set, is told how long each new block
	// downloaded from a peer took to validate (metrics).
	OnBlockProcessed func(d time.Duration)
	// RefuseHistoricalBlock, when set, reports that a block with the
	// given timestamp must not be served (--maxuploadtarget's historical
	// limit reached); the requesting peer, unless it has the download
	// permission, is then disconnected, as in Core.
	RefuseHistoricalBlock func(blockTime int64) bool
	// UploadTargetReached, when set, reports that --maxuploadtarget's
	// daily budget is spent; mempool requests are then refused (the peer
	// disconnected) unless the peer has the mempool permission, as in
	// Core.
	UploadTargetReached func() bool
	// OnTxRejected, when set, is told why the mempool refused a relayed
	// transaction (metrics).
	OnTxRejected func(err error)
	// ExtraTxns is how many transactions outside the mempool (refused,
	// orphaned, replaced) are kept for compact block reconstruction;
	// zero means DefaultExtraTxns, negative none
	// (-blockreconstructionextratxn).
	ExtraTxns int
	// PresyncCommitPeriod and PresyncBuffer override the headers presync
	// parameters (DefaultPresyncCommitPeriod, DefaultPresyncBuffer) when
	// positive.
	PresyncCommitPeriod int
	PresyncBuffer       int
	// Log is the logger; nil means disabled.
	Log btclog.Logger
}

// ErrStopped is returned by operations on a stopped manager.
var ErrStopped = errors.New("netsync: manager stopped")

// Manager drives block download and relay. All exported methods are safe
// for concurrent use.
type Manager struct {
	cfg   Config
	extra extraTxns // kept for compact blocks (extratxn.go)
	chain *blockchain.BlockChain
	pool  *mempool.Pool
	log   btclog.Logger

	events chan event
	blocks chan blockEvent
	quit   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
	start  sync.Once

	// peersMu guards the registry used by relay (read from other
	// goroutines); the loop owns everything in peerState except known.
	peersMu sync.RWMutex
	peers   map[*peer.Peer]*peerState

	// Loop-owned download state.
	requested map[wire.Hash]*peerState
	syncPeer  *peerState
	// lastInvSync is the announced block that last let a peer outside
	// the headers sync be asked for headers (Core's
	// m_last_block_inv_triggering_headers_sync): one more peer per new
	// block while the initial headers sync runs.
	lastInvSync wire.Hash
	stallWait   bool // the window is full: idle peers wait for the first missing block
	// stallTimeout is the current stall limit: doubled after each stall,
	// decayed back to Config.StallTimeout while blocks arrive.
	stallTimeout time.Duration
	// protectedOutbound counts the peers exempt from the chain-sync
	// timer (eviction.go).
	protectedOutbound int
	lastBlocks        int64
	lastTxs           int64
	lastLog           time.Time
	// presyncLog is when the presync progress line was last written.
	presyncLog time.Time

	// annMu guards lastAnnounced, the tip of the last announcement.
	annMu         sync.Mutex
	lastAnnounced wire.Hash

	// txreq decides which announcer each transaction is fetched from
	// (txrequest.go); txReqMu guards it, as announcements arrive on the
	// peers' goroutines. wtxidPeers counts peers relaying by wtxid.
	txReqMu    sync.Mutex
	txreq      *txRequestTracker
	wtxidPeers atomic.Int32

	rejectMu sync.Mutex
	rejected map[wire.Hash]bool // true: refused for good, not just for its fee rate

	// cb is the compact block (BIP152) state (cmpct.go).
	cb cmpctState

	// Statistics.
	blocksProcessed atomic.Int64
	txsProcessed    atomic.Int64
	current         atomic.Bool
	processTime     atomic.Int64 // nanoseconds spent in ProcessBlock
}

// ProcessTime returns the total time spent handing blocks to the chain.
func (m *Manager) ProcessTime() time.Duration { return time.Duration(m.processTime.Load()) }

type peerState struct {
	p        *peer.Peer
	inflight map[wire.Hash]time.Time
	// lastRecv is when the peer last delivered a requested block.
	lastRecv time.Time
	// headersAsked is when we sent getheaders (zero when not waiting).
	headersAsked time.Time
	// lastHeadersAsk is when we last sent getheaders.
	lastHeadersAsk time.Time
	// headersDeadline is when a sync peer must have brought the best
	// header to within a day of now (zero: not the sync peer, or
	// caught up).
	headersDeadline time.Time
	// bestHeight is the highest block the peer is known to have (its
	// version message's height at first); bestHash is the highest block
	// it announced or sent a header of, at bestHashHeight (Core's
	// pindexBestKnownBlock): blocks are asked of it only on that
	// block's branch.
	bestHeight     int32
	bestHash       wire.Hash
	bestHashHeight int32
	syncCand       bool
	// syncStarted is set once the peer was asked for headers as a sync
	// peer or near the tip (Core's fSyncStarted); invSynced once a block
	// announcement had it asked before that.
	syncStarted bool
	invSynced   bool
	// unconnecting counts headers messages in a row that did not connect.
	unconnecting int
	// presync is the peer's low-work headers presync, if running
	// (headerspresync.go); presyncH is its height plus one, zero when
	// none, for getpeerinfo.
	presync  *headersPresync
	presyncH atomic.Int32

	knownMu sync.Mutex
	known   map[wire.Hash]struct{} // blocks the peer has (announced or sent)

	// cmpct is the peer's compact block state (cmpct.go).
	cmpct cmpctPeer
	// chainSync is the outbound peer's eviction timer (eviction.go).
	chainSync chainSync
}

func (ps *peerState) addKnown(h wire.Hash) {
	ps.knownMu.Lock()
	if len(ps.known) > 2048 {
		clear(ps.known)
	}
	ps.known[h] = struct{}{}
	ps.knownMu.Unlock()
}

func (ps *peerState) isKnown(h wire.Hash) bool {
	ps.knownMu.Lock()
	_, ok := ps.known[h]
	ps.knownMu.Unlock()
	return ok
}

type eventKind int

const (
	evNewPeer eventKind = iota
	evDonePeer
	evHeaders
	evInv
	evNotFound
	evTip
	// evFunc runs fn on the loop (compact block handling, cmpct*.go).
	evFunc
)

type event struct {
	kind    eventKind
	p       *peer.Peer
	headers []wire.BlockHeader
	inv     []wire.InvVect
	fn      func()
	done    chan struct{}
}

type blockEvent struct {
	p     *peer.Peer
	block *wire.MsgBlock
	// cmpct marks a block reconstructed from a compact block: it is
	// processed as requested, and a mutation fetches it whole.
	cmpct bool
	// sane: CheckBlockSanity passed on the peer's goroutine.
	sane bool
}

// New returns a manager; call Start to run it.
func New(cfg Config) *Manager {
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	if cfg.StallTimeout <= 0 {
		cfg.StallTimeout = DefaultStallTimeout
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.HeadersTimeout <= 0 {
		cfg.HeadersTimeout = DefaultHeadersTimeout
	}
	if cfg.ProgressInterval <= 0 {
		cfg.ProgressInterval = DefaultProgressInterval
	}
	if cfg.Log == nil {
		cfg.Log = btclog.Disabled
	}
	if cfg.ExtraTxns == 0 {
		cfg.ExtraTxns = DefaultExtraTxns
	}
	m := &Manager{
		extra:     extraTxns{max: cfg.ExtraTxns},
		cfg:       cfg,
		chain:     cfg.Chain,
		pool:      cfg.Mempool,
		log:       cfg.Log,
		events:    make(chan event, eventQueue),
		blocks:    make(chan blockEvent, blockQueue),
		quit:      make(chan struct{}),
		peers:     make(map[*peer.Peer]*peerState),
		requested: make(map[wire.Hash]*peerState),
		rejected:  make(map[wire.Hash]bool),
		txreq:     newTxRequestTracker(),
	}
	m.stallTimeout = cfg.StallTimeout
	m.current.Store(cfg.Chain.IsCurrent())
	m.lastAnnounced = cfg.Chain.BestSnapshot().Hash
	cfg.Chain.Subscribe(m.onChainEvent)
	m.initCmpct()
	return m
}

// Start runs the event loop.
func (m *Manager) Start() {
	m.start.Do(func() {
		m.wg.Add(1)
		go m.loop()
	})
}

// Stop ends the event loop and waits for it.
func (m *Manager) Stop() {
	m.once.Do(func() {
		close(m.quit)
		m.wg.Wait()
	})
}

// IsCurrent reports whether the chain has caught up with the network.
func (m *Manager) IsCurrent() bool { return m.current.Load() }

// Processed returns the number of blocks and transactions the manager
// handed to the chain.
func (m *Manager) Processed() (blocks, txs int64) {
	return m.blocksProcessed.Load(), m.txsProcessed.Load()
}

// post sends an event to the loop unless the manager stopped.
func (m *Manager) post(ev event) bool {
	select {
	case m.events <- ev:
		return true
	case <-m.quit:
		return false
	}
}

// NewPeer registers a peer whose handshake completed.
func (m *Manager) NewPeer(p *peer.Peer) {
	m.post(event{kind: evNewPeer, p: p})
}

// DonePeer unregisters a disconnected peer; its requests are reassigned.
func (m *Manager) DonePeer(p *peer.Peer) {
	m.post(event{kind: evDonePeer, p: p})
}

// SetListeners installs the manager's message handlers in l.
func (m *Manager) SetListeners(l *peer.MessageListeners) {
	l.OnHeaders = m.onHeaders
	l.OnBlock = m.onBlock
	l.OnInv = m.onInv
	l.OnTx = m.onTx
	l.OnNotFound = m.onNotFound
	l.OnGetData = m.onGetDataCmpct
	l.OnGetHeaders = m.onGetHeaders
	l.OnGetBlocks = m.onGetBlocks
	l.OnMemPool = m.onMemPool
	l.OnSendCmpct = m.onSendCmpct
	l.OnCmpctBlock = m.onCmpctBlock
	l.OnGetBlockTxn = m.onGetBlockTxn
	l.OnBlockTxn = m.onBlockTxn
	m.setFilterListeners(l)
	if m.pool != nil {
		// Peers serve mempool transactions only from before their last
		// announcement trickle (txserve.go).
		l.TxInvSequence = m.pool.Sequence
	}
}

func (m *Manager) onHeaders(p *peer.Peer, msg *wire.MsgHeaders) {
	m.post(event{kind: evHeaders, p: p, headers: msg.Headers})
}

func (m *Manager) onBlock(p *peer.Peer, msg *wire.MsgBlock) {
	// Warm the UTXO cache with the block's inputs on the peer's goroutine
	// while the loop connects earlier blocks (PrefetchInputs takes no
	// chain lock and tolerates coins of not yet connected blocks).
	if len(msg.Transactions) > 1 {
		if err := m.chain.PrefetchInputs(msg); err != nil {
			m.log.Debugf("Prefetching inputs of %v: %v", msg.BlockHash(), err)
		}
	}
	// The context-free checks (merkle root, transaction sanity) run here
	// too, off the loop. A failure is left for the loop to find again and
	// punish as usual.
	sane := blockchain.CheckBlockSanity(msg, m.chain.Params().PowLimit) == nil
	if sane && msg.Transactions[0].HasWitness() {
		// The coinbase carries the witness nonce only in blocks that
		// commit to a witness root, which the loop checks.
		msg.CacheWitnessRoot()
	}
	select {
	case m.blocks <- blockEvent{p: p, block: msg, sane: sane}:
	case <-m.quit:
	}
}

func (m *Manager) onNotFound(p *peer.Peer, msg *wire.MsgNotFound) {
	m.post(event{kind: evNotFound, p: p, inv: msg.InvList})
}

func (m *Manager) onInv(p *peer.Peer, msg *wire.MsgInv) {
	var blocks []wire.InvVect
	var txs []wire.InvVect
	for _, iv := range msg.InvList {
		switch iv.Type &^ wire.InvWitnessFlag {
		case wire.InvTypeBlock:
			blocks = append(blocks, iv)
		case wire.InvTypeTx, wire.InvTypeWTx:
			txs = append(txs, iv)
		}
	}
	if len(blocks) > 0 {
		m.post(event{kind: evInv, p: p, inv: blocks})
	}
	if len(txs) > 0 {
		m.requestTxs(p, txs)
	}
}

// onChainEvent runs on the goroutine that changed the chain.
func (m *Manager) onChainEvent(n *blockchain.Notification) {
	if n.Type != blockchain.NTTipChanged {
		return
	}
	cur := m.chain.IsCurrent()
	m.current.Store(cur)
	if cur {
		m.announceTip(n.Hash)
	}
	select {
	case m.events <- event{kind: evTip}:
	default:
		// The loop refills after every block anyway.
	}
}

// maxAnnounceHeaders is how many headers a tip announcement may carry
// (Core's MAX_BLOCKS_TO_ANNOUNCE); a longer advance is announced by inv.
const maxAnnounceHeaders = 8

// announceTip relays a new tip to peers that do not have it (BIP130):
// peers that asked for headers get the headers connected since the last
// announcement (so they connect), the others an inv of the tip.
func (m *Manager) announceTip(hash wire.Hash) {
	m.annMu.Lock()
	var hdrs []wire.BlockHeader
	cur := hash
	for len(hdrs) < maxAnnounceHeaders && cur != m.lastAnnounced {
		h, _, ok := m.chain.HeaderByHash(&cur)
		if !ok {
			break
		}
		hdrs = append(hdrs, h)
		cur = h.PrevBlock
	}
	reached := cur == m.lastAnnounced || len(hdrs) < maxAnnounceHeaders
	m.lastAnnounced = hash
	m.annMu.Unlock()
	if len(hdrs) == 0 {
		return
	}
	for i, j := 0, len(hdrs)-1; i < j; i, j = i+1, j-1 {
		hdrs[i], hdrs[j] = hdrs[j], hdrs[i]
	}
	m.peersMu.RLock()
	defer m.peersMu.RUnlock()
	for p, ps := range m.peers {
		if ps.isKnown(hash) || !p.Connected() {
			continue
		}
		ps.addKnown(hash)
		if reached && m.sendCmpctTo(ps, hash, len(hdrs)) {
			continue
		}
		if p.WantsHeaders() && reached {
			// Skip the headers the peer already has.
			k := 0
			for k < len(hdrs)-1 && ps.isKnown(hdrs[k].BlockHash()) {
				k++
			}
			p.QueueMessage(&wire.MsgHeaders{Headers: hdrs[k:]}, nil)
		} else {
			p.QueueInventory(wire.InvVect{Type: wire.InvTypeBlock, Hash: hash})
		}
	}
}

// RelayTransaction announces a transaction accepted into the mempool to
// every peer whose fee filter and bloom filter (BIP37) it passes (the
// mempool's OnAccept hook).
func (m *Manager) RelayTransaction(e *mempool.Entry) {
	fee := int64(e.FeeRate())
	m.peersMu.RLock()
	defer m.peersMu.RUnlock()
	for p := range m.peers {
		if p.RelayTx() && p.FeeFilter() <= fee && p.RelevantTx(e.Tx) {
			p.QueueTxInventory(e.TxID, e.WTxID, fee)
		}
	}
}

// Peers returns the registered peers.
func (m *Manager) Peers() []*peer.Peer {
	m.peersMu.RLock()
	defer m.peersMu.RUnlock()
	out := make([]*peer.Peer, 0, len(m.peers))
	for p := range m.peers {
		out = append(out, p)
	}
	return out
}
