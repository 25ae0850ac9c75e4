package txscript

// stack is the data or alt stack. Elements are never modified in place:
// they may alias script bytes, witness items or the engine's arena.
type stack struct {
	items [][]byte
}

func (s *stack) size() int { return len(s.items) }

func (s *stack) push(v []byte) { s.items = append(s.items, v) }

// top returns the element i places below the top (top(-1) is the top), as
// Core's stacktop; callers check the depth first.
func (s *stack) top(i int) []byte { return s.items[len(s.items)+i] }

func (s *stack) pop() []byte {
	n := len(s.items) - 1
	v := s.items[n]
	s.items[n] = nil
	s.items = s.items[:n]
	return v
}

// erase removes the element i places below the top.
func (s *stack) erase(i int) {
	p := len(s.items) + i
	copy(s.items[p:], s.items[p+1:])
	s.items[len(s.items)-1] = nil
	s.items = s.items[:len(s.items)-1]
}

func (s *stack) reset() {
	clear(s.items)
	s.items = s.items[:0]
}

// condStack is Core's ConditionStack: only the depth and the position of
// the first false entry matter, so IF nesting costs no memory.
type condStack struct {
	size       uint32
	firstFalse uint32
}

const noFalse = ^uint32(0)

func (c *condStack) reset()        { c.size, c.firstFalse = 0, noFalse }
func (c *condStack) empty() bool   { return c.size == 0 }
func (c *condStack) allTrue() bool { return c.firstFalse == noFalse }

func (c *condStack) push(v bool) {
	if c.firstFalse == noFalse && !v {
		c.firstFalse = c.size
	}
	c.size++
}

func (c *condStack) pop() {
	c.size--
	if c.firstFalse == c.size {
		c.firstFalse = noFalse
	}
}

func (c *condStack) toggleTop() {
	switch c.firstFalse {
	case noFalse:
		c.firstFalse = c.size - 1
	case c.size - 1:
		c.firstFalse = noFalse
	}
}
