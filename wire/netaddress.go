package wire

import (
	"crypto/sha3"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// ServiceFlag is the bit field of services a node offers.
type ServiceFlag uint64

// Service bits (Bitcoin Core's NODE_* values).
const (
	// SFNodeNetwork serves the full block chain.
	SFNodeNetwork ServiceFlag = 1 << 0
	// SFNodeGetUTXO serves BIP64 getutxo (obsolete).
	SFNodeGetUTXO ServiceFlag = 1 << 1
	// SFNodeBloom serves BIP37 bloom-filtered connections.
	SFNodeBloom ServiceFlag = 1 << 2
	// SFNodeWitness serves witness data (BIP144).
	SFNodeWitness ServiceFlag = 1 << 3
	// SFNodeXthin is Bitcoin Unlimited's Xtreme Thinblocks (never used by
	// Core; named so String does not print it as unknown).
	SFNodeXthin ServiceFlag = 1 << 4
	// SFNodeCompactFilters serves BIP157/158 compact block filters.
	SFNodeCompactFilters ServiceFlag = 1 << 6
	// SFNodeNetworkLimited serves the last 288 blocks (BIP159).
	SFNodeNetworkLimited ServiceFlag = 1 << 10
	// SFNodeP2PV2 speaks the BIP324 v2 transport.
	SFNodeP2PV2 ServiceFlag = 1 << 11
)

var serviceFlagNames = []struct {
	f    ServiceFlag
	name string
}{
	{SFNodeNetwork, "SFNodeNetwork"},
	{SFNodeGetUTXO, "SFNodeGetUTXO"},
	{SFNodeBloom, "SFNodeBloom"},
	{SFNodeWitness, "SFNodeWitness"},
	{SFNodeXthin, "SFNodeXthin"},
	{SFNodeCompactFilters, "SFNodeCompactFilters"},
	{SFNodeNetworkLimited, "SFNodeNetworkLimited"},
	{SFNodeP2PV2, "SFNodeP2PV2"},
}

// String lists the set flags joined by '|', with any unknown bits as hex.
func (f ServiceFlag) String() string {
	if f == 0 {
		return "0x0"
	}
	var sb strings.Builder
	for _, n := range serviceFlagNames {
		if f&n.f != 0 {
			if sb.Len() > 0 {
				sb.WriteByte('|')
			}
			sb.WriteString(n.name)
			f &^= n.f
		}
	}
	if f != 0 {
		if sb.Len() > 0 {
			sb.WriteByte('|')
		}
		sb.WriteString("0x" + strconv.FormatUint(uint64(f), 16))
	}
	return sb.String()
}

// NetAddress is an address as carried by addr and version messages: an
// IPv6 (or IPv4-mapped) address, a port and the services offered. IPv4
// addresses are held unmapped (4-byte form) in Addr.
type NetAddress struct {
	// Timestamp is the last time the address was seen (unix seconds). It
	// is not part of the version message's addresses.
	Timestamp uint32
	Services  ServiceFlag
	Addr      netip.Addr
	Port      uint16
}

// netAddressSize is the size of a NetAddress without its timestamp.
const netAddressSize = 8 + 16 + 2

// AddrPort returns the address and port together.
func (na *NetAddress) AddrPort() netip.AddrPort { return netip.AddrPortFrom(na.Addr, na.Port) }

// NewNetAddress returns a NetAddress for ap offering services, with ap's
// address unmapped when it is IPv4-mapped.
func NewNetAddress(ap netip.AddrPort, services ServiceFlag, timestamp uint32) NetAddress {
	return NetAddress{Timestamp: timestamp, Services: services, Addr: ap.Addr().Unmap(), Port: ap.Port()}
}

// appendNetAddress appends the services, 16-byte address and big-endian
// port. An invalid (zero) Addr is written as all zeros.
func appendNetAddress(dst []byte, na *NetAddress) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(na.Services))
	var ip [16]byte
	if na.Addr.IsValid() {
		ip = na.Addr.As16()
	}
	dst = append(dst, ip[:]...)
	return binary.BigEndian.AppendUint16(dst, na.Port)
}

func readNetAddress(r *reader, na *NetAddress) {
	na.Services = ServiceFlag(r.u64())
	b := r.bytes(16)
	if b == nil {
		return
	}
	na.Addr = netip.AddrFrom16([16]byte(b)).Unmap()
	if p := r.bytes(2); p != nil {
		na.Port = binary.BigEndian.Uint16(p)
	}
}

// NetworkID is a BIP155 network identifier.
type NetworkID uint8

// BIP155 networks.
const (
	NetIPv4  NetworkID = 1
	NetIPv6  NetworkID = 2
	NetTorV2 NetworkID = 3 // no longer supported: skipped when decoding
	NetTorV3 NetworkID = 4
	NetI2P   NetworkID = 5
	NetCJDNS NetworkID = 6
)

// MaxAddrV2Size is the longest address BIP155 allows in an addrv2 entry.
const MaxAddrV2Size = 512

// addrSize returns the address length BIP155 fixes for a network we accept,
// or 0 for networks we skip.
func (n NetworkID) addrSize() int {
	switch n {
	case NetIPv4:
		return 4
	case NetIPv6, NetCJDNS:
		return 16
	case NetTorV3, NetI2P:
		return 32
	}
	return 0
}

// String names the network.
func (n NetworkID) String() string {
	switch n {
	case NetIPv4:
		return "IPv4"
	case NetIPv6:
		return "IPv6"
	case NetTorV2:
		return "TorV2"
	case NetTorV3:
		return "TorV3"
	case NetI2P:
		return "I2P"
	case NetCJDNS:
		return "CJDNS"
	}
	return "NetworkID(" + strconv.Itoa(int(n)) + ")"
}

// NetAddressV2 is a BIP155 (addrv2) address: a network identifier and that
// network's raw address bytes (4 for IPv4, 16 for IPv6 and CJDNS, 32 for
// Tor v3 and I2P).
type NetAddressV2 struct {
	Timestamp uint32
	Services  ServiceFlag
	NetworkID NetworkID
	Addr      []byte
	Port      uint16
}

// NetAddressV2FromNetAddress converts an addr-style address. IPv4 (and
// IPv4-mapped) addresses become NetIPv4, others NetIPv6.
func NetAddressV2FromNetAddress(na NetAddress) NetAddressV2 {
	v := NetAddressV2{Timestamp: na.Timestamp, Services: na.Services, Port: na.Port}
	a := na.Addr.Unmap()
	if a.Is4() {
		b := a.As4()
		v.NetworkID, v.Addr = NetIPv4, b[:]
	} else {
		var b [16]byte
		if a.IsValid() {
			b = a.As16()
		}
		v.NetworkID, v.Addr = NetIPv6, b[:]
	}
	return v
}

// ToNetAddress converts an IPv4 or IPv6 address to the addr form; ok is
// false for the networks addr cannot carry (Tor v3, I2P, CJDNS).
func (v *NetAddressV2) ToNetAddress() (na NetAddress, ok bool) {
	na = NetAddress{Timestamp: v.Timestamp, Services: v.Services, Port: v.Port}
	switch {
	case v.NetworkID == NetIPv4 && len(v.Addr) == 4:
		na.Addr = netip.AddrFrom4([4]byte(v.Addr))
	case v.NetworkID == NetIPv6 && len(v.Addr) == 16:
		na.Addr = netip.AddrFrom16([16]byte(v.Addr)).Unmap()
	default:
		return na, false
	}
	return na, true
}

// IP returns the address as a netip.Addr for IPv4, IPv6 and CJDNS (which
// uses fc00::/8 IPv6 addresses); ok is false for the other networks.
func (v *NetAddressV2) IP() (netip.Addr, bool) {
	switch {
	case v.NetworkID == NetIPv4 && len(v.Addr) == 4:
		return netip.AddrFrom4([4]byte(v.Addr)), true
	case (v.NetworkID == NetIPv6 || v.NetworkID == NetCJDNS) && len(v.Addr) == 16:
		return netip.AddrFrom16([16]byte(v.Addr)), true
	}
	return netip.Addr{}, false
}

var lowerBase32 = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// torV3Version is the version byte of a Tor v3 onion address.
const torV3Version = 3

// HostString returns the address without port as people write it: dotted
// IPv4, IPv6 text, "<base32>.onion" for Tor v3 (pubkey, checksum and
// version as the Tor spec defines) or "<base32>.b32.i2p" for I2P.
func (v *NetAddressV2) HostString() string {
	if ip, ok := v.IP(); ok {
		return ip.String()
	}
	switch {
	case v.NetworkID == NetTorV3 && len(v.Addr) == 32:
		h := sha3.New256()
		h.Write([]byte(".onion checksum"))
		h.Write(v.Addr)
		h.Write([]byte{torV3Version})
		sum := h.Sum(nil)
		var raw [35]byte
		copy(raw[:], v.Addr)
		raw[32], raw[33], raw[34] = sum[0], sum[1], torV3Version
		return lowerBase32.EncodeToString(raw[:]) + ".onion"
	case v.NetworkID == NetI2P && len(v.Addr) == 32:
		return lowerBase32.EncodeToString(v.Addr) + ".b32.i2p"
	}
	return fmt.Sprintf("%v:%x", v.NetworkID, v.Addr)
}

// String returns host:port, with IPv6 hosts in brackets.
func (v *NetAddressV2) String() string {
	host := v.HostString()
	if strings.Contains(host, ":") && v.NetworkID != NetTorV3 && v.NetworkID != NetI2P {
		host = "[" + host + "]"
	}
	return host + ":" + strconv.Itoa(int(v.Port))
}

// ParseHost parses a host as HostString writes it: an IPv4 or IPv6
// literal (IPv4-mapped addresses become IPv4), a Tor v3 "<56 base32
// chars>.onion" whose checksum and version are checked, or an I2P
// "<52 base32 chars>.b32.i2p". fc00::/8 addresses are returned as IPv6;
// only the caller knows whether it treats them as CJDNS.
func ParseHost(host string) (NetworkID, []byte, error) {
	h := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	switch {
	case strings.HasSuffix(h, ".onion"):
		b32 := strings.TrimSuffix(h, ".onion")
		raw, err := lowerBase32.DecodeString(b32)
		if err != nil || len(b32) != 56 || len(raw) != 35 {
			return 0, nil, messageError(ErrMalformed, "onion address %q is not a Tor v3 address", host)
		}
		if raw[34] != torV3Version {
			return 0, nil, messageError(ErrMalformed, "onion address %q has version %d", host, raw[34])
		}
		v := NetAddressV2{NetworkID: NetTorV3, Addr: raw[:32]}
		if v.HostString() != h {
			return 0, nil, messageError(ErrMalformed, "onion address %q has a bad checksum", host)
		}
		return NetTorV3, raw[:32:32], nil
	case strings.HasSuffix(h, ".b32.i2p"):
		b32 := strings.TrimSuffix(h, ".b32.i2p")
		raw, err := lowerBase32.DecodeString(b32)
		if err != nil || len(b32) != 52 || len(raw) != 32 {
			return 0, nil, messageError(ErrMalformed, "I2P address %q is not a 32-byte .b32.i2p address", host)
		}
		return NetI2P, raw, nil
	}
	ip, err := netip.ParseAddr(h)
	if err != nil || ip.Zone() != "" {
		return 0, nil, messageError(ErrMalformed, "host %q is not an IP, Tor v3 or I2P address", host)
	}
	ip = ip.Unmap()
	if ip.Is4() {
		b := ip.As4()
		return NetIPv4, b[:], nil
	}
	b := ip.As16()
	return NetIPv6, b[:], nil
}
