package descriptor

import (
	"encoding/hex"
	"errors"
	"strings"
)

// msParser reads one miniscript expression. Its keys are collected in
// order of appearance, each with its multipath values.
type msParser struct {
	p      *parser
	src    string
	tap    bool    // tapscript, in a tr() leaf
	match  []int32 // see matchParens
	keys   [][]*keyExpr
	nodes  int
	keyErr error // a key expression failed: Core reports its error
}

// parseMiniscript parses e as miniscript: tapscript in a tr() leaf, P2WSH
// elsewhere (only wsh() accepts it). ok is false when e is
// not miniscript at all (the caller reports its own error); err is set
// when it is miniscript but a key is malformed or the expression is not
// sane, with Core's message.
func (p *parser) parseMiniscript(e string, ctx context) ([]*node, bool, error) {
	mp := &msParser{p: p, src: e, tap: ctx == ctxP2TR}
	if !mp.matchParens() {
		return nil, false, nil
	}
	ms := mp.parse(span{0, len(e)}, 0)
	if mp.keyErr != nil {
		return nil, true, mp.keyErr
	}
	// Core stops parsing once the script grows past the size limit, as
	// if the text were no miniscript.
	if ms == nil || ms.size > ms.maxSize() {
		return nil, false, nil
	}
	if ctx != ctxP2WSH && ctx != ctxP2TR {
		return nil, true, errors.New("Miniscript expressions can only be used in wsh or tr.")
	}
	lens := make([]int, len(mp.keys))
	for i, ks := range mp.keys {
		lens[i] = len(ks)
	}
	n, ok := lockstep(lens)
	if !ok {
		return nil, true, errors.New("Miniscript: Multipath derivation paths have mismatched lengths")
	}
	out := make([]*node, n)
	for i := range out {
		nd := &node{kind: kindMiniscript, ms: ms, keys: make([]*keyExpr, len(mp.keys))}
		for j, ks := range mp.keys {
			nd.keys[j] = pick(ks, i)
		}
		out[i] = nd
	}
	if err := out[0].msSanity(); err != nil {
		return nil, true, err
	}
	return out, true, nil
}

// msKeyIDs identifies the keys of a miniscript node for the duplicate
// check the way Core compares them: by the public key at index 0 (its
// x coordinate in tapscript).
func (n *node) msKeyIDs() []string {
	ids := make([]string, len(n.keys))
	for i, k := range n.keys {
		if pub, _, err := k.pubKey(0); err == nil {
			if n.ms.tap {
				pub = pub[1:33]
			}
			ids[i] = string(pub)
		} else {
			var b strings.Builder
			k.write(&b, MainNet, false)
			ids[i] = b.String()
		}
	}
	return ids
}

// msString is the public text of the miniscript node m, whose keys are
// n's.
func (n *node) msString(m *msNode, net *Network) string {
	var b strings.Builder
	m.write(&b, false, func(i int) string {
		var kb strings.Builder
		n.keys[i].write(&kb, net, false)
		return kb.String()
	})
	return b.String()
}

// msSanity is Core's check of a parsed miniscript: sane (valid at the top,
// non-malleable, needing a signature, no timelock mix, no duplicate key,
// within the resource limits) and satisfiable, with Core's messages.
func (n *node) msSanity() error {
	ids := n.msKeyIDs()
	insane := n.ms.findInsane(ids)
	top := n.ms
	sane := insane == nil && top.validTop() && top.typ.has(ts)
	if sane && top.satisfiable() {
		return nil
	}
	if insane == nil {
		insane = top
	}
	msg := n.msString(insane, MainNet)
	switch {
	case !insane.valid():
		msg += " is invalid"
	case !sane:
		msg += " is not sane"
		switch {
		case !insane.typ.has(tm):
			msg += ": malleable witnesses exist"
		case insane == top && !insane.typ.has(ts):
			msg += ": witnesses without signature exist"
		case !insane.typ.has(tk):
			msg += ": contains mixes of timelocks expressed in blocks and seconds"
		case insane.hasDupKeys(ids):
			msg += ": contains duplicate public keys"
		case !insane.validSatisfactions():
			msg += ": needs witnesses that may exceed resource limits"
		}
	default:
		msg += " is not satisfiable"
	}
	return errors.New(msg)
}

// keyDups finds repeated keys below each node in one pass: a walk lists
// the key uses children first, so each subtree's uses are a contiguous
// run, and a subtree repeats a key exactly when some use in its run has
// an earlier use of the same key inside the run. It returns, per node,
// whether its subtree repeats a key.
func (m *msNode) keyDups(ids []string) map[*msNode]bool {
	last := map[string]int{}
	dups := map[*msNode]bool{}
	pos := 0
	// visit returns the start of x's run and the latest earlier use of
	// any key used in it.
	var visit func(x *msNode) (start, prev int)
	visit = func(x *msNode) (int, int) {
		start, prev := pos, -1
		for _, s := range x.subs {
			_, p := visit(s)
			prev = max(prev, p)
		}
		for _, k := range x.keys {
			if l, ok := last[ids[k]]; ok {
				prev = max(prev, l)
			}
			last[ids[k]] = pos
			pos++
		}
		dups[x] = prev >= start
		return start, prev
	}
	visit(m)
	return dups
}

// hasDupKeys reports whether a key appears twice below m.
func (m *msNode) hasDupKeys(ids []string) bool { return m.keyDups(ids)[m] }

// findInsane is Core's FindInsaneSub: the first node, children first,
// that is not a sane subexpression, a duplicate key below it included.
func (m *msNode) findInsane(ids []string) *msNode {
	dups := m.keyDups(ids)
	var visit func(x *msNode) *msNode
	visit = func(x *msNode) *msNode {
		for _, s := range x.subs {
			if f := visit(s); f != nil {
				return f
			}
		}
		if !x.valid() || !x.saneSub() || dups[x] {
			return x
		}
		return nil
	}
	return visit(m)
}

// span is a part of the miniscript text, [lo, hi).
type span struct{ lo, hi int }

// matchParens records, for each '(' in src, the index of its ')', so
// that arguments split in time proportional to their own level rather
// than to everything nested in them: deep nesting then costs no more
// than its length. It reports unbalanced parentheses.
func (mp *msParser) matchParens() bool {
	mp.match = make([]int32, len(mp.src))
	var open []int32
	for i := 0; i < len(mp.src); i++ {
		switch mp.src[i] {
		case '(':
			open = append(open, int32(i))
		case ')':
			if len(open) == 0 {
				return false
			}
			mp.match[open[len(open)-1]] = int32(i)
			open = open[:len(open)-1]
		}
	}
	return len(open) == 0
}

// parse reads one expression spanning all of e, or returns nil.
func (mp *msParser) parse(e span, depth int) *msNode {
	mp.nodes++
	if depth > msMaxDepth || mp.nodes > mp.maxNodes() || mp.keyErr != nil || e.lo >= e.hi {
		return nil
	}
	// Wrappers: lower-case letters before the first ':'.
	var wrappers string
	for i := e.lo + 1; i < e.hi; i++ {
		if c := mp.src[i]; c == ':' {
			wrappers = mp.src[e.lo:i]
			e.lo = i + 1
			break
		} else if c < 'a' || c > 'z' {
			break
		}
	}
	if len(wrappers) > msMaxDepth-depth {
		return nil
	}
	n := mp.fragment(e, depth+len(wrappers))
	if n == nil {
		return nil
	}
	for i := len(wrappers) - 1; i >= 0; i-- {
		mp.nodes++
		switch c := wrappers[i]; c {
		case 'a':
			n = newMS(mp.tap, msWrapA, []*msNode{n}, nil, 0, nil)
		case 's':
			n = newMS(mp.tap, msWrapS, []*msNode{n}, nil, 0, nil)
		case 'c':
			n = newMS(mp.tap, msWrapC, []*msNode{n}, nil, 0, nil)
		case 'd':
			n = newMS(mp.tap, msWrapD, []*msNode{n}, nil, 0, nil)
		case 'v':
			n = newMS(mp.tap, msWrapV, []*msNode{n}, nil, 0, nil)
		case 'j':
			n = newMS(mp.tap, msWrapJ, []*msNode{n}, nil, 0, nil)
		case 'n':
			n = newMS(mp.tap, msWrapN, []*msNode{n}, nil, 0, nil)
		case 't':
			n = newMS(mp.tap, msAndV, []*msNode{n, newMS(mp.tap, msJust1, nil, nil, 0, nil)}, nil, 0, nil)
		case 'u':
			n = newMS(mp.tap, msOrI, []*msNode{n, newMS(mp.tap, msJust0, nil, nil, 0, nil)}, nil, 0, nil)
		case 'l':
			n = newMS(mp.tap, msOrI, []*msNode{newMS(mp.tap, msJust0, nil, nil, 0, nil), n}, nil, 0, nil)
		default:
			return nil
		}
	}
	if mp.nodes > mp.maxNodes() {
		return nil
	}
	return n
}

func (mp *msParser) maxNodes() int {
	if mp.tap {
		return msMaxTapNodes
	}
	return msMaxNodes
}

// args splits the arguments between '(' at open and its ')' at
// top-level commas.
func (mp *msParser) args(open, close int) []span {
	var out []span
	start := open + 1
	for i := start; i < close; i++ {
		switch mp.src[i] {
		case '(':
			i = int(mp.match[i])
		case ',':
			out = append(out, span{start, i})
			start = i + 1
			if len(out) > mp.maxNodes() {
				return nil
			}
		}
	}
	return append(out, span{start, close})
}

// key parses a key argument and returns its index.
func (mp *msParser) key(e span) (int, bool) {
	ctx := ctxP2WSH
	if mp.tap {
		ctx = ctxP2TR
	}
	ks, err := mp.p.parseKey(mp.src[e.lo:e.hi], ctx)
	if err != nil {
		mp.keyErr = err
		return 0, false
	}
	mp.keys = append(mp.keys, ks)
	return len(mp.keys) - 1, true
}

var msHashFrags = map[string]struct {
	frag msFrag
	size int
}{
	"sha256": {msSha256, 32}, "hash256": {msHash256, 32}, "ripemd160": {msRipemd160, 20}, "hash160": {msHash160, 20},
}

var msBinary = map[string]msFrag{
	"and_v": msAndV, "and_b": msAndB, "or_b": msOrB, "or_c": msOrC, "or_d": msOrD, "or_i": msOrI,
}

// isNameChar reports a character of a fragment name.
func isNameChar(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' }

// fragment parses a fragment without wrappers.
func (mp *msParser) fragment(e span, depth int) *msNode {
	switch mp.src[e.lo:e.hi] {
	case "0":
		return newMS(mp.tap, msJust0, nil, nil, 0, nil)
	case "1":
		return newMS(mp.tap, msJust1, nil, nil, 0, nil)
	}
	open := e.lo
	for open < e.hi && isNameChar(mp.src[open]) {
		open++
	}
	if open == e.lo || open >= e.hi || mp.src[open] != '(' || int(mp.match[open]) != e.hi-1 {
		return nil
	}
	name := mp.src[e.lo:open]
	args := mp.args(open, e.hi-1)
	if args == nil {
		return nil
	}
	arg := func(i int) string { return mp.src[args[i].lo:args[i].hi] }
	one := len(args) == 1
	switch name {
	case "pk", "pkh", "pk_k", "pk_h":
		if !one {
			return nil
		}
		k, ok := mp.key(args[0])
		if !ok {
			return nil
		}
		frag := msPkK
		if name == "pkh" || name == "pk_h" {
			frag = msPkH
		}
		n := newMS(mp.tap, frag, nil, []int{k}, 0, nil)
		if name == "pk" || name == "pkh" {
			mp.nodes++
			n = newMS(mp.tap, msWrapC, []*msNode{n}, nil, 0, nil)
		}
		return n
	case "older", "after":
		v, ok := parseUint32(arg(0))
		if !one || !ok || v < 1 || v >= 1<<31 {
			return nil
		}
		if name == "older" {
			return newMS(mp.tap, msOlder, nil, nil, v, nil)
		}
		return newMS(mp.tap, msAfter, nil, nil, v, nil)
	case "sha256", "hash256", "ripemd160", "hash160":
		h := msHashFrags[name]
		if !one || len(arg(0)) != 2*h.size || !isHex(arg(0)) {
			return nil
		}
		b, _ := hex.DecodeString(arg(0))
		return newMS(mp.tap, h.frag, nil, nil, 0, b)
	case "and_v", "and_b", "or_b", "or_c", "or_d", "or_i":
		if len(args) != 2 {
			return nil
		}
		x := mp.parse(args[0], depth+1)
		if x == nil {
			return nil
		}
		y := mp.parse(args[1], depth+1)
		if y == nil {
			return nil
		}
		return newMS(mp.tap, msBinary[name], []*msNode{x, y}, nil, 0, nil)
	case "andor", "and_n":
		// and_n(X,Y) is andor(X,Y,0).
		if name == "andor" && len(args) != 3 || name == "and_n" && len(args) != 2 {
			return nil
		}
		subs := make([]*msNode, 3)
		for i, a := range args {
			if subs[i] = mp.parse(a, depth+1); subs[i] == nil {
				return nil
			}
		}
		if name == "and_n" {
			mp.nodes++
			subs[2] = newMS(mp.tap, msJust0, nil, nil, 0, nil)
		}
		return newMS(mp.tap, msAndOr, subs, nil, 0, nil)
	case "thresh", "multi", "multi_a":
		k, ok := parseUint32(arg(0))
		rest := args[1:]
		if !ok || k < 1 || int64(k) > int64(len(rest)) {
			return nil
		}
		if name != "thresh" {
			frag, most := msMulti, maxMultisigKeys
			if name == "multi_a" {
				frag, most = msMultiA, maxMultiAKeys
			}
			if len(rest) > most || mp.tap != (frag == msMultiA) {
				return nil
			}
			keys := make([]int, len(rest))
			for i, a := range rest {
				if keys[i], ok = mp.key(a); !ok {
					return nil
				}
			}
			return newMS(mp.tap, frag, nil, keys, k, nil)
		}
		if len(rest) > msMaxThresh {
			return nil
		}
		subs := make([]*msNode, len(rest))
		for i, a := range rest {
			if subs[i] = mp.parse(a, depth+1); subs[i] == nil {
				return nil
			}
		}
		return newMS(mp.tap, msThresh, subs, nil, k, nil)
	}
	return nil
}
