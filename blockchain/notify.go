package blockchain

import "github.com/btcnode/btcd/wire"

// NotificationType says what happened.
type NotificationType int

// Notification types.
const (
	// NTBlockConnected: Block was connected to the main chain.
	NTBlockConnected NotificationType = iota
	// NTBlockDisconnected: Block was disconnected from the main chain.
	NTBlockDisconnected
	// NTTipChanged: processing ended with a new tip (sent once per call
	// that changed it, after the connected/disconnected events).
	NTTipChanged
)

// String names the notification type.
func (t NotificationType) String() string {
	switch t {
	case NTBlockConnected:
		return "NTBlockConnected"
	case NTBlockDisconnected:
		return "NTBlockDisconnected"
	case NTTipChanged:
		return "NTTipChanged"
	}
	return "NTUnknown"
}

// Notification describes a chain event. Block is nil for NTTipChanged.
// The block must not be modified.
type Notification struct {
	Type   NotificationType
	Block  *wire.MsgBlock
	Hash   wire.Hash
	Height int32
}

// Subscribe registers a callback for chain events. Callbacks run on the
// goroutine that changed the chain, after the chain lock is released, in
// order. They may call the chain's query methods but must not call methods
// that change it (ProcessBlock, ProcessHeaders, InvalidateBlock, ...),
// which deliver events themselves; they should return quickly.
func (b *BlockChain) Subscribe(fn func(*Notification)) {
	b.subMu.Lock()
	b.subs = append(b.subs, fn)
	b.subMu.Unlock()
}

// queue records an event for delivery after the lock is released. Called
// with the chain lock held.
func (b *BlockChain) queue(n Notification) {
	b.pending = append(b.pending, n)
}

// deliver sends queued events to the subscribers. It must be called
// without the chain lock.
func (b *BlockChain) deliver() {
	b.mu.Lock()
	events := b.pending
	b.pending = nil
	var seq uint64
	if len(events) > 0 {
		tip := b.chain.tip()
		events = append(events, Notification{Type: NTTipChanged, Hash: tip.hash, Height: tip.height})
		b.notifyQueued++
		seq = b.notifyQueued
	}
	b.mu.Unlock()
	if len(events) == 0 {
		return
	}
	// Batches are delivered one at a time in the order they were taken,
	// so subscribers see events in chain order even when two goroutines
	// change the chain back to back.
	b.subMu.Lock()
	defer b.subMu.Unlock()
	for b.notifyDone != seq-1 {
		b.subCond.Wait()
	}
	for i := range events {
		for _, fn := range b.subs {
			fn(&events[i])
		}
	}
	b.notifyDone = seq
	b.subCond.Broadcast()
}

// SyncNotifications returns once every event queued before the call has
// been delivered to the subscribers (Core's
// SyncWithValidationInterfaceQueue). It must not be called from a
// subscriber.
func (b *BlockChain) SyncNotifications() {
	b.mu.RLock()
	target := b.notifyQueued
	if len(b.pending) > 0 {
		// Queued but not yet taken: the next batch.
		target++
	}
	b.mu.RUnlock()
	b.subMu.Lock()
	for b.notifyDone < target {
		b.subCond.Wait()
	}
	b.subMu.Unlock()
}
