//go:build !linux

package portmap

import "net/netip"

// DefaultGateway is known only on Linux, from its routing table.
func DefaultGateway() (netip.Addr, error) { return netip.Addr{}, ErrNoGateway }
