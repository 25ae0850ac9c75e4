package muhash

import (
	"bytes"
	"testing"
)

// TestStateRoundTrip checks that a state restored from MarshalBinary goes
// on exactly like the original: same digest now and after more inserts
// and removes, as the coinstats index needs across restarts.
func TestStateRoundTrip(t *testing.T) {
	a := New()
	for i := range 20 {
		a.Insert([]byte{byte(i), 1})
	}
	a.Remove([]byte{3, 1})
	state, err := a.MarshalBinary()
	if err != nil || len(state) != StateSize {
		t.Fatalf("state %d bytes, %v", len(state), err)
	}
	b := New()
	if err := b.UnmarshalBinary(state); err != nil {
		t.Fatal(err)
	}
	if a.Finalize() != b.Finalize() {
		t.Fatal("digest differs after restore")
	}
	for _, m := range []*MuHash{a, b} {
		m.Insert([]byte("more"))
		m.Remove([]byte{5, 1})
	}
	if a.Finalize() != b.Finalize() {
		t.Fatal("digest differs after further updates")
	}
	again, _ := b.MarshalBinary()
	if want, _ := a.MarshalBinary(); !bytes.Equal(again, want) {
		t.Fatal("states differ after the same updates")
	}
	// The empty set's state restores to the empty set.
	empty, _ := New().MarshalBinary()
	c := New()
	if err := c.UnmarshalBinary(empty); err != nil || c.Finalize() != New().Finalize() {
		t.Fatalf("empty state: %v", err)
	}
}

// TestStateRejectsBadInput checks the bounds on untrusted state bytes.
func TestStateRejectsBadInput(t *testing.T) {
	m := New()
	if m.UnmarshalBinary(make([]byte, StateSize-1)) == nil {
		t.Error("short state accepted")
	}
	if m.UnmarshalBinary(make([]byte, StateSize)) == nil {
		t.Error("zero numbers accepted")
	}
	over := bytes.Repeat([]byte{0xff}, StateSize) // both numbers >= p
	if m.UnmarshalBinary(over) == nil {
		t.Error("numbers above the modulus accepted")
	}
	if m.Finalize() != New().Finalize() {
		t.Error("a rejected state changed the set")
	}
}
