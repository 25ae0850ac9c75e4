package node

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/btcnode/btcd/peer/asmap"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// loadASMap reads --asmap's file (relative paths are in the data
// directory), with Core's errors and log lines; nil without --asmap.
func (s *server) loadASMap() (*asmap.Map, error) {
	path := s.cfg.ASMap
	if path == "" {
		amgrLog.Info("Using /16 prefix for IP bucketing")
		return nil, nil
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.cfg.DataDir, path)
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, coreMessage(fmt.Sprintf("Could not find asmap file %q", path))
	}
	if err != nil {
		return nil, err
	}
	m, err := asmap.New(data)
	if err != nil {
		return nil, coreMessage(fmt.Sprintf("Could not parse asmap file %q", path))
	}
	amgrLog.Infof("Opened asmap file %q (%d bytes) from disk", path, len(data))
	amgrLog.Infof("Using asmap version %s for IP bucketing", m.Version())
	return m, nil
}

// asmapHealthCheck logs how the address manager's clearnet addresses map
// to autonomous systems, as Core does at start-up.
func (s *server) asmapHealthCheck() {
	if s.cfg.ASMap == "" {
		return
	}
	asns := make(map[uint32]struct{})
	clearnet, unmapped := 0, 0
	for _, sl := range s.addrs.Slots() {
		ip, ok := sl.Addr.IP()
		if !ok || (sl.Addr.NetworkID != wire.NetIPv4 && sl.Addr.NetworkID != wire.NetIPv6) {
			continue
		}
		clearnet++
		if asn := s.addrs.MappedAS(ip); asn != 0 {
			asns[asn] = struct{}{}
		} else {
			unmapped++
		}
	}
	amgrLog.Infof("ASMap Health Check: %d clearnet peers are mapped to %d ASNs with %d peers being unmapped", clearnet, len(asns), unmapped)
}

// mappedAS is the mapped_as field of an address: its ASN, or nil when no
// map is loaded or the address is unmapped.
func (s *server) mappedAS(na *wire.NetAddressV2) *int64 {
	ip, ok := na.IP()
	if !ok {
		return nil
	}
	if asn := s.addrs.MappedAS(ip); asn != 0 {
		v := int64(asn)
		return &v
	}
	return nil
}

// rawAddrMan answers getrawaddrman.
func (s *server) rawAddrMan() (map[string]map[string]rpc.RawAddrManEntry, error) {
	out := map[string]map[string]rpc.RawAddrManEntry{"new": {}, "tried": {}}
	for _, sl := range s.addrs.Slots() {
		table := "new"
		if sl.Tried {
			table = "tried"
		}
		out[table][fmt.Sprintf("%d/%d", sl.Bucket, sl.Position)] = rpc.RawAddrManEntry{
			Address: sl.Addr.HostString(), MappedAS: s.mappedAS(&sl.Addr), Port: sl.Addr.Port,
			Network: networkName(sl.Addr.NetworkID), Services: uint64(sl.Addr.Services), Time: int64(sl.Addr.Timestamp),
			Source: sl.Source.HostString(), SourceNetwork: networkName(sl.Source.NetworkID), SourceMappedAS: s.mappedAS(&sl.Source),
		}
	}
	return out, nil
}

// addrManInfo answers getaddrmaninfo. An address in several new buckets
// counts once.
func (s *server) addrManInfo() (map[string]rpc.AddrManCounts, error) {
	out := map[string]rpc.AddrManCounts{}
	for _, n := range []string{"ipv4", "ipv6", "onion", "i2p", "cjdns", "all_networks"} {
		out[n] = rpc.AddrManCounts{}
	}
	seen := make(map[string]bool)
	for _, sl := range s.addrs.Slots() {
		key := sl.Addr.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		for _, n := range []string{networkName(sl.Addr.NetworkID), "all_networks"} {
			c, ok := out[n]
			if !ok {
				continue
			}
			if sl.Tried {
				c.Tried++
			} else {
				c.New++
			}
			c.Total++
			out[n] = c
		}
	}
	return out, nil
}
