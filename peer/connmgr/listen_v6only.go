//go:build !windows

package connmgr

import (
	"context"
	"net"
	"syscall"
)

// listenV6Only listens on an IPv6 address with IPV6_V6ONLY set, so it can
// share its port with an IPv4 listener on the same port.
func listenV6Only(addr string) (net.Listener, error) {
	lc := net.ListenConfig{Control: func(network, address string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IPV6, syscall.IPV6_V6ONLY, 1)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	return lc.Listen(context.Background(), "tcp6", addr)
}
