package node

import (
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer/banmgr"
	"github.com/btcnode/btcd/rpc"
)

// setBan is the setban RPC: an IP, a subnet or (as bitcoind) a Tor v3 or
// I2P address is banned or unbanned, and connected peers it covers are
// dropped.
func (s *server) setBan(subnet, command string, banTime int64, absolute bool) error {
	host, isHost := banmgr.CanonicalHost(subnet)
	pfx, err := parseSubnet(subnet)
	if !isHost && err != nil {
		return rpc.NewError(rpc.ErrClientInvalidIPOrSubnet, "Error: Invalid IP/Subnet")
	}
	switch command {
	case "add":
		now := clock.Now()
		until := now.Add(s.cfg.BanDuration)
		if banTime > 0 {
			until = now.Add(time.Duration(banTime) * time.Second)
			if absolute {
				until = time.Unix(banTime, 0)
			}
		}
		// bitcoind checks this whatever the bantime, 0 included.
		if absolute && banTime < now.Unix() {
			return rpc.NewError(rpc.ErrInvalidParam, "Error: Absolute timestamp is in the past")
		}
		if isHost {
			err = s.bans.BanHost(host, until, "manually added")
		} else {
			err = s.bans.BanSubnet(pfx, until, "manually added")
		}
		if err != nil {
			return rpc.NewError(rpc.ErrClientNodeAlreadyAdded, "Error: IP/Subnet already banned")
		}
		if isHost {
			return nil
		}
		for _, p := range s.peerList() {
			if pfx.Contains(p.IP().Unmap()) {
				p.Disconnect()
			}
		}
		return nil
	case "remove":
		ok := false
		if isHost {
			ok = s.bans.UnbanHost(host)
		} else {
			ok = s.bans.Unban(pfx)
		}
		if !ok {
			return rpc.NewError(rpc.ErrClientInvalidIPOrSubnet, "Error: Unban failed. Requested address/subnet was not previously manually banned.")
		}
		return nil
	}
	return rpc.NewError(rpc.ErrInvalidParams, "Error: Invalid command")
}
