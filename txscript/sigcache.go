package txscript

import (
	"crypto/rand"
	"crypto/sha256"
	"sync"
	"sync/atomic"
)

const (
	sigKindECDSA   = 'E'
	sigKindSchnorr = 'S'
)

// SigCache remembers signature checks that succeeded so that a transaction
// verified on entry to the mempool is not verified again when its block
// arrives. It is safe for concurrent use and bounded in entries.
//
// Entries are keyed by SHA-256 of a per-process random salt, the signature
// kind, the signature hash, the public key and the signature: an attacker
// cannot predict keys, and since only valid signatures over real sighashes
// are ever added, filling the cache costs a valid signature per entry.
// When full, a pseudo-randomly chosen entry (Go's map iteration order) is
// evicted.
type SigCache struct {
	mu      sync.RWMutex
	entries map[[32]byte]struct{}
	max     int
	salt    [32]byte

	hits, misses atomic.Uint64
}

// NewSigCache returns a cache holding at most maxEntries entries; zero
// disables caching (all lookups miss).
func NewSigCache(maxEntries uint) *SigCache {
	c := &SigCache{entries: make(map[[32]byte]struct{}), max: int(maxEntries)}
	if _, err := rand.Read(c.salt[:]); err != nil {
		panic("txscript: no randomness for signature cache salt: " + err.Error())
	}
	return c
}

// key derives the cache key; it does not allocate.
func (c *SigCache) key(kind byte, hash *[32]byte, sig, pk []byte) [32]byte {
	var buf [32 + 1 + 32 + 1 + 80 + 1 + 80]byte
	n := copy(buf[:], c.salt[:])
	buf[n] = kind
	n++
	n += copy(buf[n:], hash[:])
	if len(pk) > 80 || len(sig) > 80 {
		// Longer inputs cannot be valid keys/signatures; hash them
		// down first to keep the key derivation bounded.
		hp, hs := sha256.Sum256(pk), sha256.Sum256(sig)
		pk, sig = hp[:], hs[:]
	}
	buf[n] = byte(len(pk))
	n++
	n += copy(buf[n:], pk)
	buf[n] = byte(len(sig))
	n++
	n += copy(buf[n:], sig)
	return sha256.Sum256(buf[:n])
}

func (c *SigCache) has(k *[32]byte) bool {
	c.mu.RLock()
	_, ok := c.entries[*k]
	c.mu.RUnlock()
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return ok
}

// Stats returns how many lookups found their signature already verified
// and how many did not, since the cache was made (for metrics).
func (c *SigCache) Stats() (hits, misses uint64) {
	return c.hits.Load(), c.misses.Load()
}

func (c *SigCache) add(k *[32]byte) {
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	if len(c.entries) >= c.max {
		for old := range c.entries {
			delete(c.entries, old)
			break
		}
	}
	c.entries[*k] = struct{}{}
	c.mu.Unlock()
}

// Len returns the number of cached entries.
func (c *SigCache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}
