package banmgr

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer/internal/atomicfile"
	"github.com/btcsuite/btclog"
)

// FileName is the name of the ban list inside the data directory.
const FileName = "banlist.json"

// DefaultBanDuration is how long a ban lasts unless configured otherwise,
// as in Bitcoin Core and btcd.
const DefaultBanDuration = 24 * time.Hour

// maxFileSize bounds the ban list read at startup so a corrupted or hostile
// file cannot exhaust memory.
const maxFileSize = 64 << 20

// fileVersion is written into banlist.json so a future format can be told
// apart.
const fileVersion = 1

// ErrorKind classifies ban manager failures for errors.Is.
type ErrorKind string

// Error returns the kind's description.
func (e ErrorKind) Error() string { return string(e) }

// Kinds of ban manager errors.
const (
	// ErrCorruptFile means banlist.json could not be parsed.
	ErrCorruptFile = ErrorKind("corrupt ban list file")
	// ErrInvalidSubnet means an address or subnet was not valid.
	ErrInvalidSubnet = ErrorKind("invalid address or subnet")
	// ErrAlreadyBanned means BanSubnet was given an address an
	// unexpired ban already covers, or a range banned already.
	ErrAlreadyBanned = ErrorKind("IP/Subnet already banned")
)

var log = btclog.Disabled

// UseLogger sets the logger used by the package.
func UseLogger(l btclog.Logger) { log = l }

// Entry is one ban.
type Entry struct {
	// Subnet is the banned range; a single address is a /32 or /128.
	// It is invalid for a Host ban.
	Subnet netip.Prefix
	// Host is the banned non-IP address (Tor v3 or I2P), empty for
	// IP bans.
	Host string
	// Created is when the ban was made.
	Created time.Time
	// Until is when the ban expires.
	Until time.Time
	// Reason is a human-readable note for logs and RPC output.
	Reason string
}

// Config configures a Manager.
type Config struct {
	// DataDir is where banlist.json lives. Empty means bans are kept in
	// memory only (tests, or a node with no data directory).
	DataDir string
	// BanDuration is the default length of a ban; zero means
	// DefaultBanDuration.
	BanDuration time.Duration
	// Whitelist lists ranges that are never banned.
	Whitelist []netip.Prefix
	// Now returns the current time; nil means the node clock (clock.Now). Tests inject a
	// clock to expire bans.
	Now func() time.Time
}

// Manager holds the bans. It is safe for concurrent use.
type Manager struct {
	cfg  Config
	path string

	mu sync.Mutex
	// single holds bans of one address, the common case, so IsBanned is a
	// map lookup; ranges holds wider subnets, which are rare.
	single map[netip.Addr]Entry
	ranges map[netip.Prefix]Entry
	// hosts holds bans of non-IP addresses, keyed by CanonicalHost.
	hosts map[string]Entry
}

// New returns a Manager, loading banlist.json from cfg.DataDir if present.
// Expired bans in the file are dropped. A missing file is created empty;
// an unreadable or corrupt one is overwritten with an empty list, as
// bitcoind does, and reported (ErrCorruptFile when it did not parse)
// together with the usable empty Manager, so the caller may log and
// continue.
func New(cfg Config) (*Manager, error) {
	if cfg.BanDuration <= 0 {
		cfg.BanDuration = DefaultBanDuration
	}
	if cfg.Now == nil {
		cfg.Now = clock.Now
	}
	m := &Manager{
		cfg:    cfg,
		single: make(map[netip.Addr]Entry),
		ranges: make(map[netip.Prefix]Entry),
		hosts:  make(map[string]Entry),
	}
	for i, p := range cfg.Whitelist {
		m.cfg.Whitelist[i] = normPrefix(p)
	}
	if cfg.DataDir == "" {
		return m, nil
	}
	m.path = filepath.Join(cfg.DataDir, FileName)
	start := time.Now()
	log.Infof("Loading banlist from %s", m.path)
	err := m.load()
	if err == nil {
		log.Debugf("Loaded %d banned node addresses/subnets  %dms", m.count(), time.Since(start).Milliseconds())
		return m, nil
	}
	// As bitcoind, a missing or unreadable list is replaced by an empty
	// one at once, so the file exists from start-up on.
	if !errors.Is(err, os.ErrNotExist) {
		log.Warnf("Cannot load banlist %s: %v", m.path, err)
	}
	log.Infof("Recreating the banlist database")
	m.saveLogged()
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	return m, err
}

// count returns how many bans are held, expired ones included.
func (m *Manager) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.single) + len(m.ranges) + len(m.hosts)
}

// normAddr strips IPv4-in-IPv6 mapping and zones so one host has one key.
func normAddr(a netip.Addr) netip.Addr { return a.Unmap().WithZone("") }

func normPrefix(p netip.Prefix) netip.Prefix {
	a := p.Addr()
	bits := p.Bits()
	if a.Is4In6() {
		a = a.Unmap()
		bits -= 96
		if bits < 0 {
			bits = 0
		}
	}
	return netip.PrefixFrom(a.WithZone(""), bits).Masked()
}

// IsWhitelisted reports whether addr lies in a whitelisted range.
func (m *Manager) IsWhitelisted(addr netip.Addr) bool {
	addr = normAddr(addr)
	for _, p := range m.cfg.Whitelist {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// Ban bans addr for the configured duration. It returns false, and bans
// nothing, when addr is whitelisted or invalid.
func (m *Manager) Ban(addr netip.Addr, reason string) bool {
	if !addr.IsValid() {
		return false
	}
	addr = normAddr(addr)
	return m.ban(netip.PrefixFrom(addr, addr.BitLen()), m.cfg.Now().Add(m.cfg.BanDuration), reason, false) == nil
}

// BanSubnet bans a range until the given time (the RPC setban path). A
// range that overlaps the whitelist is refused only when the whitelisted
// range lies entirely inside it or contains it, since banning it would ban
// a whitelisted host. As bitcoind's setban, a single address already
// covered by a ban, or a range already banned as such, is refused with
// ErrAlreadyBanned.
func (m *Manager) BanSubnet(subnet netip.Prefix, until time.Time, reason string) error {
	return m.ban(subnet, until, reason, true)
}

// ban records a ban; with refuseBanned it fails for what BanSubnet
// refuses, otherwise a new ban replaces an existing one.
func (m *Manager) ban(subnet netip.Prefix, until time.Time, reason string, refuseBanned bool) error {
	if !subnet.IsValid() {
		return fmt.Errorf("%w: %v", ErrInvalidSubnet, subnet)
	}
	subnet = normPrefix(subnet)
	for _, w := range m.cfg.Whitelist {
		if w.Overlaps(subnet) {
			return fmt.Errorf("%w: %v overlaps whitelisted %v", ErrInvalidSubnet, subnet, w)
		}
	}
	if refuseBanned && m.alreadyBanned(subnet) {
		return fmt.Errorf("%w: %v", ErrAlreadyBanned, subnet)
	}
	e := Entry{Subnet: subnet, Created: m.cfg.Now(), Until: until, Reason: reason}
	m.mu.Lock()
	if subnet.IsSingleIP() {
		m.single[subnet.Addr()] = e
	} else {
		m.ranges[subnet] = e
	}
	m.mu.Unlock()
	log.Infof("Banned %v until %v: %s", subnet, until.Format(time.RFC3339), reason)
	return m.saveLogged()
}

// alreadyBanned reports whether setban would find subnet banned: a
// single address by any ban covering it, a range by its own entry.
func (m *Manager) alreadyBanned(subnet netip.Prefix) bool {
	if subnet.IsSingleIP() {
		return m.IsBanned(subnet.Addr())
	}
	now := m.cfg.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.ranges[subnet]
	return ok && now.Before(e.Until)
}

// Unban removes the ban of exactly subnet (a single address is given as a
// /32 or /128) and reports whether there was one.
func (m *Manager) Unban(subnet netip.Prefix) bool {
	if !subnet.IsValid() {
		return false
	}
	subnet = normPrefix(subnet)
	m.mu.Lock()
	var ok bool
	if subnet.IsSingleIP() {
		_, ok = m.single[subnet.Addr()]
		delete(m.single, subnet.Addr())
	} else {
		_, ok = m.ranges[subnet]
		delete(m.ranges, subnet)
	}
	m.mu.Unlock()
	if ok {
		m.saveLogged()
	}
	return ok
}

// ClearBanned removes every ban.
func (m *Manager) ClearBanned() {
	m.mu.Lock()
	clear(m.single)
	clear(m.ranges)
	clear(m.hosts)
	m.mu.Unlock()
	m.saveLogged()
}

// IsBanned reports whether addr is covered by an unexpired ban. A
// whitelisted address is never banned.
func (m *Manager) IsBanned(addr netip.Addr) bool {
	if !addr.IsValid() {
		return false
	}
	addr = normAddr(addr)
	now := m.cfg.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.single[addr]; ok {
		if now.Before(e.Until) {
			return !m.IsWhitelisted(addr)
		}
		delete(m.single, addr)
	}
	for p, e := range m.ranges {
		if !now.Before(e.Until) {
			delete(m.ranges, p)
			continue
		}
		if p.Contains(addr) {
			return !m.IsWhitelisted(addr)
		}
	}
	return false
}

// List returns the unexpired bans sorted by subnet, non-IP bans last.
func (m *Manager) List() []Entry {
	now := m.cfg.Now()
	m.mu.Lock()
	out := make([]Entry, 0, len(m.single)+len(m.ranges)+len(m.hosts))
	for _, e := range m.single {
		if now.Before(e.Until) {
			out = append(out, e)
		}
	}
	for _, e := range m.ranges {
		if now.Before(e.Until) {
			out = append(out, e)
		}
	}
	for _, e := range m.hosts {
		if now.Before(e.Until) {
			out = append(out, e)
		}
	}
	m.mu.Unlock()
	// As bitcoind's ban map: IPv4, then IPv6, then the other networks.
	sort.Slice(out, func(i, j int) bool {
		if hi, hj := out[i].Host != "", out[j].Host != ""; hi || hj {
			return hj && (!hi || out[i].Host < out[j].Host)
		}
		a, b := out[i].Subnet, out[j].Subnet
		if c := a.Addr().Compare(b.Addr()); c != 0 {
			return c < 0
		}
		return a.Bits() < b.Bits()
	})
	return out
}

// fileEntry is the JSON form of an Entry; times are Unix seconds as in
// Bitcoin Core's banlist.json.
type fileEntry struct {
	Subnet  string `json:"address"`
	Created int64  `json:"ban_created"`
	Until   int64  `json:"banned_until"`
	Reason  string `json:"reason,omitempty"`
}

type fileContents struct {
	Version int         `json:"version"`
	Banned  []fileEntry `json:"banned_nets"`
}

// Save writes the ban list now. Bans are also saved on every change, so a
// caller needs this only after changing the file's location.
func (m *Manager) Save() error {
	if m.path == "" {
		return nil
	}
	list := m.List()
	fc := fileContents{Version: fileVersion, Banned: make([]fileEntry, 0, len(list))}
	for _, e := range list {
		fc.Banned = append(fc.Banned, fileEntry{
			Subnet:  e.Address(),
			Created: e.Created.Unix(),
			Until:   e.Until.Unix(),
			Reason:  e.Reason,
		})
	}
	b, err := json.MarshalIndent(&fc, "", " ")
	if err != nil {
		return err
	}
	start := time.Now()
	if err := atomicfile.Write(m.path, b); err != nil {
		return err
	}
	log.Debugf("Flushed %d banned node addresses/subnets to disk  %dms", len(list), time.Since(start).Milliseconds())
	return nil
}

func (m *Manager) saveLogged() error {
	err := m.Save()
	if err != nil {
		log.Errorf("Saving ban list: %v", err)
	}
	return err
}

// load reads banlist.json; a missing file is reported as os.ErrNotExist.
func (m *Manager) load() error {
	f, err := os.Open(m.path)
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return err
	}
	if len(b) > maxFileSize {
		return fmt.Errorf("%w: %s is larger than %d bytes", ErrCorruptFile, m.path, maxFileSize)
	}
	var fc fileContents
	if err := json.Unmarshal(b, &fc); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCorruptFile, m.path, err)
	}
	now := m.cfg.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, fe := range fc.Banned {
		if h, ok := CanonicalHost(fe.Subnet); ok {
			e := Entry{Host: h, Created: time.Unix(fe.Created, 0), Until: time.Unix(fe.Until, 0), Reason: fe.Reason}
			if now.Before(e.Until) {
				m.hosts[h] = e
			}
			continue
		}
		p, err := netip.ParsePrefix(fe.Subnet)
		if err != nil {
			a, err2 := netip.ParseAddr(fe.Subnet)
			if err2 != nil {
				log.Warnf("Skipping bad ban list entry %q: %v", fe.Subnet, err)
				continue
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		p = normPrefix(p)
		e := Entry{Subnet: p, Created: time.Unix(fe.Created, 0), Until: time.Unix(fe.Until, 0), Reason: fe.Reason}
		if !now.Before(e.Until) {
			continue
		}
		if p.IsSingleIP() {
			m.single[p.Addr()] = e
		} else {
			m.ranges[p] = e
		}
	}
	return nil
}
