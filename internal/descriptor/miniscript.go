package descriptor

import (
	"strings"

	"github.com/btcnode/btcd/txscript"
)

// Miniscript (BIP379) as Core's descriptors use it inside wsh() and in
// tr() leaves (tapscript): the
// fragments, the type system that decides which compositions are valid,
// and the resource counts behind Core's sanity checks. This file holds the
// node and its properties; miniscript_parse.go reads the text form,
// miniscript_decode.go reads scripts.

// Limits Core applies to miniscript.
const (
	// msMaxScriptSize is MAX_STANDARD_P2WSH_SCRIPT_SIZE.
	msMaxScriptSize = 3600
	// msMaxTapScriptSize is Core's tapscript bound: what leaves room in
	// a standard transaction (400,000 weight) for a 2,000 weight body
	// and the largest witness (1,000 elements of 65 bytes and a
	// 128-deep control block), less its compact size.
	msMaxTapScriptSize = 327860
	// msMaxOps is MAX_OPS_PER_SCRIPT (P2WSH only).
	msMaxOps = 201
	// msMaxStackItems is MAX_STANDARD_P2WSH_STACK_ITEMS, the witness
	// elements a spend may have besides the script.
	msMaxStackItems = 100
	// msMaxTapStack is MAX_STACK_SIZE, tapscript's stack limit.
	msMaxTapStack = 1000
	// msMaxNodes and msMaxTapNodes bound the nodes one expression may
	// have: every node adds at least half a byte of script, so no valid
	// P2WSH miniscript comes near the first; the second keeps hostile
	// tapscript input cheap, far above any real policy.
	msMaxNodes    = 4 * msMaxScriptSize
	msMaxTapNodes = 1 << 16
	// msMaxDepth bounds nesting, so that the recursive walks stay
	// bounded: every level adds at least a byte of script.
	msMaxDepth = msMaxScriptSize + 1
	// msMaxThresh bounds thresh()'s subs, whose counts cost their
	// number times the threshold: every sub with its OP_ADD takes two
	// bytes, so no more fit a P2WSH script.
	msMaxThresh = msMaxScriptSize/2 + 1
	// msLocktimeThreshold is LOCKTIME_THRESHOLD: after() values from it
	// on are times, below it heights.
	msLocktimeThreshold = 500000000
	// msSequenceTypeFlag is SEQUENCE_LOCKTIME_TYPE_FLAG: older() values
	// with it set are times.
	msSequenceTypeFlag = 1 << 22
)

// msFrag is a miniscript fragment.
type msFrag uint8

const (
	msJust0 msFrag = iota
	msJust1
	msPkK
	msPkH
	msOlder
	msAfter
	msSha256
	msHash256
	msRipemd160
	msHash160
	msWrapA
	msWrapS
	msWrapC
	msWrapD
	msWrapV
	msWrapJ
	msWrapN
	msAndV
	msAndB
	msOrB
	msOrC
	msOrD
	msOrI
	msAndOr
	msThresh
	msMulti
	msMultiA
)

var msFragNames = [...]string{
	msJust0: "0", msJust1: "1", msPkK: "pk_k", msPkH: "pk_h", msOlder: "older", msAfter: "after",
	msSha256: "sha256", msHash256: "hash256", msRipemd160: "ripemd160", msHash160: "hash160",
	msAndV: "and_v", msAndB: "and_b", msOrB: "or_b", msOrC: "or_c", msOrD: "or_d", msOrI: "or_i",
	msAndOr: "andor", msThresh: "thresh", msMulti: "multi", msMultiA: "multi_a",
}

// msType is a set of miniscript type properties: the basic types B, V, K,
// W, the modifiers z o n d u, the malleability properties e f s m, x
// (the last opcode has no VERIFY form) and the timelock kinds g h i j with
// k (no mixing of heights and times).
type msType uint32

const msTypeChars = "BVKWzondufesmxghijk"

// mst builds a type from its letters.
func mst(s string) msType {
	var t msType
	for i := 0; i < len(s); i++ {
		t |= 1 << strings.IndexByte(msTypeChars, s[i])
	}
	return t
}

// has reports whether t has every property of u.
func (t msType) has(u msType) bool { return t&u == u }

// iff returns t when cond holds, else no properties.
func (t msType) iff(cond bool) msType {
	if cond {
		return t
	}
	return 0
}

func (t msType) String() string {
	var b strings.Builder
	for i := 0; i < len(msTypeChars); i++ {
		if t&(1<<i) != 0 {
			b.WriteByte(msTypeChars[i])
		}
	}
	return b.String()
}

// Frequently used type sets.
var (
	tB, tV, tK, tW = mst("B"), mst("V"), mst("K"), mst("W")
	tz, to, tn     = mst("z"), mst("o"), mst("n")
	td, tu, te, tf = mst("d"), mst("u"), mst("e"), mst("f")
	ts, tm, tx, tk = mst("s"), mst("m"), mst("x"), mst("k")
	tg, th, ti, tj = mst("g"), mst("h"), mst("i"), mst("j")
	tTimelocks     = mst("ghij")
)

// count is a resource count that may be unavailable (no satisfaction or
// dissatisfaction of that kind exists); it is stored plus one so that
// the zero value means unavailable.
type count int

func cnt(v int) count { return count(v + 1) }

func (c count) ok() bool { return c > 0 }
func (c count) val() int { return int(c) - 1 }

// plus is the sum of two counts, unavailable if either is.
func (c count) plus(d count) count {
	if !c.ok() || !d.ok() {
		return 0
	}
	return cnt(c.val() + d.val())
}

// or is the larger of two counts, ignoring an unavailable one.
func (c count) or(d count) count { return max(c, d) }

// msCounts holds a node's resource counts: non-push opcodes (static, then
// the extra executed by a satisfaction and a dissatisfaction) and witness
// stack elements of a satisfaction and a dissatisfaction.
type msCounts struct {
	ops           int
	opsSat, opsDs count
	stSat, stDs   count
}

// msNode is a miniscript expression. Keys are indices into the owning
// descriptor node's keys, so the expansions of a multipath descriptor
// share one tree.
type msNode struct {
	tap  bool // tapscript: x-only keys, multi_a, no opcode limit
	frag msFrag
	subs []*msNode
	keys []int
	k    uint32 // threshold, or the timelock value
	hash []byte
	typ  msType
	c    msCounts
	tr   msNodeTraces // stack traces, for tapscript's limit
	size int          // script bytes
}

// newMS builds a node and computes its type, counts and script size.
func newMS(tap bool, frag msFrag, subs []*msNode, keys []int, k uint32, hash []byte) *msNode {
	n := &msNode{tap: tap, frag: frag, subs: subs, keys: keys, k: k, hash: hash}
	n.typ = n.computeType()
	n.c = n.computeCounts()
	if tap {
		// Thresh's traces cost its subs times its threshold, like its
		// counts; only tapscript needs them.
		n.tr.sat, n.tr.dsat = n.computeTrace()
	}
	n.size = n.computeSize()
	return n
}

// timelockMix reports whether two types hold timelocks of both kinds
// (heights and times) of one lock, which no single spend can satisfy.
func timelockMix(x, y msType) bool {
	return x.has(tg) && y.has(th) || x.has(th) && y.has(tg) || x.has(ti) && y.has(tj) || x.has(tj) && y.has(ti)
}

// computeType is BIP379's type rules.
func (n *msNode) computeType() msType {
	var x, y, z msType
	if len(n.subs) > 0 {
		x = n.subs[0].typ
	}
	if len(n.subs) > 1 {
		y = n.subs[1].typ
	}
	if len(n.subs) > 2 {
		z = n.subs[2].typ
	}
	var t msType
	switch n.frag {
	case msJust0:
		t = mst("Bzudemsxk")
	case msJust1:
		t = mst("Bzufmxk")
	case msPkK:
		t = mst("Konudemsxk")
	case msPkH:
		t = mst("Knudemsxk")
	case msOlder:
		t = tg.iff(n.k&msSequenceTypeFlag != 0) | th.iff(n.k&msSequenceTypeFlag == 0) | mst("Bzfmxk")
	case msAfter:
		t = ti.iff(n.k >= msLocktimeThreshold) | tj.iff(n.k < msLocktimeThreshold) | mst("Bzfmxk")
	case msSha256, msHash256, msRipemd160, msHash160:
		t = mst("Bonudmk")
	case msMulti:
		t = mst("Bnudemsk").iff(!n.tap)
	case msMultiA:
		t = mst("Budemsk").iff(n.tap)
	case msWrapA:
		t = tW.iff(x.has(tB)) | x&mst("ghijk") | x&mst("udfems") | tx
	case msWrapS:
		t = tW.iff(x.has(mst("Bo"))) | x&mst("ghijk") | x&mst("udfemsx")
	case msWrapC:
		t = tB.iff(x.has(tK)) | x&mst("ghijk") | x&mst("ondfem") | mst("us")
	case msWrapD:
		// d: is u only in tapscript: MINIMALIF is only policy in P2WSH.
		t = tB.iff(x.has(mst("Vz"))) | to.iff(x.has(tz)) | te.iff(x.has(tf)) | x&mst("ghijk") | x&mst("ms") | mst("ndx") | tu.iff(n.tap)
	case msWrapV:
		t = tV.iff(x.has(tB)) | x&mst("ghijk") | x&mst("zonms") | mst("fx")
	case msWrapJ:
		t = tB.iff(x.has(mst("Bn"))) | te.iff(x.has(tf)) | x&mst("ghijk") | x&mst("oums") | mst("ndx")
	case msWrapN:
		t = x&mst("ghijk") | x&mst("Bzondfems") | mst("ux")
	case msAndV:
		t = (y & mst("KVB")).iff(x.has(tV)) |
			x&tn | (y & tn).iff(x.has(tz)) |
			((x | y) & to).iff((x|y)&tz != 0) |
			x&y&mst("dmz") |
			(x|y)&ts |
			tf.iff(y.has(tf) || x.has(ts)) |
			y&mst("ux") |
			(x|y)&tTimelocks |
			tk.iff((x&y).has(tk) && !timelockMix(x, y))
	case msAndB:
		t = (x & tB).iff(y.has(tW)) |
			((x | y) & to).iff((x|y)&tz != 0) |
			x&tn | (y & tn).iff(x.has(tz)) |
			(x & y & te).iff((x & y).has(ts)) |
			x&y&mst("dzm") |
			tf.iff((x&y).has(tf) || x.has(mst("sf")) || y.has(mst("sf"))) |
			(x|y)&ts |
			mst("ux") |
			(x|y)&tTimelocks |
			tk.iff((x&y).has(tk) && !timelockMix(x, y))
	case msOrB:
		t = tB.iff(x.has(mst("Bd")) && y.has(mst("Wd"))) |
			((x | y) & to).iff((x|y)&tz != 0) |
			(x & y & tm).iff((x|y)&ts != 0 && (x&y).has(te)) |
			x&y&mst("zse") |
			mst("dux") |
			(x|y)&tTimelocks |
			x&y&tk
	case msOrD:
		t = (y & tB).iff(x.has(mst("Bdu"))) |
			(x & to).iff(y.has(tz)) |
			(x & y & tm).iff(x.has(te) && (x|y)&ts != 0) |
			x&y&mst("zes") |
			y&mst("ufd") |
			tx |
			(x|y)&tTimelocks |
			x&y&tk
	case msOrC:
		t = (y & tV).iff(x.has(mst("Bdu"))) |
			(x & to).iff(y.has(tz)) |
			(x & y & tm).iff(x.has(te) && (x|y)&ts != 0) |
			x&y&mst("zs") |
			mst("fx") |
			(x|y)&tTimelocks |
			x&y&tk
	case msOrI:
		t = x&y&mst("VBKufs") |
			to.iff((x & y).has(tz)) |
			((x | y) & te).iff((x|y)&tf != 0) |
			(x & y & tm).iff((x|y)&ts != 0) |
			(x|y)&td |
			tx |
			(x|y)&tTimelocks |
			x&y&tk
	case msAndOr:
		t = (y & z & mst("BKV")).iff(x.has(mst("Bdu"))) |
			x&y&z&tz |
			((x | (y & z)) & to).iff((x|(y&z))&tz != 0) |
			y&z&tu |
			(z & tf).iff(x.has(ts) || y.has(tf)) |
			z&td |
			(z & te).iff(x.has(ts) || y.has(tf)) |
			(x & y & z & tm).iff(x.has(te) && (x|y|z)&ts != 0) |
			z&(x|y)&ts |
			tx |
			(x|y|z)&tTimelocks |
			tk.iff((x&y&z).has(tk) && !timelockMix(x, y))
	case msThresh:
		allE, allM := true, true
		args, numS := 0, 0
		acc := tk
		for i, s := range n.subs {
			st := s.typ
			want := mst("Wdu")
			if i == 0 {
				want = mst("Bdu")
			}
			if !st.has(want) {
				return 0
			}
			allE = allE && st.has(te)
			allM = allM && st.has(tm)
			if st.has(ts) {
				numS++
			}
			switch {
			case st.has(tz):
			case st.has(to):
				args++
			default:
				args += 2
			}
			acc = (acc|st)&tTimelocks | tk.iff((acc&st).has(tk) && (n.k <= 1 || !timelockMix(acc, st)))
		}
		ns, k := len(n.subs), int(n.k)
		t = mst("Bdu") | tz.iff(args == 0) | to.iff(args == 1) |
			te.iff(allE && numS == ns) |
			tm.iff(allE && allM && numS >= ns-k) |
			ts.iff(numS >= ns-k+1) |
			acc
	}
	return sanitizeType(t)
}

// sanitizeType drops a type without exactly one basic type: the node is
// invalid.
func sanitizeType(t msType) msType {
	basics := 0
	for _, b := range []msType{tB, tV, tK, tW} {
		if t.has(b) {
			basics++
		}
	}
	if basics != 1 {
		return 0
	}
	return t
}

// computeCounts is Core's opcode and stack element accounting.
func (n *msNode) computeCounts() msCounts {
	var x, y, z msCounts
	if len(n.subs) > 0 {
		x = n.subs[0].c
	}
	if len(n.subs) > 1 {
		y = n.subs[1].c
	}
	if len(n.subs) > 2 {
		z = n.subs[2].c
	}
	c0 := cnt(0)
	switch n.frag {
	case msJust0:
		return msCounts{opsDs: c0, stDs: c0}
	case msJust1:
		return msCounts{opsSat: c0, stSat: c0}
	case msPkK:
		return msCounts{opsSat: c0, opsDs: c0, stSat: cnt(1), stDs: cnt(1)}
	case msPkH:
		return msCounts{ops: 3, opsSat: c0, opsDs: c0, stSat: cnt(2), stDs: cnt(2)}
	case msOlder, msAfter:
		return msCounts{ops: 1, opsSat: c0, stSat: c0}
	case msSha256, msHash256, msRipemd160, msHash160:
		return msCounts{ops: 4, opsSat: c0, stSat: cnt(1)}
	case msMulti:
		nk := len(n.keys)
		return msCounts{ops: 1, opsSat: cnt(nk), opsDs: cnt(nk), stSat: cnt(int(n.k) + 1), stDs: cnt(int(n.k) + 1)}
	case msMultiA:
		nk := len(n.keys)
		return msCounts{ops: nk + 1, opsSat: c0, opsDs: c0, stSat: cnt(nk), stDs: cnt(nk)}
	case msWrapA:
		return msCounts{ops: 2 + x.ops, opsSat: x.opsSat, opsDs: x.opsDs, stSat: x.stSat, stDs: x.stDs}
	case msWrapS, msWrapC, msWrapN:
		return msCounts{ops: 1 + x.ops, opsSat: x.opsSat, opsDs: x.opsDs, stSat: x.stSat, stDs: x.stDs}
	case msWrapD:
		return msCounts{ops: 3 + x.ops, opsSat: x.opsSat, opsDs: c0, stSat: x.stSat.plus(cnt(1)), stDs: cnt(1)}
	case msWrapJ:
		return msCounts{ops: 4 + x.ops, opsSat: x.opsSat, opsDs: c0, stSat: x.stSat, stDs: cnt(1)}
	case msWrapV:
		ops := x.ops
		if n.subs[0].typ.has(tx) {
			ops++
		}
		return msCounts{ops: ops, opsSat: x.opsSat, stSat: x.stSat}
	case msAndV:
		return msCounts{ops: x.ops + y.ops, opsSat: x.opsSat.plus(y.opsSat), stSat: x.stSat.plus(y.stSat)}
	case msAndB:
		return msCounts{ops: 1 + x.ops + y.ops, opsSat: x.opsSat.plus(y.opsSat), opsDs: x.opsDs.plus(y.opsDs),
			stSat: x.stSat.plus(y.stSat), stDs: x.stDs.plus(y.stDs)}
	case msOrB:
		return msCounts{ops: 1 + x.ops + y.ops,
			opsSat: x.opsSat.plus(y.opsDs).or(y.opsSat.plus(x.opsDs)), opsDs: x.opsDs.plus(y.opsDs),
			stSat: x.stSat.plus(y.stDs).or(y.stSat.plus(x.stDs)), stDs: x.stDs.plus(y.stDs)}
	case msOrD:
		return msCounts{ops: 3 + x.ops + y.ops,
			opsSat: x.opsSat.or(y.opsSat.plus(x.opsDs)), opsDs: x.opsDs.plus(y.opsDs),
			stSat: x.stSat.or(y.stSat.plus(x.stDs)), stDs: x.stDs.plus(y.stDs)}
	case msOrC:
		return msCounts{ops: 2 + x.ops + y.ops,
			opsSat: x.opsSat.or(y.opsSat.plus(x.opsDs)), stSat: x.stSat.or(y.stSat.plus(x.stDs))}
	case msOrI:
		one := cnt(1)
		return msCounts{ops: 3 + x.ops + y.ops, opsSat: x.opsSat.or(y.opsSat), opsDs: x.opsDs.or(y.opsDs),
			stSat: x.stSat.plus(one).or(y.stSat.plus(one)), stDs: x.stDs.plus(one).or(y.stDs.plus(one))}
	case msAndOr:
		return msCounts{ops: 3 + x.ops + y.ops + z.ops,
			opsSat: y.opsSat.plus(x.opsSat).or(z.opsSat.plus(x.opsDs)), opsDs: x.opsDs.plus(z.opsDs),
			stSat: y.stSat.plus(x.stSat).or(z.stSat.plus(x.stDs)), stDs: x.stDs.plus(z.stDs)}
	case msThresh:
		// sats[j] is the cost of satisfying exactly j of the subs seen
		// so far and dissatisfying the rest.
		ops := 0
		opsSats, stSats := []count{c0}, []count{c0}
		for _, s := range n.subs {
			ops += s.c.ops + 1
			opsSats = threshStep(opsSats, s.c.opsSat, s.c.opsDs)
			stSats = threshStep(stSats, s.c.stSat, s.c.stDs)
		}
		k := int(n.k)
		if k >= len(opsSats) {
			return msCounts{ops: ops}
		}
		return msCounts{ops: ops, opsSat: opsSats[k], opsDs: opsSats[0], stSat: stSats[k], stDs: stSats[0]}
	}
	return msCounts{}
}

func threshStep(sats []count, sat, dsat count) []count {
	next := make([]count, len(sats)+1)
	next[0] = sats[0].plus(dsat)
	for j := 1; j < len(sats); j++ {
		next[j] = sats[j].plus(dsat).or(sats[j-1].plus(sat))
	}
	next[len(sats)] = sats[len(sats)-1].plus(sat)
	return next
}

// numSize is the size of a minimal script number push.
func numSize(v int64) int {
	b, _ := txscript.NewScriptBuilder(8).AddInt64(v).Script()
	return len(b)
}

// computeSize is the script size (keys of 33 bytes, 32 in tapscript).
func (n *msNode) computeSize() int {
	sub := 0
	for _, s := range n.subs {
		sub += s.size
	}
	switch n.frag {
	case msJust0, msJust1:
		return 1
	case msPkK:
		if n.tap {
			return 33
		}
		return 34
	case msPkH:
		return 24
	case msOlder, msAfter:
		return numSize(int64(n.k)) + 1
	case msSha256, msHash256:
		return 39
	case msRipemd160, msHash160:
		return 27
	case msMulti:
		return numSize(int64(n.k)) + 34*len(n.keys) + numSize(int64(len(n.keys))) + 1
	case msMultiA:
		return 34*len(n.keys) + numSize(int64(n.k)) + 1
	case msWrapA, msOrC:
		return sub + 2
	case msWrapS, msWrapC, msWrapN, msAndB, msOrB:
		return sub + 1
	case msWrapD, msOrD, msOrI, msAndOr:
		return sub + 3
	case msWrapJ:
		return sub + 4
	case msWrapV:
		if n.subs[0].typ.has(tx) {
			return sub + 1
		}
		return sub
	case msThresh:
		return sub + len(n.subs) - 1 + numSize(int64(n.k)) + 1
	}
	return sub // and_v
}

// maxSize is the script size limit of n's context.
func (n *msNode) maxSize() int {
	if n.tap {
		return msMaxTapScriptSize
	}
	return msMaxScriptSize
}

// valid is Core's IsValid: well typed and within the script size limit.
func (n *msNode) valid() bool { return n.typ != 0 && n.size <= n.maxSize() }

// validTop is a valid B expression, what a witness script must be.
func (n *msNode) validTop() bool { return n.valid() && n.typ.has(tB) }

// validSatisfactions is Core's ValidSatisfactions: a satisfaction never
// needs more than the opcode or witness stack limits.
// In tapscript, where there is no opcode limit, the bound is the stack
// during execution.
func (n *msNode) validSatisfactions() bool {
	if n.tap {
		return n.execStack() <= msMaxTapStack
	}
	if n.c.opsSat.ok() && n.c.ops+n.c.opsSat.val() > msMaxOps {
		return false
	}
	return !n.c.stSat.ok() || n.c.stSat.val() <= msMaxStackItems
}

// saneSub is Core's IsSaneSubexpression (without the duplicate key check,
// which needs the keys).
func (n *msNode) saneSub() bool {
	return n.validSatisfactions() && n.typ.has(tm) && n.typ.has(tk)
}

// satisfiable reports whether any satisfaction exists.
func (n *msNode) satisfiable() bool { return n.c.stSat.ok() }
