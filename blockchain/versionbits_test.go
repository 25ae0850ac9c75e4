package blockchain

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/wire"
)

// Synthetic header chains: nodes linked by newBlockNode with chosen
// versions and timestamps and no proof of work, so every state-machine
// path can be laid out block by block.

const (
	vbTestBit    = 5
	vbTestMask   = uint32(1) << vbTestBit
	vbSignal     = int32(VersionBitsTopBits | vbTestMask)
	vbNoSignal   = int32(VersionBitsTopBits)
	vbTestPeriod = 10
	// vbTestTime is the first timestamp; block h is one second later per
	// height, so the median time past of block h >= 10 is vbTestTime+h-5.
	vbTestTime = 1000
)

// synthChain builds heights 0..n-1 from a parentless root; version(h)
// gives each block's version.
func synthChain(n int, version func(h int32) int32) []*blockNode {
	return extendChain(nil, n, 0, version)
}

// extendChain appends n blocks to parent (nil: start a chain at height
// 0); salt tells the hashes of sibling branches apart.
func extendChain(parent *blockNode, n int, salt byte, version func(h int32) int32) []*blockNode {
	out := make([]*blockNode, 0, n)
	for range n {
		h := int32(0)
		if parent != nil {
			h = parent.height + 1
		}
		hdr := wire.BlockHeader{Version: version(h), Timestamp: uint32(vbTestTime + h), Bits: 0x207fffff}
		var hash wire.Hash
		binary.LittleEndian.PutUint32(hash[:], uint32(h))
		hash[31] = salt
		if parent != nil {
			hdr.PrevBlock = parent.hash
		}
		parent = newBlockNode(&hdr, hash, parent)
		out = append(out, parent)
	}
	return out
}

// signalIn returns a version function signalling in [from, to).
func signalIn(from, to int32) func(int32) int32 {
	return func(h int32) int32 {
		if h >= from && h < to {
			return vbSignal
		}
		return vbNoSignal
	}
}

// testRule is a deployment on bit 5 with a 10-block period and a threshold
// of 8, starting at the median time past block 19 reaches (block 9's is
// earlier), so period 2 (heights 20-29) is the first one started.
func testRule() thresholdRule {
	return thresholdRule{
		start: vbTestTime + 10, timeout: chaincfg.DeploymentNoTimeout,
		period: vbTestPeriod, threshold: 8, mask: vbTestMask,
	}
}

// stateOf is the state of block n itself (decided by its parent).
func stateOf(r *thresholdRule, n *blockNode, c stateCache) ThresholdState {
	return r.stateFor(n.parent, c)
}

// expectStates checks the state and since of every block: want(h) gives
// the state and first height of that state.
func expectStates(t *testing.T, r thresholdRule, nodes []*blockNode, want func(h int32) (ThresholdState, int32)) {
	t.Helper()
	c := stateCache{}
	for _, n := range nodes {
		ws, wsince := want(n.height)
		if got := stateOf(&r, n, c); got != ws {
			t.Fatalf("block %d: state %v, want %v", n.height, got, ws)
		}
		if got := r.since(n.parent, c); got != wsince {
			t.Fatalf("block %d: since %d, want %d", n.height, got, wsince)
		}
	}
}

func TestVersionBitsMedianTimeLayout(t *testing.T) {
	// The tests below rely on where the start time falls.
	nodes := synthChain(20, signalIn(0, 0))
	if m := nodes[9].medianTimePast(); m >= vbTestTime+10 {
		t.Fatalf("MTP of block 9 is %d, must be before the start", m)
	}
	if m := nodes[19].medianTimePast(); m != vbTestTime+14 {
		t.Fatalf("MTP of block 19 is %d", m)
	}
}

// TestVersionBitsActivationPath walks DEFINED → STARTED → LOCKED_IN →
// ACTIVE, checking every block, including that the first block of each
// period already has the state its predecessor's period decided.
func TestVersionBitsActivationPath(t *testing.T) {
	nodes := synthChain(60, signalIn(20, 30))
	expectStates(t, testRule(), nodes, func(h int32) (ThresholdState, int32) {
		switch {
		case h < 20:
			return ThresholdDefined, 0
		case h < 30:
			return ThresholdStarted, 20
		case h < 40:
			return ThresholdLockedIn, 30
		}
		return ThresholdActive, 40
	})
}

// TestVersionBitsPeriodBoundary: the state changes exactly at a period's
// first block, for a child of the previous period's last block.
func TestVersionBitsPeriodBoundary(t *testing.T) {
	nodes := synthChain(41, signalIn(20, 30))
	r := testRule()
	c := stateCache{}
	for _, tc := range []struct {
		prev int
		want ThresholdState
	}{{18, ThresholdDefined}, {19, ThresholdStarted}, {28, ThresholdStarted}, {29, ThresholdLockedIn},
		{38, ThresholdLockedIn}, {39, ThresholdActive}} {
		if got := r.stateFor(nodes[tc.prev], c); got != tc.want {
			t.Errorf("child of %d: %v, want %v", tc.prev, got, tc.want)
		}
	}
	if got := r.stateFor(nil, c); got != ThresholdDefined {
		t.Errorf("genesis: %v", got)
	}
}

// TestVersionBitsThreshold: one signal short of the threshold stays
// started, and only versions with top bits 001 and the bit set count.
func TestVersionBitsThreshold(t *testing.T) {
	r := testRule()
	short := synthChain(41, signalIn(20, 27)) // 7 of 8
	if got := stateOf(&r, short[40], stateCache{}); got != ThresholdStarted {
		t.Fatalf("7 signals: %v, want started", got)
	}
	for _, v := range []int32{
		int32(0x60000000 | vbTestMask), // top bits 011
		int32(vbTestMask),              // no top bits
		int32(VersionBitsTopBits | 1<<6),
		4,
	} {
		nodes := synthChain(31, func(h int32) int32 {
			if h >= 20 && h < 30 {
				return v
			}
			return vbNoSignal
		})
		if got := stateOf(&r, nodes[30], stateCache{}); got != ThresholdStarted {
			t.Errorf("version %#x counted as a signal: %v", v, got)
		}
	}
}

// TestVersionBitsTimeout: a started deployment fails at the first period
// boundary whose median time past reaches the timeout, but a period that
// reaches the threshold locks in even past the timeout, and a deployment
// still defined when the timeout passes starts before it fails (Core 30
// no longer fails from DEFINED).
func TestVersionBitsTimeout(t *testing.T) {
	r := testRule()
	r.timeout = vbTestTime + 24 // block 29's median time past
	expectStates(t, r, synthChain(50, signalIn(20, 27)), func(h int32) (ThresholdState, int32) {
		switch {
		case h < 20:
			return ThresholdDefined, 0
		case h < 30:
			return ThresholdStarted, 20
		}
		return ThresholdFailed, 30
	})
	locked := synthChain(41, signalIn(20, 30))
	if got := stateOf(&r, locked[30], stateCache{}); got != ThresholdLockedIn {
		t.Errorf("threshold in the timeout period: %v, want locked_in", got)
	}
	r.timeout = vbTestTime // already past at the first boundary
	expectStates(t, r, synthChain(40, signalIn(0, 0)), func(h int32) (ThresholdState, int32) {
		switch {
		case h < 20:
			return ThresholdDefined, 0
		case h < 30:
			return ThresholdStarted, 20
		}
		return ThresholdFailed, 30
	})
}

// TestVersionBitsMinActivationHeight: LOCKED_IN lasts until a period
// starts at or above min_activation_height.
func TestVersionBitsMinActivationHeight(t *testing.T) {
	r := testRule()
	r.minHeight = 55
	expectStates(t, r, synthChain(80, signalIn(20, 30)), func(h int32) (ThresholdState, int32) {
		switch {
		case h < 20:
			return ThresholdDefined, 0
		case h < 30:
			return ThresholdStarted, 20
		case h < 60:
			return ThresholdLockedIn, 30
		}
		return ThresholdActive, 60
	})
	// A height at a period start activates right then.
	r.minHeight = 50
	nodes := synthChain(61, signalIn(20, 30))
	c := stateCache{}
	if got := stateOf(&r, nodes[49], c); got != ThresholdLockedIn {
		t.Errorf("block 49: %v", got)
	}
	if got := stateOf(&r, nodes[50], c); got != ThresholdActive {
		t.Errorf("block 50: %v", got)
	}
}

// TestVersionBitsAlwaysNeverActive: the sentinels fix the state from
// genesis, with since 0, whatever the blocks signal.
func TestVersionBitsAlwaysNeverActive(t *testing.T) {
	nodes := synthChain(45, signalIn(0, 45))
	r := testRule()
	r.start = chaincfg.DeploymentAlwaysActive
	expectStates(t, r, nodes, func(int32) (ThresholdState, int32) { return ThresholdActive, 0 })
	r.start = chaincfg.DeploymentNeverActive
	expectStates(t, r, nodes, func(int32) (ThresholdState, int32) { return ThresholdFailed, 0 })
}

// TestVersionBitsStatistics: the tally covers the block's period up to the
// block, and "possible" turns false once too many blocks missed.
func TestVersionBitsStatistics(t *testing.T) {
	// Period 2: # - # # - - ...
	pattern := map[int32]bool{20: true, 22: true, 23: true}
	nodes := synthChain(30, func(h int32) int32 {
		if pattern[h] {
			return vbSignal
		}
		return vbNoSignal
	})
	r := testRule()
	for _, tc := range []struct {
		height         int
		elapsed, count int32
		possible       bool
		signalling     []bool
	}{
		{20, 1, 1, true, []bool{true}},
		{24, 5, 3, true, []bool{true, false, true, true, false}},
		{25, 6, 3, false, []bool{true, false, true, true, false, false}},
		{19, 10, 0, false, nil},
	} {
		st, sig := r.stats(nodes[tc.height])
		if st.Period != vbTestPeriod || st.Threshold != 8 || st.Elapsed != tc.elapsed || st.Count != tc.count || st.Possible != tc.possible {
			t.Errorf("block %d: %+v", tc.height, st)
		}
		if tc.signalling != nil && !slices.Equal(sig, tc.signalling) {
			t.Errorf("block %d: signalling %v", tc.height, sig)
		}
	}
}

// TestVersionBitsCacheBranches: states are cached per node, so two
// branches from one fork share the prefix and still get their own states,
// in any query order.
func TestVersionBitsCacheBranches(t *testing.T) {
	base := synthChain(20, signalIn(0, 0))
	a := extendChain(base[19], 21, 1, signalIn(20, 30))
	b := extendChain(base[19], 21, 2, signalIn(0, 0))
	r := testRule()
	c := stateCache{}
	for range 2 {
		if got := r.stateFor(a[20], c); got != ThresholdActive {
			t.Fatalf("branch a: %v", got)
		}
		if got := r.stateFor(b[20], c); got != ThresholdStarted {
			t.Fatalf("branch b: %v", got)
		}
	}
}

// TestVersionBitsCacheReuse: once a chain's periods are cached, a later
// query on it counts no signals again.
func TestVersionBitsCacheReuse(t *testing.T) {
	nodes := synthChain(200, signalIn(0, 200))
	r := testRule()
	r.threshold = 11 // never reached: every period is counted
	evaluated := 0
	r.ownBits = func(*blockNode) uint32 { evaluated++; return 0 }
	c := stateCache{}
	r.stateFor(nodes[199], c)
	if evaluated == 0 || len(c) > 200/vbTestPeriod+1 {
		t.Fatalf("first query: %d evaluations, %d cache entries", evaluated, len(c))
	}
	evaluated = 0
	for _, n := range nodes[150:] {
		r.stateFor(n, c)
		r.since(n, c)
	}
	if evaluated != 0 {
		t.Fatalf("cached queries counted %d signals again", evaluated)
	}
}

// synthBlockChain wraps synthetic nodes in a BlockChain with just an index
// and a main chain ending at the last node, enough for the exported
// version-bits queries.
func synthBlockChain(p *chaincfg.Params, nodes []*blockNode) *BlockChain {
	b := &BlockChain{params: p, index: newBlockIndex()}
	for _, n := range nodes {
		b.index.add(n)
	}
	b.chain.setTip(nodes[len(nodes)-1])
	return b
}

// TestNextBlockVersion: regtest's testdummy (bit 28, period 144) is
// signalled from the first block of period 1 while started and locked in,
// and no longer once active; taproot, always active, is never signalled.
func TestNextBlockVersion(t *testing.T) {
	const dummy = int32(VersionBitsTopBits | 1<<28)
	nodes := synthChain(450, func(h int32) int32 {
		if h >= 144 && h < 288 {
			return dummy
		}
		return vbNoSignal
	})
	p := regtest(t).Clone()
	for _, tc := range []struct {
		tip  int
		want int32
	}{{0, vbNoSignal}, {142, vbNoSignal}, {143, dummy}, {287, dummy}, {430, dummy}, {431, vbNoSignal}, {449, vbNoSignal}} {
		b := synthBlockChain(p, nodes[:tc.tip+1])
		if got := b.NextBlockVersion(); got != tc.want {
			t.Errorf("tip %d: version %#x, want %#x", tc.tip, got, tc.want)
		}
		v, err := b.BlockVersionAfter(nodes[tc.tip].hash)
		if err != nil || v != tc.want {
			t.Errorf("BlockVersionAfter(%d): %#x %v", tc.tip, v, err)
		}
	}
	never := p.Clone()
	if err := never.SetVersionBitsParams("testdummy:-2:-2"); err != nil {
		t.Fatal(err)
	}
	if got := synthBlockChain(never, nodes[:200]).NextBlockVersion(); got != vbNoSignal {
		t.Errorf("never active: %#x", got)
	}
	if _, err := synthBlockChain(p, nodes).BlockVersionAfter(wire.Hash{30: 0xde, 31: 0xad}); !errors.Is(err, ErrUnknownBlock) {
		t.Errorf("unknown block: %v", err)
	}
}

// TestDeploymentState: the exported query reports the block's state, its
// children's, since, the active height and, while started or locked in,
// the bit's statistics (without threshold and possible once locked in).
func TestDeploymentState(t *testing.T) {
	const dummy = int32(VersionBitsTopBits | 1<<28)
	nodes := synthChain(450, func(h int32) int32 {
		if h >= 144 && h < 288 {
			return dummy
		}
		return vbNoSignal
	})
	b := synthBlockChain(regtest(t).Clone(), nodes)
	st, err := b.DeploymentState(chaincfg.DeploymentTestDummy, nodes[207].hash)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != ThresholdStarted || st.Next != ThresholdStarted || st.Since != 144 || st.ActiveHeight != -1 ||
		st.Stats == nil || *st.Stats != (BIP9Stats{Period: 144, Threshold: 108, Elapsed: 64, Count: 64, Possible: true}) ||
		len(st.Signalling) != 64 {
		t.Fatalf("height 207: %+v %+v", st, st.Stats)
	}
	st, _ = b.DeploymentState(chaincfg.DeploymentTestDummy, nodes[287].hash)
	if st.State != ThresholdStarted || st.Next != ThresholdLockedIn {
		t.Fatalf("height 287: %+v", st)
	}
	st, _ = b.DeploymentState(chaincfg.DeploymentTestDummy, nodes[300].hash)
	if st.State != ThresholdLockedIn || st.Since != 288 || st.Stats == nil ||
		*st.Stats != (BIP9Stats{Period: 144, Elapsed: 13}) {
		t.Fatalf("height 300: %+v %+v", st, st.Stats)
	}
	st, _ = b.DeploymentState(chaincfg.DeploymentTestDummy, nodes[431].hash)
	if st.State != ThresholdLockedIn || st.Next != ThresholdActive || st.ActiveHeight != 432 {
		t.Fatalf("height 431: %+v", st)
	}
	st, _ = b.DeploymentState(chaincfg.DeploymentTestDummy, nodes[440].hash)
	if st.State != ThresholdActive || st.Since != 432 || st.ActiveHeight != 432 || st.Stats != nil {
		t.Fatalf("height 440: %+v", st)
	}
	st, _ = b.DeploymentState(chaincfg.DeploymentTaproot, nodes[10].hash)
	if st.State != ThresholdActive || st.Since != 0 || st.ActiveHeight != 0 {
		t.Fatalf("taproot: %+v", st)
	}
	if _, err := b.DeploymentState(chaincfg.DeploymentTestDummy, wire.Hash{30: 0xde, 31: 0xad}); !errors.Is(err, ErrUnknownBlock) {
		t.Errorf("unknown block: %v", err)
	}
	if _, err := b.DeploymentState(chaincfg.DefinedDeployments, nodes[0].hash); err == nil {
		t.Error("unknown deployment accepted")
	}
}

// unknownBitChain is a regtest chain whose period 1 has count blocks
// signalling bit 27, which no deployment uses.
func unknownBitChain(n, count int) []*blockNode {
	return synthChain(n, func(h int32) int32 {
		if h >= 144 && h < 144+int32(count) {
			return int32(VersionBitsTopBits | 1<<27)
		}
		return vbNoSignal
	})
}

// TestUnknownRulesWarning follows Core's feature_versionbits_warning:
// 108 of 144 blocks signalling an unknown bit lock it in for the next
// period and activate it in the one after; only activation raises the
// warning, once.
func TestUnknownRulesWarning(t *testing.T) {
	p := regtest(t).Clone()
	nodes := unknownBitChain(440, 108)
	msg := "Unknown new rules activated (versionbit 27)"
	if got := synthBlockChain(p, nodes[:287]).UnknownRules(); len(got) != 0 {
		t.Fatalf("before the period ends: %v", got)
	}
	b := synthBlockChain(p, nodes[:288])
	raised, locked := b.CheckUnknownRules()
	if raised != "" || !slices.Equal(locked, []string{msg}) || b.Warnings() != nil {
		t.Fatalf("locked in: raised %q, locked %v, warnings %v", raised, locked, b.Warnings())
	}
	b.chain.setTip(nodes[431])
	raised, locked = b.CheckUnknownRules()
	if raised != msg || len(locked) != 0 || !slices.Equal(b.Warnings(), []string{msg}) {
		t.Fatalf("active: raised %q, locked %v, warnings %v", raised, locked, b.Warnings())
	}
	b.chain.setTip(nodes[439])
	if raised, _ = b.CheckUnknownRules(); raised != "" || !slices.Equal(b.Warnings(), []string{msg}) {
		t.Fatalf("raised twice: %q", raised)
	}
}

// TestUnknownRulesBelowThreshold: 107 signals are not enough.
func TestUnknownRulesBelowThreshold(t *testing.T) {
	b := synthBlockChain(regtest(t).Clone(), unknownBitChain(440, 107))
	if raised, locked := b.CheckUnknownRules(); raised != "" || len(locked) != 0 || len(b.UnknownRules()) != 0 {
		t.Fatalf("raised %q, locked %v", raised, locked)
	}
}

// TestUnknownRulesIgnoresKnownBits: a bit the node itself signals for a
// started deployment is not unknown, and blocks under
// MinBIP9WarningHeight do not count.
func TestUnknownRulesIgnoresKnownBits(t *testing.T) {
	p := regtest(t).Clone()
	dummy := synthChain(300, func(h int32) int32 {
		if h >= 144 {
			return int32(VersionBitsTopBits | 1<<28)
		}
		return vbNoSignal
	})
	if got := synthBlockChain(p, dummy).UnknownRules(); len(got) != 0 {
		t.Errorf("testdummy's own bit warned: %v", got)
	}
	p.MinBIP9WarningHeight = 200
	if got := synthBlockChain(p, unknownBitChain(300, 144)).UnknownRules(); len(got) != 0 {
		t.Errorf("blocks below MinBIP9WarningHeight counted: %v", got)
	}
}

// TestUnknownRulesWindow: the warning machine uses 90% of 2016 on mainnet
// and 75% of the retarget interval elsewhere.
func TestUnknownRulesWindow(t *testing.T) {
	main, _ := chaincfg.ParamsForNetwork("main")
	r := (&BlockChain{params: main}).warningRule(3)
	if r.period != 2016 || r.threshold != 1815 || r.mask != 1<<3 || r.minSignalHeight != main.MinBIP9WarningHeight {
		t.Errorf("mainnet: %+v", r)
	}
	r = (&BlockChain{params: regtest(t)}).warningRule(27)
	if r.period != 144 || r.threshold != 108 {
		t.Errorf("regtest: period %d threshold %d", r.period, r.threshold)
	}
}

// TestVersionBitsOnChain runs the queries on a real chain: blocks mined
// with NextBlockVersion signal testdummy, which the statistics count.
func TestVersionBitsOnChain(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	tc.mine(143)
	if v := tc.chain.NextBlockVersion(); v != int32(VersionBitsTopBits|1<<28) {
		t.Fatalf("version at 143: %#x", v)
	}
	for range 10 {
		tc.accept(tc.b.NextBlock(nil, nil, &chaintest.BlockOpts{Version: tc.chain.NextBlockVersion()}))
	}
	tc.mine(2) // default version: not signalling
	tip := tc.chain.BestSnapshot()
	st, err := tc.chain.DeploymentState(chaincfg.DeploymentTestDummy, tip.Hash)
	if err != nil || st.State != ThresholdStarted || st.Since != 144 || st.Stats == nil ||
		st.Stats.Elapsed != 12 || st.Stats.Count != 10 || st.Signalling[9] != true || st.Signalling[11] != false {
		t.Fatalf("tip %d: %+v %+v %v", tip.Height, st, st.Stats, err)
	}
}
