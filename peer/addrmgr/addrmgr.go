package addrmgr

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"math"
	mrand "math/rand/v2"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer/asmap"
	"github.com/btcnode/btcd/wire"
	"github.com/btcsuite/btclog"
)

// Table geometry and policy, as in Bitcoin Core's addrman.
const (
	newBucketCount           = 1024
	triedBucketCount         = 256
	bucketSize               = 64
	newBucketsPerSourceGroup = 64
	triedBucketsPerGroup     = 8
	// newBucketsPerAddress caps how many new buckets one address may be
	// in: addresses heard from many sources are more likely real.
	newBucketsPerAddress = 8

	// An address is "terrible" (evicted first, never relayed) when it is
	// older than horizon, failed retries times without ever succeeding,
	// or failed maxFailures times over minFailDays without success.
	horizon     = 30 * 24 * time.Hour
	retries     = 3
	maxFailures = 10
	minFailDays = 7 * 24 * time.Hour

	// GetAddrMaxPct and GetAddrMax bound a getaddr answer (Core's
	// MAX_PCT_ADDR_TO_SEND and MAX_ADDR_TO_SEND).
	GetAddrMaxPct = 23
	GetAddrMax    = wire.MaxAddrPerMsg

	// DefaultTimePenalty is subtracted from the timestamps of relayed
	// addresses, so addresses we only heard about rank below ones we saw.
	DefaultTimePenalty = 2 * time.Hour

	// selectTries bounds the random probing of Select.
	selectTries = 1 << 16
)

var log = btclog.Disabled

// UseLogger sets the logger used by the package.
func UseLogger(l btclog.Logger) { log = l }

// ErrorKind classifies address manager failures for errors.Is.
type ErrorKind string

// Error returns the kind's description.
func (e ErrorKind) Error() string { return string(e) }

// Kinds of address manager errors.
const (
	// ErrNoAddresses means the tables hold nothing to select.
	ErrNoAddresses = ErrorKind("no addresses known")
	// ErrCorruptFile means peers.dat could not be read.
	ErrCorruptFile = ErrorKind("corrupt peers file")
)

// knownAddress is one table entry.
type knownAddress struct {
	key         addrKey
	src         addrKey
	services    wire.ServiceFlag
	timestamp   uint32 // last seen, unix seconds
	attempts    int
	lastAttempt time.Time
	lastSuccess time.Time
	tried       bool
	refs        int      // new buckets holding it
	slots       []uint32 // new-table slots holding it (bucket*bucketSize+pos)
	id          int32
}

// KnownAddress is a snapshot of an entry returned to callers.
type KnownAddress struct {
	Addr        wire.NetAddressV2
	Attempts    int
	LastAttempt time.Time
	LastSuccess time.Time
	Tried       bool
}

// String returns host:port.
func (ka *KnownAddress) String() string { return ka.Addr.String() }

func (ka *knownAddress) snapshot() KnownAddress {
	na := ka.key.netAddress()
	na.Services, na.Timestamp = ka.services, ka.timestamp
	return KnownAddress{Addr: na, Attempts: ka.attempts, LastAttempt: ka.lastAttempt,
		LastSuccess: ka.lastSuccess, Tried: ka.tried}
}

// isTerrible reports whether the entry should be dropped in favour of
// others and not relayed (Core's AddrInfo::IsTerrible).
func (ka *knownAddress) isTerrible(now time.Time) bool {
	if !ka.lastAttempt.IsZero() && now.Sub(ka.lastAttempt) < time.Minute {
		return false // tried in the last minute: give it a chance
	}
	ts := time.Unix(int64(ka.timestamp), 0)
	if ts.After(now.Add(10 * time.Minute)) {
		return true // from the future
	}
	if ka.timestamp == 0 || now.Sub(ts) > horizon {
		return true
	}
	if ka.lastSuccess.IsZero() && ka.attempts >= retries {
		return true
	}
	if now.Sub(ka.lastSuccess) > minFailDays && ka.attempts >= maxFailures {
		return true
	}
	return false
}

// chance is the relative probability of selecting the entry (Core's
// AddrInfo::GetChance).
func (ka *knownAddress) chance(now time.Time) float64 {
	c := 1.0
	if !ka.lastAttempt.IsZero() && now.Sub(ka.lastAttempt) < 10*time.Minute {
		c *= 0.01
	}
	return c * math.Pow(0.66, float64(min(ka.attempts, 8)))
}

// Config configures a Manager.
type Config struct {
	// DataDir holds peers.dat; empty keeps addresses in memory only.
	DataDir string
	// Net is the network whose magic starts peers.dat; a file of another
	// network is refused.
	Net wire.BitcoinNet
	// BugReport is where the start-up error for a corrupt peers.dat asks
	// users to report it; empty says "none".
	BugReport string
	// Lookup resolves DNS seed names; nil uses the system resolver. Tests
	// inject a fake.
	Lookup func(host string) ([]netip.Addr, error)
	// Now returns the current time; nil means the node clock (clock.Now).
	Now func() time.Time
	// ASMap, when set, groups IPv4 and IPv6 addresses by the autonomous
	// system announcing them instead of by /16 and /32 (Core's -asmap).
	ASMap *asmap.Map
	// Deterministic uses a fixed table key instead of a random one, so
	// bucket positions are the same in every run (Core's -test=addrman).
	Deterministic bool
	// CheckRatio, when positive, checks the tables' consistency on every
	// CheckRatio-th operation (Core's -checkaddrman).
	CheckRatio int
}

// Manager holds the address tables. It is safe for concurrent use.
type Manager struct {
	cfg  Config
	path string

	mu     sync.Mutex
	key    [32]byte
	index  map[addrKey]*knownAddress
	byID   map[int32]*knownAddress
	nextID int32
	newTbl [newBucketCount][bucketSize]int32 // entry ids; 0 is empty
	tried  [triedBucketCount][bucketSize]int32
	nNew   int
	nTried int
	locals map[addrKey]int // our own addresses and their scores
	caches map[string]addrCache

	ops atomic.Uint64 // operations, for CheckRatio

	quit chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

// New returns a Manager, loading peers.dat from cfg.DataDir, or creating
// it when missing, as bitcoind does at start-up. A file bitcoind would
// refuse (corrupt, truncated, of another network) makes New fail with
// bitcoind's start-up error (errors.Is ErrCorruptFile) and no Manager; a
// file of a newer format is moved to peers.dat.bak and replaced.
func New(cfg Config) (*Manager, error) {
	if cfg.Now == nil {
		cfg.Now = clock.Now
	}
	m := &Manager{cfg: cfg, quit: make(chan struct{})}
	m.reset()
	if cfg.DataDir == "" {
		return m, nil
	}
	m.path = peersPath(cfg.DataDir)
	if err := m.load(); err != nil {
		return nil, err
	}
	return m, nil
}

// reset empties the tables and draws a new secret key.
func (m *Manager) reset() {
	rand.Read(m.key[:])
	if m.cfg.Deterministic {
		m.key = [32]byte{1}
	}
	m.index = make(map[addrKey]*knownAddress)
	m.byID = make(map[int32]*knownAddress)
	m.nextID = 0
	m.newTbl = [newBucketCount][bucketSize]int32{}
	m.tried = [triedBucketCount][bucketSize]int32{}
	m.nNew, m.nTried = 0, 0
	m.locals = make(map[addrKey]int)
	m.caches = make(map[string]addrCache)
}

// hash is the keyed hash that places entries, Core's: the first eight
// bytes (little-endian) of sha256d(key || parts), the parts serialized as
// Core serializes them (see vec, u64, i32).
func (m *Manager) hash(parts ...[]byte) uint64 {
	h := sha256.New()
	h.Write(m.key[:])
	for _, p := range parts {
		h.Write(p)
	}
	var sum [32]byte
	h.Sum(sum[:0])
	sum = sha256.Sum256(sum[:])
	return binary.LittleEndian.Uint64(sum[:8])
}

// vec serializes a byte vector: compact-size length, then the bytes
// (every vector hashed here is shorter than 253 bytes).
func vec(b []byte) []byte { return append([]byte{byte(len(b))}, b...) }

func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func i32(v int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(int32(v))) }

func (m *Manager) triedBucket(k *addrKey) int {
	h1 := m.hash(vec(k.bytes())) % triedBucketsPerGroup
	return int(m.hash(vec(m.group(k)), u64(h1)) % triedBucketCount)
}

func (m *Manager) newBucket(k, src *addrKey) int {
	sg := m.group(src)
	h1 := m.hash(vec(m.group(k)), vec(sg)) % newBucketsPerSourceGroup
	return int(m.hash(vec(sg), u64(h1)) % newBucketCount)
}

func (m *Manager) bucketPos(isNew bool, bucket int, k *addrKey) int {
	tag := byte('K')
	if isNew {
		tag = 'N'
	}
	return int(m.hash([]byte{tag}, i32(bucket), vec(k.bytes())) % bucketSize)
}

// Size returns the number of addresses known.
func (m *Manager) Size() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.index)
}

// Counts returns the numbers of new and tried addresses.
func (m *Manager) Counts() (nNew, nTried int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.nNew, m.nTried
}

// AddAddresses adds addresses relayed by src (the peer that sent them).
// Timestamps are lowered by penalty, so hearsay ranks below what we saw.
// It returns how many entries were added or gained a bucket.
func (m *Manager) AddAddresses(addrs []wire.NetAddressV2, src wire.NetAddressV2, penalty time.Duration) int {
	m.maybeCheck()
	sk, ok := keyOf(&src)
	if !ok {
		sk = internalKey("unknown source")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for i := range addrs {
		if m.addSingle(&addrs[i], &sk, penalty) {
			n++
		}
	}
	return n
}

// AddNetAddresses is AddAddresses for pre-BIP155 addr entries.
func (m *Manager) AddNetAddresses(addrs []wire.NetAddress, src wire.NetAddressV2, penalty time.Duration) int {
	v2 := make([]wire.NetAddressV2, len(addrs))
	for i := range addrs {
		v2[i] = wire.NetAddressV2FromNetAddress(addrs[i])
	}
	return m.AddAddresses(v2, src, penalty)
}

func (m *Manager) addSingle(na *wire.NetAddressV2, src *addrKey, penalty time.Duration) bool {
	k, ok := keyOf(na)
	if !ok || !isRoutable(&k) {
		return false
	}
	if _, local := m.locals[k]; local {
		return false
	}
	now := m.cfg.Now()
	pen := uint32(penalty / time.Second)
	if k == *src {
		pen = 0 // a peer announcing itself is first-hand
	}
	ts := na.Timestamp
	ka := m.index[k]
	if ka != nil {
		// Refresh the timestamp, but not on every announcement.
		interval := uint32(24 * 60 * 60)
		if int64(ts) > now.Unix()-24*60*60 {
			interval = 60 * 60
		}
		if ts != 0 && (ka.timestamp == 0 || ka.timestamp < ts-min(ts, interval+pen)) {
			ka.timestamp = ts - min(ts, pen)
		}
		ka.services |= na.Services
		if ts == 0 || (ka.timestamp != 0 && ts <= ka.timestamp) {
			return false
		}
		if ka.tried || ka.refs >= newBucketsPerAddress {
			return false
		}
		// Each extra bucket is half as likely as the last.
		if mrand.IntN(1<<ka.refs) != 0 {
			return false
		}
	} else {
		ka = m.create(k, *src, na.Services, ts-min(ts, pen))
	}
	b := m.newBucket(&k, src)
	pos := m.bucketPos(true, b, &k)
	cur := m.newTbl[b][pos]
	if cur == ka.id {
		return false
	}
	insert := cur == 0
	if !insert {
		old := m.byID[cur]
		insert = old.isTerrible(now) || (old.refs > 1 && ka.refs == 0)
	}
	if !insert {
		if ka.refs == 0 {
			m.remove(ka)
		}
		return false
	}
	m.clearNewSlot(b, pos)
	m.newTbl[b][pos] = ka.id
	ka.refs++
	ka.slots = append(ka.slots, uint32(b*bucketSize+pos))
	return true
}

// create makes a new entry that is not yet in any bucket.
func (m *Manager) create(k, src addrKey, services wire.ServiceFlag, ts uint32) *knownAddress {
	m.nextID++
	ka := &knownAddress{key: k, src: src, services: services, timestamp: ts, id: m.nextID}
	m.index[k] = ka
	m.byID[ka.id] = ka
	m.nNew++
	return ka
}

// remove deletes an entry that is in no table slot.
func (m *Manager) remove(ka *knownAddress) {
	delete(m.index, ka.key)
	delete(m.byID, ka.id)
	if ka.tried {
		m.nTried--
	} else {
		m.nNew--
	}
}

// clearNewSlot empties a new-table slot, deleting its entry when that was
// its last bucket.
func (m *Manager) clearNewSlot(b, pos int) {
	id := m.newTbl[b][pos]
	if id == 0 {
		return
	}
	m.newTbl[b][pos] = 0
	ka := m.byID[id]
	slot := uint32(b*bucketSize + pos)
	for i, s := range ka.slots {
		if s == slot {
			ka.slots = append(ka.slots[:i], ka.slots[i+1:]...)
			break
		}
	}
	ka.refs--
	if ka.refs == 0 {
		m.remove(ka)
	}
}

func (m *Manager) lookup(na *wire.NetAddressV2) *knownAddress {
	k, ok := keyOf(na)
	if !ok {
		return nil
	}
	return m.index[k]
}

// Attempt records a connection attempt to na.
func (m *Manager) Attempt(na wire.NetAddressV2) {
	m.maybeCheck()
	m.mu.Lock()
	defer m.mu.Unlock()
	if ka := m.lookup(&na); ka != nil {
		ka.lastAttempt = m.cfg.Now()
		ka.attempts++
	}
}

// Connected records that we are still talking to na, refreshing its
// timestamp at most every 20 minutes so relayed copies stay fresh.
func (m *Manager) Connected(na wire.NetAddressV2) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ka := m.lookup(&na); ka != nil {
		now := m.cfg.Now().Unix()
		if now-int64(ka.timestamp) > 20*60 {
			ka.timestamp = uint32(now)
		}
	}
}

// SetServices records the services na announced in its version message.
func (m *Manager) SetServices(na wire.NetAddressV2, services wire.ServiceFlag) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ka := m.lookup(&na); ka != nil {
		ka.services = services
	}
}

// Good records a successful connection (handshake completed) to na and
// moves it to the tried table. An address we never heard about is added
// first, with itself as source.
func (m *Manager) Good(na wire.NetAddressV2) {
	m.maybeCheck()
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.cfg.Now()
	ka := m.lookup(&na)
	if ka == nil {
		k, ok := keyOf(&na)
		if !ok || !isRoutable(&k) {
			return
		}
		if _, local := m.locals[k]; local {
			return
		}
		ts := na.Timestamp
		if ts == 0 {
			ts = uint32(now.Unix())
		}
		// Straight to tried: it is in no new bucket yet.
		ka = m.create(k, k, na.Services, ts)
	}
	ka.lastSuccess, ka.lastAttempt, ka.attempts = now, now, 0
	if !ka.tried {
		m.makeTried(ka)
	}
}

// makeTried moves a new entry to the tried table, pushing any entry in its
// tried slot back to the new table.
func (m *Manager) makeTried(ka *knownAddress) {
	for len(ka.slots) > 0 {
		s := ka.slots[0]
		if ka.refs == 1 {
			// Clearing the last slot would delete the entry.
			m.newTbl[s/bucketSize][s%bucketSize] = 0
			ka.slots, ka.refs = ka.slots[:0], 0
			break
		}
		m.clearNewSlot(int(s/bucketSize), int(s%bucketSize))
	}
	m.nNew--
	b := m.triedBucket(&ka.key)
	pos := m.bucketPos(false, b, &ka.key)
	if id := m.tried[b][pos]; id != 0 {
		old := m.byID[id]
		m.tried[b][pos] = 0
		old.tried = false
		m.nTried--
		m.nNew++
		nb := m.newBucket(&old.key, &old.src)
		npos := m.bucketPos(true, nb, &old.key)
		m.clearNewSlot(nb, npos)
		m.newTbl[nb][npos] = old.id
		old.refs = 1
		old.slots = append(old.slots[:0], uint32(nb*bucketSize+npos))
	}
	m.tried[b][pos] = ka.id
	ka.tried = true
	m.nTried++
}

// Select picks an address to connect to: from the tried table half the
// time when both tables have entries (always from new if newOnly), each
// entry weighted by its recent failures.
func (m *Manager) Select(newOnly bool) (KnownAddress, error) {
	m.maybeCheck()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.index) == 0 || (newOnly && m.nNew == 0) {
		return KnownAddress{}, ErrNoAddresses
	}
	now := m.cfg.Now()
	useTried := !newOnly && m.nTried > 0 && (m.nNew == 0 || mrand.IntN(2) == 0)
	factor := 1.0
	for range selectTries {
		var id int32
		if useTried {
			b := mrand.IntN(triedBucketCount)
			id = firstFrom(m.tried[b][:], mrand.IntN(bucketSize))
		} else {
			b := mrand.IntN(newBucketCount)
			id = firstFrom(m.newTbl[b][:], mrand.IntN(bucketSize))
		}
		if id == 0 {
			continue
		}
		ka := m.byID[id]
		if mrand.Float64() < factor*ka.chance(now) {
			return ka.snapshot(), nil
		}
		factor *= 1.2
	}
	// Unreachable in practice: factor grows until any entry is accepted.
	for _, ka := range m.index {
		if ka.tried == useTried {
			return ka.snapshot(), nil
		}
	}
	return KnownAddress{}, ErrNoAddresses
}

// firstFrom returns the first non-empty slot of a bucket starting at a
// random position, or 0.
func firstFrom(bucket []int32, start int) int32 {
	for i := range bucket {
		if id := bucket[(start+i)%len(bucket)]; id != 0 {
			return id
		}
	}
	return 0
}

// GetAddresses returns a random sample of addresses that are not
// terrible, at most maxCount and maxPct percent of the table, for a
// getaddr answer (use GetAddrMax and GetAddrMaxPct).
func (m *Manager) GetAddresses(maxCount, maxPct int) []wire.NetAddressV2 {
	m.maybeCheck()
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.index) * maxPct / 100
	if maxCount > 0 {
		n = min(n, maxCount)
	}
	if n == 0 {
		return nil
	}
	now := m.cfg.Now()
	all := make([]*knownAddress, 0, len(m.index))
	for _, ka := range m.index {
		all = append(all, ka)
	}
	mrand.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	out := make([]wire.NetAddressV2, 0, n)
	for _, ka := range all {
		if len(out) == n {
			break
		}
		if ka.isTerrible(now) {
			continue
		}
		na := ka.key.netAddress()
		na.Services, na.Timestamp = ka.services, ka.timestamp
		out = append(out, na)
	}
	return out
}

// addrCache is a getaddr answer kept for a while.
type addrCache struct {
	addrs   []wire.NetAddressV2
	expires time.Time
}

// maxAddrCaches bounds the number of cached getaddr answers.
const maxAddrCaches = 16

// CachedAddresses returns the getaddr answer for peers that reached us
// through cacheKey (for example the network and local address they
// connected to). As in Core the answer is reused for 21 to 27 hours, so
// repeated getaddr requests cannot map our whole table or watch it change.
func (m *Manager) CachedAddresses(cacheKey string) []wire.NetAddressV2 {
	now := m.cfg.Now()
	m.mu.Lock()
	c, ok := m.caches[cacheKey]
	m.mu.Unlock()
	if ok && now.Before(c.expires) {
		return c.addrs
	}
	addrs := m.GetAddresses(GetAddrMax, GetAddrMaxPct)
	life := 21*time.Hour + time.Duration(mrand.Int64N(int64(6*time.Hour)))
	m.mu.Lock()
	if _, ok := m.caches[cacheKey]; !ok && len(m.caches) >= maxAddrCaches {
		for k := range m.caches {
			delete(m.caches, k)
			break
		}
	}
	m.caches[cacheKey] = addrCache{addrs: addrs, expires: now.Add(life)}
	m.mu.Unlock()
	return addrs
}

// Lookup returns the entry for na, if known.
func (m *Manager) Lookup(na wire.NetAddressV2) (KnownAddress, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ka := m.lookup(&na); ka != nil {
		return ka.snapshot(), true
	}
	return KnownAddress{}, false
}
