// Package peer owns one P2P connection to another Bitcoin node: the
// version/verack handshake with feature negotiation (wtxidrelay and
// sendaddrv2 between version and verack, sendheaders, sendcmpct and
// feefilter after it), self-connection detection, ping/pong with latency
// measurement (PingNow pings at once, for the ping RPC), the per-peer half
// of address relay (rate limiting, what the peer knows, the addr send
// schedule, getaddr once per connection, announcement of our own address
// through Config.LocalAddress), Core's inactivity and ping timeouts on
// the node clock, the read loop that hands decoded messages to the
// server's callbacks, a prioritized write queue with a hard cap on queued
// bytes, trickled transaction announcements, misbehaviour scoring that
// bans through peer/banmgr, and the statistics getpeerinfo reports.
//
// Subpackages: banmgr (bans and the whitelist, persisted in banlist.json),
// connmgr (listeners, outbound connections, SOCKS5) and addrmgr (known
// addresses in Bitcoin Core's bucketed tables, persisted in peers.json).
//
// Each peer runs two goroutines: a reader, which performs the handshake and
// then calls the listeners synchronously, so a slow listener slows that peer
// only; and a writer, which drains the queue, trickles transaction
// announcements and runs the timers (timeouts, pings, address sends) on a
// short tick against the node clock (internal/clock), so that mock time
// moves them as it moves Bitcoin Core's.
//
// The peer scores framing and protocol errors itself. The callers score
// what only they can judge: invalid blocks, headers and transactions, and
// data that was never requested, through Misbehaving.
//
// A server wires the pieces together roughly so:
//
//	bans, _ := banmgr.New(banmgr.Config{DataDir: dir, Whitelist: wl})
//	addrs, _ := addrmgr.New(addrmgr.Config{DataDir: dir})
//	cm := connmgr.New(connmgr.Config{
//		OnAccept: func(c net.Conn) { peer.NewInbound(cfg, c).Start() },
//		OnConnection: func(r *connmgr.ConnReq, c net.Conn) {
//			peer.NewOutbound(cfg, c, r.Addr).Start()
//		},
//		IsBanned: bans.IsBanned, ...
//	})
//
// where cfg.Bans is bans and cfg.Listeners feed the sync manager.
package peer
