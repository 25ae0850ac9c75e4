package blockchain

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/wire"
)

// This file runs BIP9 version bits as Bitcoin Core 30 does
// (versionbits.cpp): one threshold state machine per deployment of
// Params.Deployments, and one per version bit for the "unknown new rules"
// warning. None of it changes what the chain enforces (taproot is enforced
// from Params.TaprootHeight, testdummy never); it drives getdeploymentinfo,
// getblocktemplate, the version of the blocks the node mines and the
// warning.

// Version-bits header encoding (BIP9). Only versions whose top three bits
// are 001 signal, so that the old version numbers 1 to 4, and whatever
// scheme might follow BIP9, never count as signals.
const (
	// VersionBitsTopBits is the value of the top three bits of a signalling
	// version, and the version of a block that signals nothing.
	VersionBitsTopBits uint32 = 0x20000000
	// VersionBitsTopMask selects the top three bits.
	VersionBitsTopMask uint32 = 0xE0000000
	// VersionBitsNumBits is the number of bits below the top three that
	// deployments may use.
	VersionBitsNumBits = 29
)

// ErrUnknownBlock is returned for a block hash the index does not hold.
var ErrUnknownBlock = errors.New("blockchain: block not in the index")

// ThresholdState is the BIP9 state of a deployment for one block.
type ThresholdState uint8

// BIP9 states. Every block of a signalling period shares the state, which
// is decided by the blocks before the period.
const (
	// ThresholdDefined is the state before the start time (and genesis's).
	ThresholdDefined ThresholdState = iota
	// ThresholdStarted: past the start time, counting signals.
	ThresholdStarted
	// ThresholdLockedIn: a period reached the threshold; the rules apply
	// after this period ends and min_activation_height is reached.
	ThresholdLockedIn
	// ThresholdActive: the rules apply (terminal).
	ThresholdActive
	// ThresholdFailed: the timeout passed before lock-in (terminal).
	ThresholdFailed
)

// String returns the state's name as Core's RPCs print it.
func (s ThresholdState) String() string {
	switch s {
	case ThresholdDefined:
		return "defined"
	case ThresholdStarted:
		return "started"
	case ThresholdLockedIn:
		return "locked_in"
	case ThresholdActive:
		return "active"
	case ThresholdFailed:
		return "failed"
	}
	return "invalid"
}

// BIP9Stats is the signalling tally of the period a block belongs to, up
// to and including that block (Core's BIP9Stats).
type BIP9Stats struct {
	Period    int32 // blocks per period
	Threshold int32 // signals needed; 0 once locked in
	Elapsed   int32 // blocks of the period so far
	Count     int32 // of which signalled
	// Possible reports whether the threshold can still be reached in this
	// period (false once locked in).
	Possible bool
}

// DeploymentStatus is a deployment's BIP9 state at one block, as
// getdeploymentinfo reports it.
type DeploymentStatus struct {
	// State is the block's own state and Next its children's.
	State ThresholdState
	Next  ThresholdState
	// Since is the first height of the run of periods in State.
	Since int32
	// ActiveHeight is the first height enforcing the deployment when the
	// block or its children are active, and -1 otherwise.
	ActiveHeight int32
	// Stats and Signalling are set while State is started or locked in:
	// the tally of the block's period and, per block of the period up to
	// this one, whether it signalled.
	Stats      *BIP9Stats
	Signalling []bool
}

// UnknownRulesMessage is Core's warning for a version bit that activated
// rules this software does not know.
func UnknownRulesMessage(bit int) string {
	return fmt.Sprintf("Unknown new rules activated (versionbit %d)", bit)
}

// stateCache maps the last block of a period (nil standing for genesis's
// parent) to the state of the period after it. Because the key is a node,
// not a height, entries stay right across reorganisations: a node's state
// depends only on its ancestors, which never change.
type stateCache map[*blockNode]ThresholdState

// versionBits holds the state caches and the warning latch. Its zero value
// is ready; mu is taken after the chain lock, never before it.
type versionBits struct {
	mu          sync.Mutex
	deployments [chaincfg.DefinedDeployments]stateCache
	warnings    [VersionBitsNumBits]stateCache
	// unknownRules is the raised warning. Core keeps one slot per warning
	// kind and never overwrites it, so only the first bit to activate is
	// reported (and alerted) until the node restarts.
	unknownRules string
}

func (v *versionBits) deploymentCache(i int) stateCache {
	if v.deployments[i] == nil {
		v.deployments[i] = make(stateCache)
	}
	return v.deployments[i]
}

func (v *versionBits) warningCache(bit int) stateCache {
	if v.warnings[bit] == nil {
		v.warnings[bit] = make(stateCache)
	}
	return v.warnings[bit]
}

// thresholdRule is one state machine's parameters and signal condition.
type thresholdRule struct {
	start, timeout    int64
	minHeight         int32
	period, threshold int32
	mask              uint32
	// minSignalHeight: blocks below it never count (the warning's
	// MinBIP9WarningHeight).
	minSignalHeight int32
	// ownBits, when set, returns the bits this software itself would set
	// in a child of its argument; a block signalling one of those is not
	// signalling unknown rules.
	ownBits func(prev *blockNode) uint32
}

func deploymentRule(d *chaincfg.Deployment) thresholdRule {
	return thresholdRule{
		start: d.StartTime, timeout: d.Timeout, minHeight: d.MinActivationHeight,
		period: int32(d.Period), threshold: int32(d.Threshold), mask: 1 << d.Bit,
	}
}

// signalsMask reports whether version signals any bit of mask.
func signalsMask(version int32, mask uint32) bool {
	v := uint32(version)
	return v&VersionBitsTopMask == VersionBitsTopBits && v&mask != 0
}

func (r *thresholdRule) signals(n *blockNode) bool {
	if n.height < r.minSignalHeight || !signalsMask(n.version, r.mask) {
		return false
	}
	return r.ownBits == nil || r.ownBits(n.parent)&r.mask == 0
}

// fixed returns the state of deployments that never leave one state.
// A period of 0 (parameters that define no schedule) is treated as
// "never starts" rather than dividing by zero.
func (r *thresholdRule) fixed() (ThresholdState, bool) {
	switch {
	case r.start == chaincfg.DeploymentAlwaysActive:
		return ThresholdActive, true
	case r.start == chaincfg.DeploymentNeverActive:
		return ThresholdFailed, true
	case r.period <= 0:
		return ThresholdDefined, true
	}
	return 0, false
}

// boundary returns the last block of the period before the one prev's
// child is in: the block that decides the child's state. It is prev itself
// when the child starts a period, and nil within the first period.
func (r *thresholdRule) boundary(prev *blockNode) *blockNode {
	if prev == nil {
		return nil
	}
	return prev.ancestor(prev.height - (prev.height+1)%r.period)
}

// stateFor returns the state of a child of prev (nil: of genesis). It
// steps back a period at a time to a known state and computes forward,
// caching every period boundary it passes, so each period is evaluated
// once.
func (r *thresholdRule) stateFor(prev *blockNode, cache stateCache) ThresholdState {
	if s, ok := r.fixed(); ok {
		return s
	}
	prev = r.boundary(prev)
	var todo []*blockNode
	var state ThresholdState
	for {
		if s, ok := cache[prev]; ok {
			state = s
			break
		}
		// Before the start time every earlier period is defined too,
		// so there is no need to walk back further.
		if prev == nil || prev.medianTimePast() < r.start {
			cache[prev] = ThresholdDefined
			state = ThresholdDefined
			break
		}
		todo = append(todo, prev)
		prev = prev.ancestor(prev.height - r.period)
	}
	for i := len(todo) - 1; i >= 0; i-- {
		state = r.transition(state, todo[i])
		cache[todo[i]] = state
	}
	return state
}

// transition returns the state of the period after last, given the state
// of the period last ends.
func (r *thresholdRule) transition(s ThresholdState, last *blockNode) ThresholdState {
	switch s {
	case ThresholdDefined:
		if last.medianTimePast() >= r.start {
			return ThresholdStarted
		}
	case ThresholdStarted:
		// Lock-in wins over a timeout in the same period (BIP341's
		// change to BIP9).
		if r.count(last) >= r.threshold {
			return ThresholdLockedIn
		}
		if last.medianTimePast() >= r.timeout {
			return ThresholdFailed
		}
	case ThresholdLockedIn:
		if last.height+1 >= r.minHeight {
			return ThresholdActive
		}
	}
	return s
}

// count returns how many of the period's blocks ending at last signal.
func (r *thresholdRule) count(last *blockNode) int32 {
	var n int32
	it := last
	for i := int32(0); i < r.period && it != nil; i++ {
		if r.signals(it) {
			n++
		}
		it = it.parent
	}
	return n
}

// since returns the first height of the run of periods sharing the state
// of prev's child.
func (r *thresholdRule) since(prev *blockNode, cache stateCache) int32 {
	if _, ok := r.fixed(); ok {
		return 0
	}
	state := r.stateFor(prev, cache)
	if state == ThresholdDefined {
		return 0
	}
	// Not defined, so the boundary exists.
	prev = r.boundary(prev)
	for {
		earlier := prev.ancestor(prev.height - r.period)
		if earlier == nil || r.stateFor(earlier, cache) != state {
			break
		}
		prev = earlier
	}
	return prev.height + 1
}

// stats tallies n's period up to n, with one flag per block.
func (r *thresholdRule) stats(n *blockNode) (BIP9Stats, []bool) {
	st := BIP9Stats{Period: r.period, Threshold: r.threshold}
	if n == nil || r.period <= 0 {
		return st, nil
	}
	st.Elapsed = n.height%r.period + 1
	sig := make([]bool, st.Elapsed)
	it := n
	for i := st.Elapsed - 1; i >= 0 && it != nil; i-- {
		if r.signals(it) {
			st.Count++
			sig[i] = true
		}
		it = it.parent
	}
	st.Possible = r.period-r.threshold >= st.Elapsed-st.Count
	return st, sig
}

// computeVersion is Core's ComputeBlockVersion: the version a child of
// prev should carry, signalling every deployment that is started or locked
// in. Called with vb.mu held.
func (b *BlockChain) computeVersion(prev *blockNode) uint32 {
	v := VersionBitsTopBits
	for i := range b.params.Deployments {
		r := deploymentRule(&b.params.Deployments[i])
		switch r.stateFor(prev, b.vb.deploymentCache(i)) {
		case ThresholdStarted, ThresholdLockedIn:
			v |= r.mask
		}
	}
	return v
}

// warningRule is the state machine of one version bit for the unknown
// rules warning: always started, with Core's period and threshold (90% of
// 2016 on mainnet, 75% of a retarget interval on the test networks).
func (b *BlockChain) warningRule(bit int) thresholdRule {
	p := b.params
	period, threshold := int32(2016), int32(1815)
	if p.IsTestChain() {
		period = p.DifficultyAdjustmentInterval()
		threshold = period * 3 / 4
	}
	return thresholdRule{
		start: 0, timeout: math.MaxInt64, period: period, threshold: threshold,
		mask: 1 << bit, minSignalHeight: p.MinBIP9WarningHeight, ownBits: b.computeVersion,
	}
}

// DeploymentState returns the BIP9 state of deployment id (an index of
// Params.Deployments) at the block hash, which need not be on the main
// chain: its own state, its children's, since when, and the signalling
// statistics of its period while the deployment is started or locked in.
func (b *BlockChain) DeploymentState(id int, hash wire.Hash) (DeploymentStatus, error) {
	if id < 0 || id >= len(b.params.Deployments) {
		return DeploymentStatus{}, fmt.Errorf("blockchain: no deployment %d", id)
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	n := b.index.lookup(&hash)
	if n == nil {
		return DeploymentStatus{}, ErrUnknownBlock
	}
	r := deploymentRule(&b.params.Deployments[id])
	b.vb.mu.Lock()
	cache := b.vb.deploymentCache(id)
	st := DeploymentStatus{
		State:        r.stateFor(n.parent, cache),
		Next:         r.stateFor(n, cache),
		Since:        r.since(n.parent, cache),
		ActiveHeight: -1,
	}
	b.vb.mu.Unlock()
	if st.State == ThresholdStarted || st.State == ThresholdLockedIn {
		stats, sig := r.stats(n)
		if st.State == ThresholdLockedIn {
			// Nothing left to reach: Core reports neither.
			stats.Threshold, stats.Possible = 0, false
		}
		st.Stats, st.Signalling = &stats, sig
	}
	switch {
	case st.State == ThresholdActive:
		st.ActiveHeight = st.Since
	case st.Next == ThresholdActive:
		st.ActiveHeight = n.height + 1
	}
	return st, nil
}

// NextBlockVersion returns the version a block on the current tip should
// carry: VersionBitsTopBits with the bit of every deployment that is
// started or locked in for it (Core's ComputeBlockVersion).
func (b *BlockChain) NextBlockVersion() int32 {
	b.mu.RLock()
	defer b.mu.RUnlock()
	b.vb.mu.Lock()
	defer b.vb.mu.Unlock()
	return int32(b.computeVersion(b.chain.tip()))
}

// BlockVersionAfter is NextBlockVersion for a child of the block prev,
// so that a caller building on a tip it has already read gets a version
// consistent with it even if the tip has moved since.
func (b *BlockChain) BlockVersionAfter(prev wire.Hash) (int32, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	n := b.index.lookup(&prev)
	if n == nil {
		return 0, ErrUnknownBlock
	}
	b.vb.mu.Lock()
	defer b.vb.mu.Unlock()
	return int32(b.computeVersion(n)), nil
}

// UnknownRule is a version bit that enough blocks signalled without any
// deployment of this software using it.
type UnknownRule struct {
	Bit int
	// Active: the bit's period threshold was reached more than a period
	// ago, so the unknown rules are likely enforced now; otherwise they
	// are only locked in.
	Active bool
}

// UnknownRules runs Core's unknown-activation check (CheckUnknownActivations)
// for a child of the tip: every bit whose warning state machine is locked
// in or active, lowest first.
func (b *BlockChain) UnknownRules() []UnknownRule {
	b.mu.RLock()
	defer b.mu.RUnlock()
	b.vb.mu.Lock()
	defer b.vb.mu.Unlock()
	return b.unknownRules(b.chain.tip())
}

// unknownRules is UnknownRules for a child of prev, with both locks held.
func (b *BlockChain) unknownRules(prev *blockNode) []UnknownRule {
	var out []UnknownRule
	for bit := range VersionBitsNumBits {
		r := b.warningRule(bit)
		switch r.stateFor(prev, b.vb.warningCache(bit)) {
		case ThresholdActive:
			out = append(out, UnknownRule{Bit: bit, Active: true})
		case ThresholdLockedIn:
			out = append(out, UnknownRule{Bit: bit})
		}
	}
	return out
}

// CheckUnknownRules is what Core does on every tip change out of initial
// block download (the caller checks that): it raises the unknown-rules
// warning for the first bit found active and returns its message as
// raised, once per run of the node (for -alertnotify), and returns the
// messages of bits only locked in, which Core appends to its tip log line.
func (b *BlockChain) CheckUnknownRules() (raised string, lockedIn []string) {
	for _, u := range b.UnknownRules() {
		msg := UnknownRulesMessage(u.Bit)
		if !u.Active {
			lockedIn = append(lockedIn, msg)
			continue
		}
		b.vb.mu.Lock()
		if b.vb.unknownRules == "" {
			b.vb.unknownRules, raised = msg, msg
		}
		b.vb.mu.Unlock()
	}
	return raised, lockedIn
}

// Warnings returns the chain's raised warnings (at most the unknown-rules
// one), as getblockchaininfo, getmininginfo and getnetworkinfo list them.
func (b *BlockChain) Warnings() []string {
	b.vb.mu.Lock()
	defer b.vb.mu.Unlock()
	if b.vb.unknownRules == "" {
		return nil
	}
	return []string{b.vb.unknownRules}
}
