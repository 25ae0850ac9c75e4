package descriptor

// Tapscript has no standardness limit on the witness, so what bounds a
// miniscript there is the 1,000-element stack limit during execution.
// This file follows each satisfaction's stack through the script: a
// stackTrace stands for a set of executions, with (over the set) the most
// the stack shrinks from start to end (net) and the most it is above its
// end size at any point (peak). Sequencing adds nets; choosing between
// branches takes the larger of each.

// stackTrace is a set of executions; the zero value is the empty set.
type stackTrace struct {
	ok        bool
	net, peak int
}

func mkTrace(net, peak int) stackTrace { return stackTrace{ok: true, net: net, peak: peak} }

// then is a followed by b.
func (a stackTrace) then(b stackTrace) stackTrace {
	if !a.ok || !b.ok {
		return stackTrace{}
	}
	return mkTrace(a.net+b.net, max(b.peak, b.net+a.peak))
}

// or is either a or b.
func (a stackTrace) or(b stackTrace) stackTrace {
	switch {
	case !a.ok:
		return b
	case !b.ok:
		return a
	}
	return mkTrace(max(a.net, b.net), max(a.peak, b.peak))
}

// The stack effect of single opcodes: a push grows the stack by one; IF,
// VERIFY, CHECKSIG, EQUAL and binary operators consume one more than they
// leave; EQUALVERIFY two; DUP and SIZE add one.
var (
	stPush   = mkTrace(-1, 0)
	stNop    = mkTrace(0, 0)
	stPop1   = mkTrace(1, 1)
	stPop2   = mkTrace(2, 2)
	stDupIfT = mkTrace(-1, 0) // OP_IFDUP of a non-zero value
)

// computeTrace is the stack traces of n's satisfaction and
// dissatisfaction.
func (n *msNode) computeTrace() (sat, dsat stackTrace) {
	var x, y, z msNodeTraces
	if len(n.subs) > 0 {
		x = n.subs[0].tr
	}
	if len(n.subs) > 1 {
		y = n.subs[1].tr
	}
	if len(n.subs) > 2 {
		z = n.subs[2].tr
	}
	switch n.frag {
	case msJust0:
		return stackTrace{}, stPush
	case msJust1:
		return stPush, stackTrace{}
	case msPkK:
		return stPush, stPush
	case msPkH:
		// DUP HASH160 <h> EQUALVERIFY
		t := stPush.then(stNop).then(stPush).then(stPop2)
		return t, t
	case msOlder, msAfter:
		return stPush.then(stNop), stackTrace{}
	case msSha256, msHash256, msRipemd160, msHash160:
		// SIZE <32> EQUALVERIFY HASH <h> EQUAL
		t := stPush.then(stPush).then(stPop2).then(stNop).then(stPush).then(stPop1)
		return t, stackTrace{}
	case msMulti:
		// P2WSH only: no trace needed.
		return stackTrace{}, stackTrace{}
	case msMultiA:
		// One witness element per key; the first key's push is the
		// highest point.
		nk := len(n.keys)
		return mkTrace(nk-1, nk), mkTrace(nk-1, nk)
	case msWrapA, msWrapS:
		// The alt stack counts toward the limit too, so moving an
		// element there changes nothing; SWAP neither.
		return x.sat, x.dsat
	case msWrapC:
		return x.sat.then(stPop1), x.dsat.then(stPop1)
	case msWrapD:
		head := stPush.then(stPop1)
		return head.then(x.sat), head
	case msWrapV:
		return x.sat.then(stPop1), stackTrace{}
	case msWrapJ:
		head := stPush.then(stNop).then(stPop1)
		return head.then(x.sat), head
	case msWrapN:
		return x.sat.then(stNop), x.dsat.then(stNop)
	case msAndV:
		return x.sat.then(y.sat), x.dsat.then(y.dsat)
	case msAndB:
		return x.sat.then(y.sat).then(stPop1), x.dsat.then(y.dsat).then(stPop1)
	case msOrB:
		return x.dsat.then(y.sat).or(x.sat.then(y.dsat)).then(stPop1), x.dsat.then(y.dsat).then(stPop1)
	case msOrC:
		return x.sat.then(stPop1).or(x.dsat.then(stPop1).then(y.sat)), stackTrace{}
	case msOrD:
		sat := x.sat.then(stDupIfT).then(stPop1).or(x.dsat.then(stNop).then(stPop1).then(y.sat))
		return sat, x.dsat.then(stNop).then(stPop1).then(y.dsat)
	case msOrI:
		return stPop1.then(x.sat).or(stPop1.then(y.sat)), stPop1.then(x.dsat).or(stPop1.then(y.dsat))
	case msAndOr:
		sat := x.sat.then(stPop1).then(y.sat).or(x.dsat.then(stPop1).then(z.sat))
		return sat, x.dsat.then(stPop1).then(z.dsat)
	case msThresh:
		// sats[j]: exactly j of the subs so far satisfied.
		sats := []stackTrace{n.subs[0].tr.dsat, n.subs[0].tr.sat}
		for _, s := range n.subs[1:] {
			next := make([]stackTrace, len(sats)+1)
			for j := range next {
				if j < len(sats) {
					next[j] = sats[j].then(s.tr.dsat).then(stPop1)
				}
				if j > 0 {
					next[j] = next[j].or(sats[j-1].then(s.tr.sat).then(stPop1))
				}
			}
			sats = next
		}
		end := stPush.then(stPop1)
		if int(n.k) >= len(sats) {
			return stackTrace{}, sats[0].then(end)
		}
		return sats[n.k].then(end), sats[0].then(end)
	}
	return stackTrace{}, stackTrace{}
}

// msNodeTraces holds a node's two traces.
type msNodeTraces struct{ sat, dsat stackTrace }

// execStack is the most elements the stack holds while a satisfaction
// runs (Core's GetExecStackSize), or -1 when there is none.
func (n *msNode) execStack() int {
	if !n.tr.sat.ok {
		return -1
	}
	if n.typ&(tB|tK|tW) != 0 {
		return n.tr.sat.peak + 1
	}
	return n.tr.sat.peak
}
