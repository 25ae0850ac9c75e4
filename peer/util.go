package peer

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/btcnode/btcd/wire"
)

// ErrorKind classifies why a peer was disconnected, for errors.Is on
// Peer.Err.
type ErrorKind string

// Error returns the kind's description.
func (e ErrorKind) Error() string { return string(e) }

// Disconnection reasons.
const (
	ErrDisconnected     = ErrorKind("disconnected by us")
	ErrHandshakeTimeout = ErrorKind("handshake timed out")
	ErrIdleTimeout      = ErrorKind("no message within the idle timeout")
	ErrPingTimeout      = ErrorKind("ping not answered in time")
	ErrSelfConnection   = ErrorKind("connected to ourselves")
	ErrOldVersion       = ErrorKind("protocol version too old")
	ErrMissingServices  = ErrorKind("peer lacks required services")
	// ErrFeelerDone ends a feeler or addr-fetch connection that did its job.
	ErrFeelerDone        = ErrorKind("short-lived connection completed")
	ErrProtocolViolation = ErrorKind("protocol violation")
	ErrBadMessage        = ErrorKind("bad message")
	ErrSendQueueFull     = ErrorKind("send queue full")
	ErrBanned            = ErrorKind("misbehaviour score reached the ban threshold")
	ErrRejected          = ErrorKind("rejected by the server")
	ErrConnection        = ErrorKind("connection error")
)

// NonceSet remembers the nonces of the version messages we sent, so a
// version carrying one of them shows we connected to ourselves. It keeps
// the most recent entries only.
type NonceSet struct {
	mu   sync.Mutex
	set  map[uint64]struct{}
	ring []uint64
	next int
}

// nonceSetSize is far more than the connections in flight at once.
const nonceSetSize = 256

// NewNonceSet returns an empty set.
func NewNonceSet() *NonceSet {
	return &NonceSet{set: make(map[uint64]struct{}, nonceSetSize), ring: make([]uint64, nonceSetSize)}
}

var defaultNonces = NewNonceSet()

// Add records a nonce, forgetting the oldest when full.
func (s *NonceSet) Add(n uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.ring[s.next]; old != 0 {
		delete(s.set, old)
	}
	s.ring[s.next] = n
	s.set[n] = struct{}{}
	s.next = (s.next + 1) % len(s.ring)
}

// Contains reports whether n was recorded.
func (s *NonceSet) Contains(n uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.set[n]
	return ok
}

// randUint64 returns a random non-zero nonce.
func randUint64() uint64 {
	var b [8]byte
	for {
		rand.Read(b[:])
		if v := binary.LittleEndian.Uint64(b[:]); v != 0 {
			return v
		}
	}
}

// keySet is a bounded set of 64-bit keys: once full, each new key
// replaces the oldest, so a peer feeding us fresh keys cannot grow it.
// Its storage is allocated on first use, which keeps idle peers small.
type keySet struct {
	set  map[uint64]struct{}
	ring []uint64
	next int
}

func (k *keySet) has(key uint64) bool {
	_, ok := k.set[key]
	return ok
}

// add records key, forgetting the oldest key once max are held.
func (k *keySet) add(key uint64, max int) {
	if k.set == nil {
		k.set = make(map[uint64]struct{}, 64)
		k.ring = make([]uint64, 0, 64)
	}
	if _, ok := k.set[key]; ok {
		return
	}
	if len(k.ring) < max {
		k.ring = append(k.ring, key)
	} else {
		delete(k.set, k.ring[k.next])
		k.ring[k.next] = key
		k.next = (k.next + 1) % max
	}
	k.set[key] = struct{}{}
}

// reset forgets every key and releases the storage.
func (k *keySet) reset() { *k = keySet{} }

// knownInv is a bounded set of inventory hashes. Hashes are keyed by their
// first eight bytes, which are uniformly distributed for sha256d outputs;
// a collision only suppresses one announcement.
type knownInv struct{ keys keySet }

func invKey(h *wire.Hash) uint64 { return binary.LittleEndian.Uint64(h[:8]) }

func (k *knownInv) has(h *wire.Hash) bool { return k.keys.has(invKey(h)) }

func (k *knownInv) add(h *wire.Hash) { k.keys.add(invKey(h), maxKnownInv) }

// invString formats an inventory entry as Core logs it ("wtx <hash>",
// "witness-block <hash>"), so log lines Core's tests look for match.
func invString(iv *wire.InvVect) string {
	var name string
	switch iv.Type &^ wire.InvWitnessFlag {
	case wire.InvTypeTx:
		name = "tx"
	case wire.InvTypeBlock:
		name = "block"
	case wire.InvTypeFilteredBlock:
		name = "merkleblock"
	case wire.InvTypeCmpctBlock:
		name = "cmpctblock"
	case wire.InvTypeWTx:
		name = "wtx"
	default:
		return fmt.Sprintf("0x%08x %v", uint32(iv.Type), iv.Hash)
	}
	if iv.Type&wire.InvWitnessFlag != 0 {
		name = "witness-" + name
	}
	return name + " " + iv.Hash.String()
}
