package blockchain

import (
	"testing"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/wire"
)

func params(t *testing.T, name string) *chaincfg.Params {
	t.Helper()
	p, err := chaincfg.ParamsForNetwork(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCalcRetargetCoreVectors uses the cases of Core's pow_tests.
func TestCalcRetargetCoreVectors(t *testing.T) {
	p := params(t, "main")
	tests := []struct {
		name        string
		first, last int64
		bits, want  uint32
	}{
		{"get_next_work", 1261130161, 1262152739, 0x1d00ffff, 0x1d00d86a},
		{"pow_limit", 1231006505, 1233061996, 0x1d00ffff, 0x1d00ffff},
		{"lower_limit_actual", 1279008237, 1279297671, 0x1c05a3f4, 0x1c0168fd},
		{"upper_limit_actual", 1263163443, 1269211443, 0x1c387f6f, 0x1d00e1fd},
	}
	for _, tc := range tests {
		if got := CalcRetarget(p, tc.bits, tc.first, tc.last); got != tc.want {
			t.Errorf("%s: got %08x, want %08x", tc.name, got, tc.want)
		}
	}
}

// nodeChain builds a chain of n header nodes from genesis with the given
// per-block time step and bits.
func nodeChain(p *chaincfg.Params, n int, start uint32, step func(h int32) uint32, bits func(h int32) uint32) []*blockNode {
	out := make([]*blockNode, n)
	var parent *blockNode
	ts := start
	for i := range n {
		h := int32(i)
		if i > 0 {
			ts += step(h)
		}
		hdr := wire.BlockHeader{Version: 4, Timestamp: ts, Bits: bits(h), Nonce: uint32(i)}
		if parent != nil {
			hdr.PrevBlock = parent.hash
		}
		nd := newBlockNode(&hdr, hdr.BlockHash(), parent)
		out[i] = nd
		parent = nd
	}
	return out
}

func TestNextRequiredBitsMainnet(t *testing.T) {
	p := params(t, "main")
	// 2016 blocks at 5 minutes each: the target halves (difficulty
	// doubles) at the retarget.
	ns := nodeChain(p, 2016, 1600000000, func(int32) uint32 { return 300 }, func(int32) uint32 { return 0x1c0ffff0 })
	last := ns[len(ns)-1]
	if got := nextRequiredBits(p, ns[2014], int64(last.timestamp)); got != 0x1c0ffff0 {
		t.Errorf("mid-period bits %08x", got)
	}
	got := nextRequiredBits(p, last, int64(last.timestamp)+600)
	want := CalcRetarget(p, 0x1c0ffff0, int64(ns[0].timestamp), int64(last.timestamp))
	if got != want || got == 0x1c0ffff0 {
		t.Errorf("retarget %08x, want %08x", got, want)
	}
	// Clamp: a period taking 100x too long only quarters the difficulty.
	slow := nodeChain(p, 2016, 1600000000, func(int32) uint32 { return 60000 }, func(int32) uint32 { return 0x1b0404cb })
	l := slow[len(slow)-1]
	clamped := nextRequiredBits(p, l, int64(l.timestamp)+600)
	if want := CalcRetarget(p, 0x1b0404cb, 0, 4*int64(p.TargetTimespan.Seconds())); clamped != want {
		t.Errorf("clamped %08x, want %08x", clamped, want)
	}
}

func TestNextRequiredBitsTestnet3(t *testing.T) {
	p := params(t, "test")
	const real = 0x1c00ffff
	// Blocks 1..9 real difficulty, then 10..12 min-difficulty blocks.
	ns := nodeChain(p, 13, 1600000000, func(int32) uint32 { return 600 }, func(h int32) uint32 {
		if h >= 10 {
			return p.PowLimitBits
		}
		return real
	})
	tip := ns[12]
	// More than 20 minutes later: minimum difficulty allowed.
	if got := nextRequiredBits(p, tip, int64(tip.timestamp)+1201); got != p.PowLimitBits {
		t.Errorf("20-minute rule: %08x", got)
	}
	// Exactly 20 minutes is not enough; walk back past the min-difficulty
	// blocks to the last real difficulty.
	if got := nextRequiredBits(p, tip, int64(tip.timestamp)+1200); got != real {
		t.Errorf("walk-back: %08x, want %08x", got, real)
	}
}

func TestNextRequiredBitsTestnet4BIP94(t *testing.T) {
	p := params(t, "testnet4")
	if !p.EnforceBIP94 {
		t.Fatal("testnet4 must enforce BIP94")
	}
	const real = 0x1c00ffff
	// The period's last block is a min-difficulty exception; BIP94
	// retargets from the first block's real difficulty.
	ns := nodeChain(p, 2016, 1700000000, func(int32) uint32 { return 600 }, func(h int32) uint32 {
		if h == 2015 {
			return p.PowLimitBits
		}
		return real
	})
	last := ns[2015]
	got := nextRequiredBits(p, last, int64(last.timestamp)+600)
	want := CalcRetarget(p, real, int64(ns[0].timestamp), int64(last.timestamp))
	if got != want {
		t.Errorf("BIP94 retarget %08x, want %08x", got, want)
	}
	// Without BIP94 (testnet3 rules) the base would be the exception.
	p3 := params(t, "test")
	if nextRequiredBits(p3, last, int64(last.timestamp)+600) == want {
		t.Errorf("testnet3 retarget should differ")
	}

	// Time-warp: the first block of a period may be at most 600 s older
	// than its parent.
	hdr := wire.BlockHeader{Version: 4, Bits: want}
	ctx := HeaderContext{Height: 2016, RequiredBits: want, PrevTime: int64(last.timestamp),
		PrevMTP: last.medianTimePast(), Now: int64(last.timestamp) + 3600}
	hdr.Timestamp = last.timestamp - 601
	if err := CheckHeaderContext(p, &hdr, &ctx); !isKind(err, ErrTimewarpAttack) {
		t.Errorf("timewarp: %v", err)
	}
	hdr.Timestamp = last.timestamp - 600
	if err := CheckHeaderContext(p, &hdr, &ctx); err != nil {
		t.Errorf("600 s back must pass: %v", err)
	}
	// Not a period start: no time-warp rule (only MTP).
	ctx.Height = 2017
	hdr.Timestamp = last.timestamp - 601
	if err := CheckHeaderContext(p, &hdr, &ctx); err != nil {
		t.Errorf("mid-period: %v", err)
	}
}

func TestNextRequiredBitsRegtest(t *testing.T) {
	p := params(t, "regtest")
	interval := p.DifficultyAdjustmentInterval()
	ns := nodeChain(p, int(interval), 1600000000, func(int32) uint32 { return 1 }, func(int32) uint32 { return p.PowLimitBits })
	last := ns[len(ns)-1]
	if got := nextRequiredBits(p, last, int64(last.timestamp)+1); got != p.PowLimitBits {
		t.Errorf("regtest retarget: %08x", got)
	}
}

func TestCheckProofOfWork(t *testing.T) {
	p := params(t, "main")
	g := p.GenesisBlock.Header
	hash := g.BlockHash()
	if err := CheckProofOfWork(&hash, g.Bits, p.PowLimit); err != nil {
		t.Fatal(err)
	}
	// A harder target the genesis hash does not meet.
	if err := CheckProofOfWork(&hash, 0x1b0404cb, p.PowLimit); !isKind(err, ErrHighHash) {
		t.Errorf("harder target: %v", err)
	}
	// Above the limit, negative, zero.
	for _, bits := range []uint32{0x1e00ffff, 0x04923456, 0} {
		if err := CheckProofOfWork(&hash, bits, p.PowLimit); !isKind(err, ErrHighHash) {
			t.Errorf("bits %08x: %v", bits, err)
		}
	}
}

func TestMedianTimeAndHeaderTime(t *testing.T) {
	if m := MedianTime([]int64{5, 1, 4, 2, 3}); m != 3 {
		t.Errorf("median %d", m)
	}
	if m := MedianTime([]int64{2, 1}); m != 2 {
		t.Errorf("median of two %d", m)
	}
	p := params(t, "regtest")
	ns := nodeChain(p, 20, 1000, func(int32) uint32 { return 10 }, func(int32) uint32 { return p.PowLimitBits })
	tip := ns[19]
	if mtp := tip.medianTimePast(); mtp != int64(ns[14].timestamp) {
		t.Errorf("mtp %d, want %d", mtp, ns[14].timestamp)
	}
	hdr := wire.BlockHeader{Version: 4, Bits: p.PowLimitBits}
	ctx := HeaderContext{Height: 20, RequiredBits: p.PowLimitBits, PrevTime: int64(tip.timestamp),
		PrevMTP: tip.medianTimePast(), Now: 5000}
	hdr.Timestamp = uint32(ctx.PrevMTP)
	if err := CheckHeaderContext(p, &hdr, &ctx); !isKind(err, ErrTimeTooOld) {
		t.Errorf("at MTP: %v", err)
	}
	hdr.Timestamp = uint32(ctx.PrevMTP + 1)
	if err := CheckHeaderContext(p, &hdr, &ctx); err != nil {
		t.Errorf("MTP+1: %v", err)
	}
	hdr.Timestamp = 5000 + MaxFutureBlockTime + 1
	if err := CheckHeaderContext(p, &hdr, &ctx); !isKind(err, ErrTimeTooNew) {
		t.Errorf("future: %v", err)
	}
	hdr.Timestamp = 5000 + MaxFutureBlockTime
	if err := CheckHeaderContext(p, &hdr, &ctx); err != nil {
		t.Errorf("two hours: %v", err)
	}
	hdr.Timestamp = uint32(ctx.PrevMTP + 1)
	hdr.Bits = 0x207ffffe
	if err := CheckHeaderContext(p, &hdr, &ctx); !isKind(err, ErrBadDiffBits) {
		t.Errorf("bits: %v", err)
	}
}

func TestVersionRules(t *testing.T) {
	p := params(t, "main")
	ctx := HeaderContext{RequiredBits: 0x1d00ffff, PrevMTP: 0, Now: 1 << 40}
	hdr := wire.BlockHeader{Bits: 0x1d00ffff, Timestamp: 1000}
	cases := []struct {
		height  int32
		version int32
		ok      bool
	}{
		{p.BIP34Height - 1, 1, true},
		{p.BIP34Height, 1, false},
		{p.BIP34Height, 2, true},
		{p.BIP66Height, 2, false},
		{p.BIP66Height, 3, true},
		{p.BIP65Height, 3, false},
		{p.BIP65Height, 4, true},
		{p.BIP65Height, 0x20000000, true},
	}
	for _, c := range cases {
		ctx.Height = c.height
		hdr.Version = c.version
		err := CheckHeaderContext(p, &hdr, &ctx)
		if (err == nil) != c.ok {
			t.Errorf("height %d version %d: %v", c.height, c.version, err)
		}
		if err != nil {
			re := err.(*RuleError)
			if !isKind(err, ErrBadVersion) || re.Reason != "bad-version(0x"+hex8(uint32(c.version))+")" {
				t.Errorf("reason %q", re.Reason)
			}
		}
	}
}

func TestSubsidy(t *testing.T) {
	cases := []struct {
		h    int32
		want int64
	}{
		{0, 50e8}, {209999, 50e8}, {210000, 25e8}, {420000, 12.5e8}, {630000, 6.25e8},
		{840000, 3.125e8}, {210000 * 33, 0}, {210000 * 64, 0}, {210000 * 100, 0},
	}
	for _, c := range cases {
		if got := CalcBlockSubsidy(c.h, 210000); got != c.want {
			t.Errorf("subsidy(%d) = %d, want %d", c.h, got, c.want)
		}
	}
	var total int64
	for h := int32(0); h < 210000*64; h += 210000 {
		total += CalcBlockSubsidy(h, 210000) * 210000
	}
	if total != 2099999997690000 {
		t.Errorf("total supply %d", total)
	}
}

func TestWork(t *testing.T) {
	w := CalcWork(0x1d00ffff)
	if w.Big().Int64() != 0x100010001 {
		t.Errorf("work %v", w)
	}
	sum := w.Add(w).Add(Work{^uint64(0)})
	if sum.Sub(Work{^uint64(0)}).Cmp(w.Add(w)) != 0 {
		t.Error("add/sub carry")
	}
	if WorkFromBytes(sum.Bytes()) != sum || WorkFromBig(sum.Big()) != sum {
		t.Error("round trip")
	}
}

func TestAncestorSkip(t *testing.T) {
	p := params(t, "regtest")
	ns := nodeChain(p, 5000, 1, func(int32) uint32 { return 1 }, func(int32) uint32 { return p.PowLimitBits })
	tip := ns[len(ns)-1]
	for _, h := range []int32{0, 1, 2, 3, 100, 1023, 1024, 2500, 4998, 4999} {
		if a := tip.ancestor(h); a != ns[h] {
			t.Errorf("ancestor(%d) wrong", h)
		}
	}
	if tip.ancestor(5000) != nil || tip.ancestor(-1) != nil {
		t.Error("out of range ancestor")
	}
	if f := findFork(ns[3000], ns[4000]); f != ns[3000] {
		t.Error("findFork")
	}
}

func isKind(err error, k ErrorKind) bool {
	re, ok := err.(*RuleError)
	return ok && re.Kind == k
}
