//go:build linux

package portmap

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"net/netip"
	"os"
	"strings"
)

// DefaultGateway returns the IPv4 default gateway from the kernel's
// routing table (/proc/net/route).
func DefaultGateway() (netip.Addr, error) {
	f, err := os.Open("/proc/net/route")
	if err != nil {
		return netip.Addr{}, err
	}
	defer f.Close()
	return parseRoutes(bufio.NewScanner(f))
}

// parseRoutes finds the default route (destination and mask 0) in the
// lines of /proc/net/route, whose addresses are hexadecimal in host byte
// order (little-endian here).
func parseRoutes(sc *bufio.Scanner) (netip.Addr, error) {
	first := true
	for sc.Scan() {
		if first {
			first = false // the header line
			continue
		}
		f := strings.Fields(sc.Text())
		if len(f) < 8 || f[1] != "00000000" || f[7] != "00000000" {
			continue
		}
		b, err := hex.DecodeString(f[2])
		if err != nil || len(b) != 4 {
			continue
		}
		var ip [4]byte
		binary.BigEndian.PutUint32(ip[:], binary.LittleEndian.Uint32(b))
		if gw := netip.AddrFrom4(ip); !gw.IsUnspecified() {
			return gw, nil
		}
	}
	return netip.Addr{}, ErrNoGateway
}
