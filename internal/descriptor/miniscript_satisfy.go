package descriptor

// Satisfying miniscript (BIP379): for every node the best satisfaction
// and the best dissatisfaction are built from those of its subs, as the
// fragment table of the specification lists them. Each candidate stack
// records whether it holds a signature and whether a third party could
// change it (a hash lock dissatisfied with arbitrary 32 bytes, an
// overcomplete or non-canonical alternative). Choosing between
// alternatives follows the non-malleable rules: an option without a
// signature beats one with (anyone could swap one for the other), two
// options without signatures make the result malleable, between options
// with signatures a non-malleable one wins, and otherwise the smaller
// witness does (the first on a tie). Like Core's finalizer, only a
// satisfaction that is non-malleable and holds a signature is returned,
// so some satisfiable but malleable scripts are never finalized.

// HashFunc is the hash of a hash-lock fragment.
type HashFunc uint8

// Hash-lock hashes.
const (
	HashSHA256 HashFunc = iota
	HashHash256
	HashRipemd160
	HashHash160
)

// Satisfier supplies what satisfying a miniscript draws on. Keys are in
// their script form: 33-byte compressed keys in P2WSH, 32-byte x-only
// keys in tapscript.
type Satisfier interface {
	// Signature returns a signature by pub valid for the spend, or nil.
	Signature(pub []byte) []byte
	// PubKey returns the key whose HASH160 is h (for pk_h), or nil.
	PubKey(h [20]byte) []byte
	// Preimage returns the 32-byte preimage of hash under fn, or nil.
	Preimage(fn HashFunc, hash []byte) []byte
	// Older reports whether the spend satisfies older(n): its input's
	// sequence as OP_CHECKSEQUENCEVERIFY checks it.
	Older(n uint32) bool
	// After reports whether the spend satisfies after(n): the
	// transaction's lock time as OP_CHECKLOCKTIMEVERIFY checks it.
	After(n uint32) bool
}

// SatisfyScript returns the witness stack (without the script) that
// satisfies script, a P2WSH witness script or (tap) a tapscript leaf,
// when it is miniscript and the satisfier's data allow a non-malleable
// satisfaction with a signature; the smallest such stack is chosen.
func SatisfyScript(script []byte, tap bool, s Satisfier) ([][]byte, bool) {
	d := &msDecoder{tap: tap, prov: NewProvider(), keyByHash: s.PubKey}
	ms, keys := d.decode(script)
	if ms == nil {
		return nil, false
	}
	pubs := make([][]byte, len(keys))
	for i, k := range keys {
		pubs[i] = k.pub
		if tap {
			pubs[i] = k.pub[1:]
		}
	}
	sat := (&msSatisfier{s: s, pubs: pubs}).produce(ms).sat
	if !sat.ok || sat.mall || !sat.sig {
		return nil, false
	}
	return sat.items.flatten(), true
}

// wItems is a stack's elements as a tree whose leaves, left to right,
// are the elements bottom first: joining two stacks is then one node, so
// that the threshold fragments' tables cost their size, not that times
// the stacks' lengths.
type wItems struct {
	below, above *wItems
	elem         []byte
	n            int // elements
}

func join(a, b *wItems) *wItems {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return &wItems{below: a, above: b, n: a.n + b.n}
}

// flatten lists the elements bottom first, without recursion: trees of
// long conjunctions are deep.
func (w *wItems) flatten() [][]byte {
	if w == nil {
		return [][]byte{}
	}
	out := make([][]byte, 0, w.n)
	todo := []*wItems{w}
	for len(todo) > 0 {
		t := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if t.below == nil {
			out = append(out, t.elem)
			continue
		}
		todo = append(todo, t.above, t.below)
	}
	return out
}

// msWitness is one candidate stack: items bottom first, whether it
// exists, holds a signature, is malleable or non-canonical, and its
// serialized size.
type msWitness struct {
	ok, sig, mall, nonCanon bool
	size                    int
	items                   *wItems
}

// msResult is a node's best dissatisfaction and satisfaction.
type msResult struct{ dsat, sat msWitness }

var (
	wInvalid = msWitness{}
	wEmpty   = msWitness{ok: true}
	wZero    = wItem([]byte{})
	wOne     = wItem([]byte{1})
)

// wItem is the stack of one element.
func wItem(b []byte) msWitness {
	return msWitness{ok: true, size: len(b) + varIntLen(len(b)), items: &wItems{elem: b, n: 1}}
}

// wFrom is wItem for data that may be missing (nil).
func wFrom(b []byte) msWitness {
	if b == nil {
		return wInvalid
	}
	return wItem(b)
}

func varIntLen(n int) int {
	switch {
	case n < 0xfd:
		return 1
	case n <= 0xffff:
		return 3
	}
	return 5
}

// then is a with b's items on top.
func (a msWitness) then(b msWitness) msWitness {
	if !a.ok || !b.ok {
		return wInvalid
	}
	return msWitness{
		ok: true, sig: a.sig || b.sig, mall: a.mall || b.mall, nonCanon: a.nonCanon || b.nonCanon,
		size: a.size + b.size, items: join(a.items, b.items),
	}
}

func (a msWitness) withSig() msWitness      { a.sig = true; return a }
func (a msWitness) malleable() msWitness    { a.mall = true; return a }
func (a msWitness) nonCanonical() msWitness { a.nonCanon = true; return a }

// or chooses between two alternatives by the non-malleable rules.
func (a msWitness) or(b msWitness) msWitness {
	switch {
	case !a.ok:
		return b
	case !b.ok:
		return a
	case !a.sig && b.sig:
		return a
	case a.sig && !b.sig:
		return b
	case !a.sig && !b.sig:
		a.mall, b.mall = true, true
	case b.mall && !a.mall:
		return a
	case a.mall && !b.mall:
		return b
	}
	if a.size <= b.size {
		return a
	}
	return b
}

// msSatisfier evaluates a tree with a satisfier; pubs are the tree's
// keys in script form.
type msSatisfier struct {
	s    Satisfier
	pubs [][]byte
}

func (m *msSatisfier) sig(key int) msWitness {
	return wFrom(m.s.Signature(m.pubs[key])).withSig()
}

func (m *msSatisfier) produce(n *msNode) msResult {
	subs := make([]msResult, len(n.subs))
	for i, c := range n.subs {
		subs[i] = m.produce(c)
	}
	switch n.frag {
	case msJust0:
		return msResult{wEmpty, wInvalid}
	case msJust1:
		return msResult{wInvalid, wEmpty}
	case msPkK:
		return msResult{wZero, m.sig(n.keys[0])}
	case msPkH:
		key := wItem(m.pubs[n.keys[0]])
		return msResult{wZero.then(key), m.sig(n.keys[0]).then(key)}
	case msOlder:
		if m.s.Older(n.k) {
			return msResult{wInvalid, wEmpty}
		}
		return msResult{wInvalid, wInvalid}
	case msAfter:
		if m.s.After(n.k) {
			return msResult{wInvalid, wEmpty}
		}
		return msResult{wInvalid, wInvalid}
	case msSha256, msHash256, msRipemd160, msHash160:
		fn := [...]HashFunc{msSha256: HashSHA256, msHash256: HashHash256, msRipemd160: HashRipemd160, msHash160: HashHash160}[n.frag]
		pre := m.s.Preimage(fn, n.hash)
		if len(pre) != 32 {
			pre = nil
		}
		// Any 32 bytes but the preimage dissatisfy: malleable.
		return msResult{wItem(make([]byte, 32)).malleable(), wFrom(pre)}
	case msMulti:
		// best[j]: the best stack with j signatures among the keys seen,
		// over CHECKMULTISIG's extra element; keys go in script order.
		best := []msWitness{wZero}
		for _, k := range n.keys {
			best = kStep(best, m.sig(k), wEmpty, int(n.k))
		}
		dsat := wZero
		for range n.k {
			dsat = dsat.then(wZero)
		}
		return msResult{dsat, best[n.k]}
	case msMultiA:
		// The first key's signature is checked first, so it goes on
		// top: keys are taken last first, each without a signature
		// costing an empty element.
		best := []msWitness{wEmpty}
		for i := len(n.keys) - 1; i >= 0; i-- {
			best = kStep(best, m.sig(n.keys[i]), wZero, int(n.k))
		}
		return msResult{best[0], best[n.k]}
	case msThresh:
		// Subs are taken last first, as the first executes on top.
		best := []msWitness{wEmpty}
		for i := len(subs) - 1; i >= 0; i-- {
			best = kStep(best, subs[i].sat, subs[i].dsat, len(subs))
		}
		// Dissatisfying with some subs satisfied is overcomplete, so
		// never preferred to dissatisfying all.
		dsat := wInvalid
		for j, w := range best {
			if j == int(n.k) {
				continue
			}
			if j != 0 {
				w = w.malleable().nonCanonical()
			}
			dsat = dsat.or(w)
		}
		return msResult{dsat, best[n.k]}
	case msWrapA, msWrapS, msWrapC, msWrapN:
		return subs[0]
	case msWrapD:
		return msResult{wZero, subs[0].sat.then(wOne)}
	case msWrapV:
		return msResult{wInvalid, subs[0].sat}
	case msWrapJ:
		// A dissatisfaction of X with a nonzero top would be a second
		// one; assume it exists whenever X can be dissatisfied without
		// a signature.
		x := subs[0]
		d := wZero
		if x.dsat.ok && !x.dsat.sig {
			d = d.malleable()
		}
		return msResult{d, x.sat}
	case msAndV:
		x, y := subs[0], subs[1]
		return msResult{y.dsat.then(x.sat).nonCanonical(), y.sat.then(x.sat)}
	case msAndB:
		x, y := subs[0], subs[1]
		dsat := y.dsat.then(x.dsat).
			or(y.sat.then(x.dsat).malleable().nonCanonical()).
			or(y.dsat.then(x.sat).malleable().nonCanonical())
		return msResult{dsat, y.sat.then(x.sat)}
	case msOrB:
		x, z := subs[0], subs[1]
		sat := z.dsat.then(x.sat).or(z.sat.then(x.dsat)).or(z.sat.then(x.sat).malleable().nonCanonical())
		return msResult{z.dsat.then(x.dsat), sat}
	case msOrC:
		x, z := subs[0], subs[1]
		return msResult{wInvalid, x.sat.or(z.sat.then(x.dsat))}
	case msOrD:
		x, z := subs[0], subs[1]
		return msResult{z.dsat.then(x.dsat), x.sat.or(z.sat.then(x.dsat))}
	case msOrI:
		x, z := subs[0], subs[1]
		return msResult{x.dsat.then(wOne).or(z.dsat.then(wZero)), x.sat.then(wOne).or(z.sat.then(wZero))}
	case msAndOr:
		x, y, z := subs[0], subs[1], subs[2]
		dsat := y.dsat.then(x.sat).nonCanonical().or(z.dsat.then(x.dsat))
		return msResult{dsat, y.sat.then(x.sat).or(z.sat.then(x.dsat))}
	}
	return msResult{}
}

// kStep extends best, the best stacks by number of satisfied parts, with
// one more part below those already taken: it is satisfied with sat or
// left unsatisfied with dsat. Counts above limit are not kept: a multi's
// satisfaction needs none above its threshold, and an entry only builds
// on those with as many satisfied parts or one fewer.
func kStep(best []msWitness, sat, dsat msWitness, limit int) []msWitness {
	next := make([]msWitness, min(len(best)+1, limit+1))
	next[0] = best[0].then(dsat)
	for j := 1; j < len(next); j++ {
		var skip msWitness
		if j < len(best) {
			skip = best[j].then(dsat)
		}
		next[j] = skip.or(best[j-1].then(sat))
	}
	return next
}
