package banmgr

import (
	"fmt"
	"strings"
	"time"

	"github.com/btcnode/btcd/wire"
)

// CanonicalHost returns the form a non-IP address (Tor v3 ".onion" or I2P
// ".b32.i2p") is banned under, and false for anything else, IP literals
// included: those are banned as subnets. Tor checksums are verified so a
// mistyped address is refused rather than banned uselessly.
func CanonicalHost(host string) (string, bool) {
	if len(host) > 128 {
		return "", false
	}
	nid, _, err := wire.ParseHost(host)
	if err != nil || (nid != wire.NetTorV3 && nid != wire.NetI2P) {
		return "", false
	}
	return strings.ToLower(host), true
}

// BanHost bans a non-IP address (see CanonicalHost) until the given time.
// As BanSubnet, an address already banned is refused with
// ErrAlreadyBanned.
func (m *Manager) BanHost(host string, until time.Time, reason string) error {
	h, ok := CanonicalHost(host)
	if !ok {
		return fmt.Errorf("%w: %q", ErrInvalidSubnet, host)
	}
	if m.IsHostBanned(h) {
		return fmt.Errorf("%w: %s", ErrAlreadyBanned, h)
	}
	m.mu.Lock()
	m.hosts[h] = Entry{Host: h, Created: m.cfg.Now(), Until: until, Reason: reason}
	m.mu.Unlock()
	log.Infof("Banned %s until %v: %s", h, until.Format(time.RFC3339), reason)
	return m.saveLogged()
}

// UnbanHost removes the ban of a non-IP address and reports whether there
// was one.
func (m *Manager) UnbanHost(host string) bool {
	h, ok := CanonicalHost(host)
	if !ok {
		return false
	}
	m.mu.Lock()
	_, ok = m.hosts[h]
	delete(m.hosts, h)
	m.mu.Unlock()
	if ok {
		m.saveLogged()
	}
	return ok
}

// IsHostBanned reports whether a non-IP address is covered by an
// unexpired ban.
func (m *Manager) IsHostBanned(host string) bool {
	h, ok := CanonicalHost(host)
	if !ok {
		return false
	}
	now := m.cfg.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.hosts[h]
	if ok && !now.Before(e.Until) {
		delete(m.hosts, h)
		return false
	}
	return ok
}

// Address returns what the entry bans as bitcoind writes it: the subnet
// in CIDR form, or the non-IP host.
func (e Entry) Address() string {
	if e.Host != "" {
		return e.Host
	}
	return e.Subnet.String()
}
