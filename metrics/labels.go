package metrics

import (
	"sync"
	"sync/atomic"
)

// OtherLabel is the label value that absorbs every value outside a bounded
// label set (unknown message commands, unregistered RPC methods, unknown
// reject reasons), so a peer or client cannot create series at will.
const OtherLabel = "other"

// labelSet maps label values to small indexes so that the per-value
// instrument children can live in a slice and be found without allocating.
// Index 0 is always OtherLabel.
//
// A fixed set knows all its values up front. A growing set (used for RPC
// methods when the daemon does not list them) admits first-seen values up
// to max and then maps the rest to OtherLabel; the map is copied on write
// so readers never lock.
type labelSet struct {
	idx   atomic.Pointer[map[string]int]
	mu    sync.Mutex  // serialises growth
	names []string    // index -> value; guarded by mu after construction
	max   int         // capacity including OtherLabel; 0 means fixed
	full  atomic.Bool // a growing set reached max: skip the lock
}

// newFixedLabels returns a set of exactly OtherLabel and values. aliases
// maps further accepted spellings to one of values.
func newFixedLabels(values []string, aliases map[string]string) *labelSet {
	s := &labelSet{names: []string{OtherLabel}}
	m := map[string]int{OtherLabel: 0}
	for _, v := range values {
		if _, ok := m[v]; ok {
			continue
		}
		m[v] = len(s.names)
		s.names = append(s.names, v)
	}
	for alias, v := range aliases {
		if i, ok := m[v]; ok {
			m[alias] = i
		}
	}
	s.idx.Store(&m)
	return s
}

// newGrowingLabels returns a set that admits up to max values besides
// OtherLabel.
func newGrowingLabels(max int) *labelSet {
	s := newFixedLabels(nil, nil)
	s.max = max + 1
	return s
}

// size is the number of slots a caller must allocate for the set.
func (s *labelSet) size() int {
	if s.max > 0 {
		return s.max
	}
	return len(s.names)
}

// lookup returns the index and canonical value for v, admitting it if the
// set grows and has room.
func (s *labelSet) lookup(v string) (int, string) {
	if i, ok := (*s.idx.Load())[v]; ok {
		return i, s.nameAt(i)
	}
	if s.max == 0 || s.full.Load() {
		return 0, OtherLabel
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := *s.idx.Load()
	if i, ok := old[v]; ok {
		return i, s.names[i]
	}
	if len(s.names) >= s.max {
		s.full.Store(true)
		return 0, OtherLabel
	}
	m := make(map[string]int, len(old)+1)
	for k, i := range old {
		m[k] = i
	}
	// The label value is cloned so the set never pins a caller's buffer
	// (a request body the method name was sliced from).
	name := string(append([]byte(nil), v...))
	m[name] = len(s.names)
	s.names = append(s.names, name)
	s.idx.Store(&m)
	return m[name], name
}

// nameAt returns the value at index i. Values are never removed, so the
// slice prefix a reader sees is stable; the lock only guards the append.
func (s *labelSet) nameAt(i int) string {
	if s.max == 0 {
		return s.names[i]
	}
	s.mu.Lock()
	n := s.names[i]
	s.mu.Unlock()
	return n
}

// children caches one instrument bundle per label index, created on first
// use with make (which calls the Vec's WithLabelValues; creating the same
// child twice in a race is harmless because the Vec returns the same one).
type children[T any] struct {
	labels *labelSet
	slots  []atomic.Pointer[T]
	make   func(label string) *T
}

func newChildren[T any](labels *labelSet, mk func(label string) *T) *children[T] {
	return &children[T]{labels: labels, slots: make([]atomic.Pointer[T], labels.size()), make: mk}
}

// get returns the bundle for label value v (or for OtherLabel).
func (c *children[T]) get(v string) *T {
	i, ok := (*c.labels.idx.Load())[v]
	if ok {
		if p := c.slots[i].Load(); p != nil {
			return p
		}
	}
	i, name := c.labels.lookup(v)
	if p := c.slots[i].Load(); p != nil {
		return p
	}
	p := c.make(name)
	c.slots[i].Store(p)
	return p
}
