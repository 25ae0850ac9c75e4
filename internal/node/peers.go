package node

import (
	"errors"
	"hash/fnv"
	"net"
	"net/netip"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/peer/addrmgr"
	"github.com/btcnode/btcd/peer/banmgr"
	"github.com/btcnode/btcd/peer/connmgr"
	"github.com/btcnode/btcd/wire"
)

// This file builds the node's peer layer (ban and address managers, the
// peer template, the connection manager and listeners) and runs each
// connection's peer.

// newPeerLayer creates the ban and address managers, the peer template
// and the connection manager, and binds the listeners.
func (s *server) newPeerLayer() error {
	cfg := s.cfg
	var err error
	// Peers with the noban permission are never banned.
	var wl []netip.Prefix
	for _, e := range cfg.whitelist {
		if e.Perms.ResolveImplicit(!cfg.NoWhitelistRelay, cfg.WhitelistForceRelay).Has(peer.PermNoBan) {
			wl = append(wl, e.Subnet)
		}
	}
	s.bans, err = banmgr.New(banmgr.Config{DataDir: cfg.DataDir, BanDuration: cfg.BanDuration, Whitelist: wl})
	if err != nil {
		if s.bans == nil {
			return err
		}
		bmgrLog.Warnf("Ignoring ban list: %v", err)
	}
	// As bitcoind, an unreadable peers.dat stops start-up with its error.
	am, err := s.loadASMap() // asmap.go
	if err != nil {
		return err
	}
	s.addrs, err = addrmgr.New(addrmgr.Config{DataDir: cfg.DataDir, Net: cfg.params.Net,
		ASMap: am, Deterministic: cfg.deterministicAddrMan, CheckRatio: cfg.CheckAddrMan})
	if err != nil {
		return err
	}
	s.asmapHealthCheck() // asmap.go

	s.peerCfg = peer.Config{
		Net:              cfg.params.Net,
		Services:         peer.Services(cfg.Prune > 0, cfg.PeerBlockFilters),
		UserAgent:        userAgent(cfg.UAComments),
		BestHeight:       func() int32 { return s.chain.BestSnapshot().Height },
		DisableRelayTx:   cfg.BlocksOnly,
		TxReconciliation: cfg.TxReconciliation,
		RequiredServices: wire.SFNodeNetwork | wire.SFNodeWitness,
		NearTip:          s.nearTip,
		SendHeaders:      true,
		FeeFilter:        s.feeFilter,
		InitialDownload:  func() bool { return !s.chain.IsCurrent() },
		Bans:             s.bans,
		BanThreshold:     cfg.BanThreshold,
		Nonces:           peer.NewNonceSet(),
		HandshakeTimeout: time.Duration(cfg.PeerTimeout) * time.Second,
		SendBufferSize:   cfg.MaxSendBuffer * 1000,
		MaxQueuedBytes:   maxQueuedBytes(cfg.MaxSendBuffer * 1000),
		Log:              peerLog,
	}
	if cfg.PeerBloomFilters {
		s.peerCfg.Services |= wire.SFNodeBloom // BIP111
	}
	if cfg.v2Enabled() {
		// The template's V2 stays off: onAccept and onConnection set it
		// per connection.
		s.peerCfg.Services |= wire.SFNodeP2PV2
	}
	s.sync.SetListeners(&s.peerCfg.Listeners)
	if prev := s.peerCfg.Listeners.OnQueue; cfg.maxUploadBytes > 0 {
		// Counted as queued, not as written: a block still in the queue
		// must count when the peer's next getdata is checked against
		// the historical limit.
		s.peerCfg.Listeners.OnQueue = func(p *peer.Peer, n int, cmd string) {
			s.upload.record(n)
			if prev != nil {
				prev(p, n, cmd)
			}
		}
	}
	s.hookPeerMetrics(&s.peerCfg.Listeners)
	s.hookMessageCapture(&s.peerCfg.Listeners) // msgcapture.go
	s.peerCfg.Listeners.OnVerAck = func(p *peer.Peer) {
		if na, ok := p.NetAddress(); ok && !p.Inbound() {
			s.addrs.Good(na)
			s.noteSeenAs(p) // rpcadapter_net.go
			// Ask outbound peers for addresses, as Core does once per
			// connection.
			p.PushGetAddr()
		}
		s.sync.NewPeer(p)
	}
	s.setupAddrRelay() // p2p_addr.go

	policy := connmgr.ResolvePolicy(connmgr.PolicyInput{
		Connect: cfg.ConnectPeers, Listen: cfg.Listeners, NoListen: cfg.DisableListen,
		Proxy: cfg.proxies.name, NoDNSSeed: cfg.DisableDNSSeed,
	})
	if policy.Listen && len(cfg.Listeners)+len(cfg.whiteBinds) > 0 {
		addrs := append([]string(nil), cfg.Listeners...)
		for _, b := range cfg.whiteBinds {
			addrs = append(addrs, b.Addr.String())
		}
		if s.listeners, err = connmgr.Listen(addrs); err != nil {
			return err
		}
	}
	// As in Core, --externalip addresses are ours (getnetworkinfo lists
	// them) even when not listening, but only a node others can reach
	// announces itself.
	s.addExternalIPs()
	if len(s.listeners) > 0 && cfg.MaxPeers > 0 {
		s.peerCfg.LocalAddress = s.localAddressFor
	}
	s.setupI2P() // i2p.go
	cc := connmgr.Config{
		Listeners:    s.listeners,
		OnAccept:     s.onAccept,
		OnConnection: s.onConnection,
		EvictInbound: s.evictInbound,
		IsBanned:     s.bans.IsBanned,
		MaxPeers:     cfg.MaxPeers,
		MaxInbound:   connmgr.CoreInboundSlots(cfg.MaxPeers),
		Dial:         connmgr.NewDialer(s.dialConfig()),
		OutboundGroup: func(addr string) string {
			ap, err := netip.ParseAddrPort(addr)
			if err != nil {
				return addr
			}
			na := wire.NetAddressV2FromNetAddress(wire.NewNetAddress(ap, 0, 0))
			return addrmgr.GroupKey(&na)
		},
	}
	if cfg.MaxPeers == 0 {
		cc.MaxPeers = 0
		cc.TargetOutbound = 0
	}
	if cfg.MaxPeers == 0 {
		// connmgr reads zero as its default; --maxpeers=0 means no
		// connections at all, so no listeners and no automatic dials.
		s.closeListeners()
		s.listeners, cc.Listeners = nil, nil
	}
	if s.i2pListener != nil && cfg.MaxPeers > 0 {
		// Inbound I2P streams take the path of inbound TCP connections:
		// the same slots, eviction and peer set-up.
		cc.Listeners = append(cc.Listeners, s.i2pListener)
	}
	if policy.AutoConnect && cfg.MaxPeers > 0 && !cfg.NoConnect {
		cc.GetNewAddress = s.newAddress
		cc.TargetOutbound = min(connmgr.DefaultTargetOutbound, cfg.MaxPeers)
		s.autoConnect = true
	}
	// validate has already applied -connect's soft -dnsseed=0.
	s.dnsSeed = !cfg.DisableDNSSeed && cfg.MaxPeers > 0
	s.cm = connmgr.New(cc)
	return nil
}

// nearTip reports whether the tip is recent enough that peers serving only
// the last 288 blocks can bring us up to date.
func (s *server) nearTip() bool {
	tip := s.chain.BestSnapshot()
	h, _, ok := s.chain.HeaderByHash(&tip.Hash)
	if !ok {
		return false
	}
	age := clock.Unix() - int64(h.Timestamp)
	return age/int64(s.cfg.params.TargetTimePerBlock/time.Second) < nearTipBlocks
}

// newAddress picks an address for an automatic outbound connection.
func (s *server) newAddress() (string, error) {
	ka, err := s.addrs.Select(false)
	// --onlynet: a bounded number of draws, as bitcoind's 100 tries.
	for i := 0; err == nil && !s.cfg.reachableNet(ka.Addr.NetworkID) && i < 100; i++ {
		ka, err = s.addrs.Select(false)
	}
	if err != nil {
		return "", err
	}
	if !s.cfg.reachableNet(ka.Addr.NetworkID) {
		return "", errNoReachableAddress
	}
	s.addrs.Attempt(ka.Addr)
	return ka.Addr.String(), nil
}

// evictInbound makes room for a new inbound connection by dropping the
// inbound peer connmgr.SelectEviction picks (Core's rules).
func (s *server) evictInbound() bool {
	var cands []connmgr.EvictionCandidate
	for _, p := range s.peerList() {
		if !p.Inbound() {
			continue
		}
		st := p.Stats()
		group := ""
		if na, ok := p.NetAddress(); ok {
			group = addrmgr.GroupKey(&na)
		}
		h := fnv.New64a()
		h.Write(s.evictKey[:])
		h.Write([]byte(group))
		cands = append(cands, connmgr.EvictionCandidate{
			ID: st.ID, Connected: st.ConnTime, MinPing: st.MinPingRTT,
			LastTx: st.LastNewTx, LastBlock: st.LastNewBlock,
			RelayTxs: st.RelayTx, RelevantServices: st.Services&wire.SFNodeNetwork != 0,
			NetGroup: h.Sum64(), NoBan: st.Whitelisted, Inbound: true,
			PreferEvict: st.BanScore > 0,
			Network:     s.connectedNetwork(p.Peer), Local: p.IP().IsLoopback(),
		})
	}
	id, ok := connmgr.SelectEviction(cands)
	if !ok {
		return false
	}
	s.mu.Lock()
	p := s.peers[id]
	s.mu.Unlock()
	if p == nil {
		return false
	}
	srvrLog.Debugf("Evicting inbound peer %v to make room", p)
	p.Disconnect()
	return true
}

func (s *server) onAccept(conn net.Conn) {
	srvrLog.Infof("Inbound connection from %s", conn.RemoteAddr())
	pc := s.peerCfg
	pc.V2 = s.cfg.v2Enabled() // either transport is accepted
	p := peer.NewInbound(&pc, conn)
	p.SetPermissions(s.inboundPermissions(p.IP(), conn.LocalAddr()))
	s.runPeer(p, nil)
}

func (s *server) onConnection(req *connmgr.ConnReq, conn net.Conn) {
	srvrLog.Debugf("Connected to %s", req.Addr)
	pc := s.peerCfg
	pc.V2 = s.outboundV2(req) // v2transport.go
	p := peer.NewOutbound(&pc, conn, req.Addr)
	s.mu.Lock()
	typ, oneShot := s.oneShot[req.ID]
	delete(s.oneShot, req.ID)
	s.mu.Unlock()
	if oneShot {
		p.SetConnType(typ)
	}
	if req.Permanent || typ == peer.ConnManual {
		// As Core, "out" whitelist entries apply to manual connections.
		p.SetManual()
		p.SetPermissions(peer.PermissionsFor(s.cfg.whitelist, p.IP(), false, !s.cfg.NoWhitelistRelay, s.cfg.WhitelistForceRelay))
	}
	s.runPeer(p, req)
}

// inboundPermissions are a new inbound peer's permissions: those of the
// --whitelist entries covering its address plus those of the --whitebind
// listener it connected to.
func (s *server) inboundPermissions(ip netip.Addr, local net.Addr) peer.Permissions {
	relay, force := !s.cfg.NoWhitelistRelay, s.cfg.WhitelistForceRelay
	perms := peer.PermissionsFor(s.cfg.whitelist, ip, true, relay, force)
	if ap, err := netip.ParseAddrPort(local.String()); err == nil {
		ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
		for _, b := range s.cfg.whiteBinds {
			if b.Addr == ap {
				perms |= b.Perms.ResolveImplicit(relay, force)
			}
		}
	}
	return perms
}

// runPeer starts a peer and arranges its removal when it disconnects.
func (s *server) runPeer(p *peer.Peer, req *connmgr.ConnReq) {
	sp := &serverPeer{Peer: p, req: req}
	s.mu.Lock()
	select {
	case <-s.quit:
		s.mu.Unlock()
		p.Disconnect()
		return
	default:
	}
	s.peers[p.ID()] = sp
	s.wg.Add(1)
	s.mu.Unlock()
	srvrLog.Debugf("Added connection peer=%d", p.ID())
	p.Start()
	go func() {
		defer s.wg.Done()
		p.WaitForDisconnect()
		s.mu.Lock()
		delete(s.peers, p.ID())
		s.mu.Unlock()
		s.sync.DonePeer(p)
		if errors.Is(p.Err(), peer.ErrBanned) {
			s.metrics.PeerBanned()
		}
		srvrLog.Debugf("Peer %v disconnected: %v", p, p.Err())
		s.retryV1(p, req) // v2transport.go
	}()
}

// connect adds an outbound connection request.
func (s *server) connect(addr string, permanent bool) error {
	req, err := s.cm.Connect(addr, permanent)
	if err != nil {
		srvrLog.Warnf("Connecting to %s: %v", addr, err)
		return err
	}
	if permanent {
		s.setAddedName(req.ID, addr) // addnode.go
	}
	return nil
}

// p2pAddr returns the first P2P listen address (tests).
func (s *server) p2pAddr() string {
	if len(s.listeners) == 0 {
		return ""
	}
	return s.listeners[0].Addr().String()
}

// peerList returns the connected peers.
func (s *server) peerList() []*serverPeer {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*serverPeer, 0, len(s.peers))
	for _, p := range s.peers {
		out = append(out, p)
	}
	return out
}

// dialConfig builds the outbound dialer options from --proxy, --onion
// and --i2psam.
func (s *server) dialConfig() connmgr.DialConfig {
	dc := dialConfig(s.cfg)
	if s.cfg.ListenOnion {
		dc.TorSOCKS = s.tor.socksProxy
	}
	if s.i2p != nil {
		dc.I2P = s.i2p.Connect
	}
	return dc
}

// dialConfig builds the outbound dialer options from the proxy options
// (proxies.go), --cjdnsreachable, --connecttimeout and --nodns.
func dialConfig(cfg *Config) connmgr.DialConfig {
	return connmgr.DialConfig{CJDNS: cfg.CJDNSReachable, Proxies: cfg.proxies.dial(!cfg.NoProxyRandomize), Timeout: cfg.ConnectTimeout, NoNameLookup: cfg.NoDNS}
}

// maxOrphanTx bounds --maxorphantx; the orphans' total weight stays
// bounded by the pool's own limit whatever the count.
const maxOrphanTx = 100_000

// maxExtraTxns bounds --blockreconstructionextratxn: each kept
// transaction may take up to 100 kB.
const maxExtraTxns = 10_000

// extraTxns is netsync's ExtraTxns for --blockreconstructionextratxn,
// where 0 means none.
func extraTxns(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// maxSendBufferKB bounds --maxsendbuffer (in thousands of bytes): 1 GB
// per peer is already far past any use.
const maxSendBufferKB = 1_000_000

// maxQueuedBytes is the hard limit of a peer's send queue for a soft
// limit of soft bytes (0: the default): room above the soft limit for
// the messages queued without waiting, a maximal block among them.
func maxQueuedBytes(soft int) int {
	if soft <= 0 {
		return 0
	}
	return max(peer.DefaultMaxQueuedBytes, soft+2*wire.MaxBlockSerializedSize)
}
