package blockchain

import (
	"time"

	"github.com/btcnode/btcd/wire"
)

// orphanTTL is how long an orphan block waits for its parent.
const orphanTTL = time.Hour

// maxOrphanBytes bounds the serialized size of all orphans together, so
// that a hundred maximum-size blocks cannot pin 400 MB.
const maxOrphanBytes = 32 << 20

// orphan is a block whose parent we do not have.
type orphan struct {
	block   *wire.MsgBlock
	size    int
	expires time.Time
}

// orphanPool holds a bounded number of blocks whose parents are unknown,
// indexed by their own hash and by their parent's, so that they can be
// connected when the parent arrives. Only blocks that passed the
// context-free checks, proof of work included, are kept, so filling the
// pool costs an attacker real work; when it is full the entry closest to
// expiry is evicted.
type orphanPool struct {
	byHash map[wire.Hash]*orphan
	byPrev map[wire.Hash][]wire.Hash
	bytes  int
}

func (o *orphanPool) init() {
	o.byHash = make(map[wire.Hash]*orphan)
	o.byPrev = make(map[wire.Hash][]wire.Hash)
}

func (o *orphanPool) has(h *wire.Hash) bool {
	_, ok := o.byHash[*h]
	return ok
}

func (o *orphanPool) remove(h wire.Hash) {
	ob := o.byHash[h]
	if ob == nil {
		return
	}
	delete(o.byHash, h)
	o.bytes -= ob.size
	prev := ob.block.Header.PrevBlock
	sibs := o.byPrev[prev]
	for i := range sibs {
		if sibs[i] == h {
			sibs = append(sibs[:i], sibs[i+1:]...)
			break
		}
	}
	if len(sibs) == 0 {
		delete(o.byPrev, prev)
	} else {
		o.byPrev[prev] = sibs
	}
}

// add stores an orphan, expiring old ones and evicting to stay within max.
func (o *orphanPool) add(b *wire.MsgBlock, hash wire.Hash, max int, now time.Time) {
	for h, ob := range o.byHash {
		if now.After(ob.expires) {
			o.remove(h)
		}
	}
	size := b.SerializeSize()
	for len(o.byHash) > 0 && (len(o.byHash) >= max || o.bytes+size > maxOrphanBytes) {
		var victim wire.Hash
		var first time.Time
		for h, ob := range o.byHash {
			if first.IsZero() || ob.expires.Before(first) {
				victim, first = h, ob.expires
			}
		}
		o.remove(victim)
	}
	o.byHash[hash] = &orphan{block: b, size: size, expires: now.Add(orphanTTL)}
	o.bytes += size
	o.byPrev[b.Header.PrevBlock] = append(o.byPrev[b.Header.PrevBlock], hash)
}

// root returns the hash of the first missing ancestor of an orphan chain,
// which the sync manager should request.
func (o *orphanPool) root(h wire.Hash) wire.Hash {
	for i := 0; i < 1000; i++ {
		ob := o.byHash[h]
		if ob == nil {
			return h
		}
		h = ob.block.Header.PrevBlock
	}
	return h
}
