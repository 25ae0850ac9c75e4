package mempool

import (
	"sync"
	"time"
	"unsafe"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/wire"
)

// Config wires the pool to the chain, the script engine and the daemon.
type Config struct {
	// Chain is the view of the confirmed chain (required).
	Chain ChainView
	// VerifyScripts checks input scripts (required; tests may pass a fake).
	VerifyScripts VerifyScriptsFunc
	// Policy is the relay policy; see DefaultPolicy.
	Policy Policy
	// MaxMempoolBytes is -maxmempool in bytes of accounted memory.
	MaxMempoolBytes int64
	// Expiry is -mempoolexpiry.
	Expiry time.Duration
	// CoinbaseMaturity is the network's coinbase maturity (100).
	CoinbaseMaturity int32
	// NoReplacement refuses every conflicting transaction with
	// "txn-mempool-conflict" (btcd's --rejectreplacement); Core 30 always
	// replaces by fee.
	NoReplacement bool
	// LegacyScriptReasons words script failures as Core before 30 did
	// ("mandatory-script-verify-flag-failed (...)" and
	// "non-mandatory-script-verify-flag (...)") instead of Core 30's
	// "mempool-script-verify-flag-failed (...)".
	LegacyScriptReasons bool
	// Orphans bounds the orphan pool.
	Orphans OrphanLimits
	// FeeEstimator, when set, learns from the pool's transactions.
	FeeEstimator *FeeEstimator
	// OnAccept, when set, is called (without the pool lock held) for every
	// transaction added to the pool by ProcessTransaction or
	// AcceptTransaction, in acceptance order: the inventory announcement
	// hook.
	OnAccept func(e *Entry)
	// OnRemove, when set, is called for every transaction that leaves the
	// pool for a reason other than inclusion in a block (conflict,
	// replacement, expiry, size limit, reorg), with the sequence number
	// its removal took. It runs with the pool lock held, so it must not
	// call back into the pool: the ZMQ publisher only queues a message.
	OnRemove func(txid wire.Hash, sequence uint64)
	// OnReaccept, when set, is told of each transaction a reorg returns
	// to the pool, with its new sequence number, in order with OnRemove
	// (bitcoind publishes both on ZMQ). It runs with the pool lock held,
	// as OnRemove. Such transactions are not relayed again, as in
	// bitcoind, so OnAccept is not called for them.
	OnReaccept func(tx *wire.MsgTx, sequence uint64)
	// OnReplaced, when set, is given each transaction a replacement
	// evicted (the compact-block reconstruction keeps it: the old one
	// may still be mined). It runs with the pool lock held, as OnRemove.
	OnReplaced func(tx *wire.MsgTx, wtxid wire.Hash)
	// OnOrphanRejected, when set, is told (without the pool lock held)
	// of every orphan refused for a reason other than missing inputs
	// once its parents arrived: the hook that punishes its sender.
	OnOrphanRejected func(r RejectedOrphan)
	// Now is the clock (the node clock, clock.Now, when nil).
	Now func() time.Time
	// PersistV1 writes mempool.dat in Core's version 1 format, without
	// the obfuscation key, which Core releases before 28 need
	// (-persistmempoolv1).
	PersistV1 bool
}

// DefaultConfig returns Core's defaults; the caller must still set Chain
// and VerifyScripts.
func DefaultConfig() Config {
	return Config{
		Policy:           DefaultPolicy(),
		MaxMempoolBytes:  DefaultMaxMempoolBytes,
		Expiry:           DefaultExpiry,
		CoinbaseMaturity: 100,
		Orphans:          DefaultOrphanLimits(),
	}
}

// Entry is a pool transaction and its package statistics. Entries handed
// out by Pool methods and callbacks are snapshots (copies taken under the
// pool lock), so reading them never races with the pool; the transaction
// they point to is shared and must not be modified.
type Entry struct {
	Tx    *wire.MsgTx
	TxID  wire.Hash
	WTxID wire.Hash
	// Fee is the absolute fee in satoshis.
	Fee int64
	// ModFee is Fee plus the prioritisetransaction delta: the fee every
	// policy decision and block selection uses (Core's modified fee). The
	// ancestor and descendant fee sums below add modified fees too.
	ModFee int64
	// VSize is the sigop-adjusted virtual size (Core's GetTxSize).
	VSize int64
	// Weight is the BIP141 weight.
	Weight int64
	// SigOpCost is the transaction's sigop cost.
	SigOpCost int64
	// Time is when the transaction entered the pool.
	Time time.Time
	// Height is the chain height when it entered.
	Height int32
	// Sequence is the pool's sequence number when the transaction entered
	// (bitcoind's mempool_sequence, used by ZMQ "sequence" messages).
	Sequence uint64
	// AnnounceSequence is the pool sequence a peer's last announcement
	// trickle must have reached before the transaction is served to it on
	// request (Core's entry_sequence): the pool's sequence just after the
	// transaction entered, or 0 for one returned from a disconnected
	// block.
	AnnounceSequence uint64
	// SpendsCoinbase records whether any input spends a coinbase output.
	SpendsCoinbase bool

	// Ancestor statistics include the entry itself.
	AncCount, AncSize, AncFees, AncSigOps int64
	// Descendant statistics include the entry itself.
	DescCount, DescSize, DescFees int64

	parents  []*Entry
	children []*Entry
	// lockHeight and lockTime are the BIP68 lock, re-checked after reorgs.
	lockHeight int32
	lockTime   int64
	usage      int64
	mark       uint64
}

// snapshot returns a copy of e without its internal links.
func snapshot(e *Entry) *Entry {
	c := *e
	c.parents, c.children = nil, nil
	return &c
}

// FeeRate returns the entry's own fee rate.
func (e *Entry) FeeRate() FeeRate { return NewFeeRate(e.Fee, e.VSize) }

// Pool is the transaction memory pool. All methods are safe for
// concurrent use.
type Pool struct {
	mu  sync.RWMutex
	cfg Config

	byTxID  map[wire.Hash]*Entry
	byWTxID map[wire.Hash]*Entry
	spends  map[wire.OutPoint]*Entry

	usage      int64 // accounted memory of all entries
	totalVSize int64
	totalFees  int64
	epoch      uint64
	sequence   uint64
	// seqWake is closed when sequence next changes (SequenceChanged).
	seqWake chan struct{}

	rollingMinFee        float64 // sat/kvB
	lastRollingFeeUpdate int64
	blockSinceBump       bool
	// oldest is at most the entry time of every entry (exact after an
	// expiry scan), so that expiry, which Core runs on every acceptance,
	// only scans the pool when something may have expired.
	oldest time.Time

	orphans orphanPool
	// rejMu guards orphanRejects, the orphan rejections waiting to be
	// delivered once the pool lock is released.
	rejMu         sync.Mutex
	orphanRejects []RejectedOrphan
	est           *FeeEstimator
	coinBuf       []Coin

	// deltas are the prioritisetransaction fee deltas by txid, kept for
	// transactions not (yet) in the pool too.
	deltas map[wire.Hash]int64
	// reorgPending are disconnected blocks' transactions waiting for
	// their parents to return (see BlockDisconnected).
	reorgPending      []reorgTx
	reorgPendingBytes int
	// recon holds recently rejected low-fee transactions a child may
	// still pay for (opportunistic one-parent-one-child relay).
	recon reconsiderable
	// unbroadcast are locally submitted pool transactions no peer has
	// requested yet (unbroadcast.go).
	unbroadcast map[wire.Hash]struct{}
	// disconnected mirrors Core's bounded pool of the current reorg's
	// disconnected transactions (disconnected.go).
	disconnected disconnectQueue
}

// New returns an empty pool. It panics if the required seams are missing,
// which is a programming error.
func New(cfg Config) *Pool {
	if cfg.Chain.FetchCoin == nil || cfg.Chain.Tip == nil || cfg.VerifyScripts == nil {
		panic("mempool: Config.Chain.FetchCoin, Chain.Tip and VerifyScripts are required")
	}
	if cfg.Now == nil {
		cfg.Now = clock.Now
	}
	if cfg.CoinbaseMaturity == 0 {
		cfg.CoinbaseMaturity = 100
	}
	if cfg.Expiry == 0 {
		cfg.Expiry = DefaultExpiry
	}
	if cfg.MaxMempoolBytes == 0 {
		cfg.MaxMempoolBytes = DefaultMaxMempoolBytes
	}
	if cfg.Orphans.MaxCount == 0 {
		cfg.Orphans = DefaultOrphanLimits()
	}
	p := &Pool{
		cfg:     cfg,
		byTxID:  make(map[wire.Hash]*Entry),
		byWTxID: make(map[wire.Hash]*Entry),
		spends:  make(map[wire.OutPoint]*Entry),
		est:     cfg.FeeEstimator,
		deltas:  make(map[wire.Hash]int64),
		// bitcoind's mempool sequence starts at 1: the first
		// transaction's ZMQ "A" message carries 1, and an empty pool's
		// mempool_sequence is 1.
		sequence: 1,
	}
	p.orphans.init(cfg.Orphans)
	return p
}

// Memory accounting. The accounted size of an entry is the memory it
// really holds: the transaction's arrays and script bytes, the Entry, its
// link slices and its share of the three index maps. Go maps keep a slot
// per key plus a control byte at up to 7/8 load and double when full, so a
// slot is charged at 3/2 of its raw size (the mean of a table between half
// and fully loaded).
const (
	sizeMsgTx   = int64(unsafe.Sizeof(wire.MsgTx{}))
	sizeTxIn    = int64(unsafe.Sizeof(wire.TxIn{}))
	sizeTxOut   = int64(unsafe.Sizeof(wire.TxOut{}))
	sizeSlice   = int64(unsafe.Sizeof([]byte(nil)))
	sizeEntry   = int64(unsafe.Sizeof(Entry{}))
	sizePtr     = int64(unsafe.Sizeof(uintptr(0)))
	sizeHashKey = int64(unsafe.Sizeof(wire.Hash{}))
	sizeOPKey   = int64(unsafe.Sizeof(wire.OutPoint{}))
)

func mapSlot(key, val int64) int64 { return (key + val + 1) * 3 / 2 }

// txMemUsage returns the bytes a decoded transaction occupies.
func txMemUsage(tx *wire.MsgTx) int64 {
	n := sizeMsgTx + int64(cap(tx.TxIn))*sizeTxIn + int64(cap(tx.TxOut))*sizeTxOut
	for i := range tx.TxIn {
		in := &tx.TxIn[i]
		n += int64(len(in.SignatureScript)) + int64(cap(in.Witness))*sizeSlice
		for _, w := range in.Witness {
			n += int64(len(w))
		}
	}
	for i := range tx.TxOut {
		n += int64(len(tx.TxOut[i].PkScript))
	}
	return n
}

func entryMemUsage(e *Entry) int64 {
	return txMemUsage(e.Tx) + sizeEntry +
		int64(cap(e.parents)+cap(e.children))*sizePtr +
		2*mapSlot(sizeHashKey, sizePtr) +
		int64(len(e.Tx.TxIn))*mapSlot(sizeOPKey, sizePtr)
}

func (p *Pool) now() time.Time { return p.cfg.Now() }

// Count returns the number of pool transactions.
func (p *Pool) Count() int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return len(p.byTxID)
}

// Usage returns the accounted memory of the pool in bytes.
func (p *Pool) Usage() int64 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.usage
}

// Has reports whether a transaction with this txid is in the pool.
func (p *Pool) Has(txid wire.Hash) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	_, ok := p.byTxID[txid]
	return ok
}

// HasWTxID reports whether a transaction with this wtxid is in the pool.
func (p *Pool) HasWTxID(wtxid wire.Hash) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	_, ok := p.byWTxID[wtxid]
	return ok
}

// Get returns the entry with this txid.
func (p *Pool) Get(txid wire.Hash) (*Entry, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	e, ok := p.byTxID[txid]
	if !ok {
		return nil, false
	}
	return snapshot(e), true
}

// GetByWTxID returns the entry with this wtxid.
func (p *Pool) GetByWTxID(wtxid wire.Hash) (*Entry, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	e, ok := p.byWTxID[wtxid]
	if !ok {
		return nil, false
	}
	return snapshot(e), true
}

// SpentBy returns the pool transaction spending op.
func (p *Pool) SpentBy(op wire.OutPoint) (*Entry, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	e, ok := p.spends[op]
	if !ok {
		return nil, false
	}
	return snapshot(e), true
}

// FetchOutput returns an output created by a pool transaction (for RPCs
// such as gettxout with include_mempool).
func (p *Pool) FetchOutput(op wire.OutPoint) (wire.TxOut, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	e, ok := p.byTxID[op.Hash]
	if !ok || int(op.Index) >= len(e.Tx.TxOut) {
		return wire.TxOut{}, false
	}
	return e.Tx.TxOut[op.Index], true
}

// Entries returns every entry (in no particular order).
func (p *Pool) Entries() []*Entry {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]*Entry, 0, len(p.byTxID))
	for _, e := range p.byTxID {
		out = append(out, snapshot(e))
	}
	return out
}

// TxIDs returns the txids of every pool transaction.
func (p *Pool) TxIDs() []wire.Hash {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]wire.Hash, 0, len(p.byTxID))
	for id := range p.byTxID {
		out = append(out, id)
	}
	return out
}

// Info is the getmempoolinfo summary.
type Info struct {
	Size                int
	Bytes               int64 // sum of virtual sizes
	Usage               int64
	TotalFee            int64
	MaxMempool          int64
	MempoolMinFee       FeeRate
	MinRelayTxFee       FeeRate
	IncrementalRelayFee FeeRate
	FullRBF             bool
	Orphans             int
	// Unbroadcast is the size of the unbroadcast set.
	Unbroadcast int
}

// Info returns the pool summary.
func (p *Pool) Info() Info {
	p.mu.Lock()
	defer p.mu.Unlock()
	minFee := p.minFeeLocked()
	if minFee < p.cfg.Policy.MinRelayFee {
		minFee = p.cfg.Policy.MinRelayFee
	}
	return Info{
		Size: len(p.byTxID), Bytes: p.totalVSize, Usage: p.usage, TotalFee: p.totalFees,
		MaxMempool: p.cfg.MaxMempoolBytes, MempoolMinFee: minFee,
		MinRelayTxFee: p.cfg.Policy.MinRelayFee, IncrementalRelayFee: p.cfg.Policy.IncrementalRelayFee,
		FullRBF: !p.cfg.NoReplacement, Orphans: len(p.orphans.byID),
		Unbroadcast: len(p.unbroadcast),
	}
}

// nextEpoch starts a new traversal; entries with mark == epoch are visited.
func (p *Pool) nextEpoch() uint64 {
	p.epoch++
	return p.epoch
}

// ancestorsOf collects the in-pool ancestors reachable from parents (not
// including the starting transaction), marking them with epoch.
func (p *Pool) ancestorsOf(parents []*Entry, epoch uint64, dst []*Entry) []*Entry {
	start := len(dst)
	for _, pe := range parents {
		if pe.mark != epoch {
			pe.mark = epoch
			dst = append(dst, pe)
		}
	}
	for i := start; i < len(dst); i++ {
		for _, pe := range dst[i].parents {
			if pe.mark != epoch {
				pe.mark = epoch
				dst = append(dst, pe)
			}
		}
	}
	return dst
}

// descendantsOf collects e's in-pool descendants (not e) marked with epoch.
func (p *Pool) descendantsOf(e *Entry, epoch uint64, dst []*Entry) []*Entry {
	start := len(dst)
	for _, c := range e.children {
		if c.mark != epoch {
			c.mark = epoch
			dst = append(dst, c)
		}
	}
	for i := start; i < len(dst); i++ {
		for _, c := range dst[i].children {
			if c.mark != epoch {
				c.mark = epoch
				dst = append(dst, c)
			}
		}
	}
	return dst
}

// withDescendants returns roots plus all their descendants, each once.
func (p *Pool) withDescendants(roots []*Entry) []*Entry {
	epoch := p.nextEpoch()
	out := make([]*Entry, 0, len(roots))
	for _, r := range roots {
		if r.mark != epoch {
			r.mark = epoch
			out = append(out, r)
		}
	}
	for i := 0; i < len(out); i++ {
		for _, c := range out[i].children {
			if c.mark != epoch {
				c.mark = epoch
				out = append(out, c)
			}
		}
	}
	return out
}

// addEntry links e into the pool. parents are its direct in-pool parents
// and ancestors all its in-pool ancestors.
func (p *Pool) addEntry(e *Entry, parents, ancestors []*Entry) {
	e.parents = parents
	for _, pe := range parents {
		// Growing a parent's child list is memory the parent now holds.
		before := cap(pe.children)
		pe.children = append(pe.children, e)
		if grown := int64(cap(pe.children)-before) * sizePtr; grown != 0 {
			pe.usage += grown
			p.usage += grown
		}
	}
	e.AncCount, e.AncSize, e.AncFees, e.AncSigOps = 1, e.VSize, e.ModFee, e.SigOpCost
	e.DescCount, e.DescSize, e.DescFees = 1, e.VSize, e.ModFee
	for _, a := range ancestors {
		e.AncCount++
		e.AncSize += a.VSize
		e.AncFees += a.ModFee
		e.AncSigOps += a.SigOpCost
		a.DescCount++
		a.DescSize += e.VSize
		a.DescFees += e.ModFee
	}
	if len(p.byTxID) == 0 || e.Time.Before(p.oldest) {
		p.oldest = e.Time
	}
	p.byTxID[e.TxID] = e
	p.byWTxID[e.WTxID] = e
	for i := range e.Tx.TxIn {
		p.spends[e.Tx.TxIn[i].PreviousOutPoint] = e
	}
	e.usage = entryMemUsage(e)
	p.usage += e.usage
	p.totalVSize += e.VSize
	p.totalFees += e.Fee
	e.Sequence = p.sequence
	p.bumpSequence()
	e.AnnounceSequence = p.sequence
}

// removeSet removes the entries of set, keeping the statistics of the
// entries that stay correct: ancestors outside the set lose the removed
// descendants, descendants outside it (which happens only when confirmed
// transactions leave) lose the removed ancestors.
func (p *Pool) removeSet(set []*Entry, reason removeReason) {
	if len(set) == 0 {
		return
	}
	inSet := p.nextEpoch()
	for _, e := range set {
		e.mark = inSet
	}
	var buf []*Entry
	for _, e := range set {
		// Walk upwards and downwards skipping set members; a fresh epoch
		// per walk keeps the in-set marks intact by using a side map only
		// when needed.
		buf = p.outsideRelatives(e, inSet, true, buf[:0])
		for _, a := range buf {
			a.DescCount--
			a.DescSize -= e.VSize
			a.DescFees -= e.ModFee
		}
		buf = p.outsideRelatives(e, inSet, false, buf[:0])
		for _, d := range buf {
			d.AncCount--
			d.AncSize -= e.VSize
			d.AncFees -= e.ModFee
			d.AncSigOps -= e.SigOpCost
		}
	}
	for _, e := range set {
		for _, pe := range e.parents {
			if pe.mark != inSet {
				pe.children = removePtr(pe.children, e)
			}
		}
		for _, c := range e.children {
			if c.mark != inSet {
				c.parents = removePtr(c.parents, e)
			}
		}
		delete(p.byTxID, e.TxID)
		delete(p.byWTxID, e.WTxID)
		p.dropUnbroadcastLocked(e.TxID, " before confirmation that txn was sent out")
		for i := range e.Tx.TxIn {
			op := e.Tx.TxIn[i].PreviousOutPoint
			if p.spends[op] == e {
				delete(p.spends, op)
			}
		}
		p.usage -= e.usage
		p.totalVSize -= e.VSize
		p.totalFees -= e.Fee
		if p.est != nil && reason != removeBlock {
			p.est.removeTx(e.TxID)
		}
		// Every removal takes its own sequence number, as in bitcoind;
		// removals for a block are not reported (the block is).
		if p.cfg.OnRemove != nil && reason != removeBlock {
			p.cfg.OnRemove(e.TxID, p.sequence)
		}
		if p.cfg.OnReplaced != nil && reason == removeReplaced {
			p.cfg.OnReplaced(e.Tx, e.WTxID)
		}
		p.bumpSequence()
	}
}

type removeReason uint8

const (
	removeBlock removeReason = iota
	removeConflict
	removeReplaced
	removeExpiry
	removeSizeLimit
	removeReorg
)

// outsideRelatives lists the ancestors (up) or descendants of e that are
// not marked inSet, without disturbing the marks: it uses a local visited
// list, which is small because chains are bounded.
func (p *Pool) outsideRelatives(e *Entry, inSet uint64, up bool, dst []*Entry) []*Entry {
	next := func(x *Entry) []*Entry {
		if up {
			return x.parents
		}
		return x.children
	}
	// Members of the set are traversed (a confirmed parent's parent may be
	// outside the set) but not collected.
	stack := append([]*Entry(nil), next(e)...)
	var seen []*Entry
	contains := func(s []*Entry, x *Entry) bool {
		for _, y := range s {
			if y == x {
				return true
			}
		}
		return false
	}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if contains(seen, x) {
			continue
		}
		seen = append(seen, x)
		if x.mark != inSet {
			dst = append(dst, x)
		}
		stack = append(stack, next(x)...)
	}
	return dst
}

func removePtr(s []*Entry, x *Entry) []*Entry {
	for i, y := range s {
		if y == x {
			s[i] = s[len(s)-1]
			s[len(s)-1] = nil
			return s[:len(s)-1]
		}
	}
	return s
}

// Relatives returns the txids of txid's direct in-pool parents
// (getrawmempool's "depends") and direct children ("spentby").
func (p *Pool) Relatives(txid wire.Hash) (parents, children []wire.Hash, ok bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	e, ok := p.byTxID[txid]
	if !ok {
		return nil, nil, false
	}
	for _, pe := range e.parents {
		parents = append(parents, pe.TxID)
	}
	for _, c := range e.children {
		children = append(children, c.TxID)
	}
	return parents, children, true
}

// Ancestors returns snapshots of every in-pool ancestor of txid
// (getmempoolancestors).
func (p *Pool) Ancestors(txid wire.Hash) ([]*Entry, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.byTxID[txid]
	if !ok {
		return nil, false
	}
	list := p.ancestorsOf(e.parents, p.nextEpoch(), nil)
	for i, a := range list {
		list[i] = snapshot(a)
	}
	return list, true
}

// Descendants returns snapshots of every in-pool descendant of txid
// (getmempooldescendants).
func (p *Pool) Descendants(txid wire.Hash) ([]*Entry, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.byTxID[txid]
	if !ok {
		return nil, false
	}
	list := p.descendantsOf(e, p.nextEpoch(), nil)
	for i, d := range list {
		list[i] = snapshot(d)
	}
	return list, true
}

// Sequence returns a counter that changes whenever the pool's contents do
// (for getrawmempool's mempool_sequence and template staleness checks).
func (p *Pool) Sequence() uint64 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.sequence
}
