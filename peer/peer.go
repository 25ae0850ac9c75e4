package peer

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer/bloom"
	"github.com/btcnode/btcd/peer/v2transport"
	"github.com/btcnode/btcd/wire"
)

var nextPeerID atomic.Int32

// Peer is one connection to another node. Create it with NewInbound or
// NewOutbound, then call Start. All methods are safe for concurrent use.
type Peer struct {
	cfg      Config
	conn     net.Conn
	inbound  bool
	addr     string
	ip       netip.Addr
	id       int32
	perms    Permissions // set before Start (SetPermissions)
	connType ConnType    // set before Start (SetConnType)
	connTime time.Time
	nonce    uint64

	quit          chan struct{}
	done          chan struct{} // closed when both goroutines have exited
	handshakeDone chan struct{}
	started       atomic.Bool
	discOnce      sync.Once
	errMu         sync.Mutex
	err           error
	wg            sync.WaitGroup

	pver atomic.Uint32 // negotiated version; ours until the remote's is known

	// Handshake progress, used by the reader only.
	gotVersion bool
	gotVerAck  bool
	hdr        [wire.MessageHeaderSize]byte // the reader's header buffer

	// The transport (transport.go), set by the reader before
	// transportReady is closed and fixed after: rd is what v1 frames are
	// read from, v2 the BIP324 session when there is one.
	rd             io.Reader
	v2             *v2transport.Session
	transport      atomic.Value // string, one of the Transport names
	transportReady chan struct{}
	v2Failed       atomic.Bool // the v2 handshake did not complete

	// State changed by later messages.
	sendHeaders  atomic.Bool
	feeFilter    atomic.Int64
	lastBlock    atomic.Int32
	cmpctVersion atomic.Uint64
	cmpctHB      atomic.Bool
	gotGetAddr   bool // reader only

	// Statistics.
	bytesSent, bytesRecv atomic.Uint64
	lastSend, lastRecv   atomic.Int64 // unix nanoseconds
	lastNewTx, lastNewBl atomic.Int64 // unix nanoseconds; see MarkNewTx

	mu sync.Mutex // guards the fields below
	// What the remote announced in the handshake.
	remoteVersion  uint32
	services       wire.ServiceFlag
	userAgent      string
	startingHeight int32
	timeOffset     int64
	relayTx        bool // the remote wants transactions
	wtxidRelay     bool
	addrV2         bool
	addrMe         netip.AddrPort // how the remote sees us (version addr_recv)
	bloom          *bloom.Filter  // BIP37 filter the remote loaded (bloomfilter.go)
	recon          txRecon        // BIP330 handshake state (txreconciliation.go)

	sentPerCmd  map[string]uint64
	recvPerCmd  map[string]uint64
	banScore    uint32
	pingNonce   uint64    // outstanding ping, 0 if none
	pingStart   time.Time // when the last ping was sent (node clock)
	lastPingRTT time.Duration
	minPingRTT  time.Duration

	// Address relay (addrrelay.go). addrRelay is Core's
	// m_addr_relay_enabled: whether we gossip addresses with the peer.
	addrRelay atomic.Bool
	// addrSendMu makes a send wait while a getaddr is being answered,
	// so the answer goes out with the first send, as in Core, where
	// both happen on one thread.
	addrSendMu      sync.Mutex
	addrMu          sync.Mutex // guards the fields below
	knownAddrs      keySet     // addresses the peer has or was sent
	addrsToSend     []wire.NetAddressV2
	nextAddrSend    time.Time // node clock; zero: at the first chance
	nextLocalAddr   time.Time
	askedAddrs      bool // we sent getaddr on this connection
	getAddrSent     bool // and no answer has come yet
	addrTokens      float64
	addrTokensTime  time.Time
	addrProcessed   uint64
	addrRateLimited uint64

	wq writeQueue

	invMu      sync.Mutex // guards the inventory fields
	knownInv   knownInv
	pendingInv []wire.InvVect
	// nextTrickle is the node-clock time of the next announcement
	// trickle (zero until the first is scheduled).
	nextTrickle time.Time
	pendingSet  map[uint64]struct{} // invKey of each pending hash
	lastInvSeq  atomic.Uint64       // see LastTxInvSequence

	feeMu      sync.Mutex // guards the feefilter schedule (feefilter.go)
	feeStarted bool       // afterVerAck ran: the schedule may send
	feeSent    int64      // last feefilter value sent
	feeNext    time.Time  // node clock; zero: at the first chance
}

// NewInbound wraps an accepted connection.
func NewInbound(cfg *Config, conn net.Conn) *Peer {
	return newPeer(cfg, conn, true, conn.RemoteAddr().String())
}

// NewOutbound wraps a connection we made to addr (host:port as dialed,
// which may differ from conn.RemoteAddr behind a proxy).
func NewOutbound(cfg *Config, conn net.Conn, addr string) *Peer {
	return newPeer(cfg, conn, false, addr)
}

func newPeer(cfg *Config, conn net.Conn, inbound bool, addr string) *Peer {
	p := &Peer{
		cfg:            *cfg,
		conn:           conn,
		inbound:        inbound,
		addr:           addr,
		id:             nextPeerID.Add(1) - 1, // Core numbers peers from 0
		connTime:       clock.Now(),
		quit:           make(chan struct{}),
		done:           make(chan struct{}),
		handshakeDone:  make(chan struct{}),
		transportReady: make(chan struct{}),
		sentPerCmd:     make(map[string]uint64),
		recvPerCmd:     make(map[string]uint64),
		addrTokens:     1, // Core starts the bucket with one token
	}
	p.cfg.applyDefaults(inbound)
	p.pver.Store(p.cfg.ProtocolVersion)
	if ap, err := netip.ParseAddrPort(addr); err == nil {
		p.ip = ap.Addr().Unmap()
	} else if ap, err := netip.ParseAddrPort(conn.RemoteAddr().String()); err == nil && inbound {
		p.ip = ap.Addr().Unmap()
	}
	if p.cfg.isWhitelisted(p.ip) {
		p.perms = permImplicit.ResolveImplicit(true, false)
	}
	p.addrTokensTime = p.connTime
	p.wq.init(&p.cfg)
	return p
}

// Start runs the handshake and the message loops in the background; later
// calls do nothing. Done is closed only after Start. Use
// WaitForHandshake or the OnVerAck listener to learn when the peer is
// ready, and Done or WaitForDisconnect to learn when it is gone.
func (p *Peer) Start() {
	if !p.started.CompareAndSwap(false, true) {
		return
	}
	p.wg.Add(2)
	go p.writeLoop()
	go p.readLoop()
	go func() {
		p.wg.Wait()
		p.wq.release()
		close(p.done)
	}()
	if !p.inbound {
		p.sendVersion()
	}
}

// Disconnect closes the connection. It may be called any number of times.
func (p *Peer) Disconnect() { p.disconnect(ErrDisconnected) }

func (p *Peer) disconnect(reason error) {
	first := false
	p.discOnce.Do(func() {
		first = true
		p.errMu.Lock()
		p.err = reason
		p.errMu.Unlock()
		close(p.quit)
	})
	if !first {
		return
	}
	if !errors.Is(reason, ErrDisconnected) {
		p.cfg.Log.Debugf("Disconnecting %v: %v", p, reason)
	}
	// Outside the Once: closing a connection manager's conn runs its
	// callbacks, which may call Disconnect again.
	p.conn.Close()
	p.wq.close()
}

func (p *Peer) disconnectf(kind ErrorKind, format string, args ...any) {
	p.disconnect(fmt.Errorf("%w: %s", kind, fmt.Sprintf(format, args...)))
}

// Err returns why the peer disconnected, or nil while connected.
func (p *Peer) Err() error {
	p.errMu.Lock()
	defer p.errMu.Unlock()
	return p.err
}

// Connected reports whether the peer has not been disconnected.
func (p *Peer) Connected() bool {
	select {
	case <-p.quit:
		return false
	default:
		return true
	}
}

// Done is closed once the peer is disconnected and its goroutines have
// exited.
func (p *Peer) Done() <-chan struct{} { return p.done }

// WaitForDisconnect blocks until Done is closed.
func (p *Peer) WaitForDisconnect() { <-p.done }

// HandshakeDone is closed when version and verack have been exchanged both
// ways.
func (p *Peer) HandshakeDone() <-chan struct{} { return p.handshakeDone }

// WaitForHandshake waits for the handshake and reports whether it
// completed before the peer disconnected.
func (p *Peer) WaitForHandshake() bool {
	select {
	case <-p.handshakeDone:
		return true
	case <-p.quit:
		return false
	}
}

func (p *Peer) handshakeComplete() bool {
	select {
	case <-p.handshakeDone:
		return true
	default:
		return false
	}
}

// String identifies the peer in logs.
func (p *Peer) String() string {
	dir := "outbound"
	if p.inbound {
		dir = "inbound"
	}
	return fmt.Sprintf("%s (%s, id %d)", p.addr, dir, p.id)
}

// ID returns the peer's process-unique id.
func (p *Peer) ID() int32 { return p.id }

// Addr returns the remote address as host:port.
func (p *Peer) Addr() string { return p.addr }

// IP returns the remote IP, invalid when unknown (for example a .onion
// peer reached through a proxy).
func (p *Peer) IP() netip.Addr { return p.ip }

// Inbound reports whether the remote connected to us.
func (p *Peer) Inbound() bool { return p.inbound }

// Whitelisted reports whether the peer has the noban permission.
func (p *Peer) Whitelisted() bool { return p.perms.Has(PermNoBan) }

// SetPermissions sets what the peer may do (--whitelist, --whitebind).
// It must be called before Start.
func (p *Peer) SetPermissions(perms Permissions) { p.perms = perms }

// Permissions returns the peer's permissions.
func (p *Peer) Permissions() Permissions { return p.perms }

// HasPermission reports whether the peer has every flag of f.
func (p *Peer) HasPermission(f Permissions) bool { return p.perms.Has(f) }

// requiredServices is what a peer offering offered must have:
// RequiredServices, where NODE_NETWORK_LIMITED stands in for NODE_NETWORK
// near the tip if the peer offers it (Core's GetDesirableServiceFlags).
func (p *Peer) requiredServices(offered wire.ServiceFlag) wire.ServiceFlag {
	want := p.cfg.RequiredServices
	if want&wire.SFNodeNetwork != 0 && offered&wire.SFNodeNetworkLimited != 0 && p.cfg.NearTip != nil && p.cfg.NearTip() {
		want = want&^wire.SFNodeNetwork | wire.SFNodeNetworkLimited
	}
	return want
}

// SetManual marks a connection the operator asked for (addnode,
// --connect): like Core, misbehaviour does not disconnect it. It must be
// called before Start.
func (p *Peer) SetManual() { p.connType = ConnManual }

// Manual reports whether the connection is a manual one.
func (p *Peer) Manual() bool { return p.connType == ConnManual }

// SetConnType sets an outbound connection's type; it must be called
// before Start. Outbound peers are full-relay by default.
func (p *Peer) SetConnType(t ConnType) { p.connType = t }

// ConnType returns the connection's type as getpeerinfo names it.
func (p *Peer) ConnType() ConnType {
	if p.inbound {
		return ConnInbound
	}
	if p.connType == "" {
		return ConnFullRelay
	}
	return p.connType
}

// rejectsTxs reports whether the peer may not send us transactions (Core's
// RejectIncomingTxs): on a block-relay-only connection or a feeler, and
// under --blocksonly unless it has the relay permission. Our version
// message tells the peer so (its relay flag).
func (p *Peer) rejectsTxs() bool {
	return p.connType == ConnBlockRelay || p.connType == ConnFeeler || (p.cfg.DisableRelayTx && !p.perms.Has(PermRelay))
}

// ProtocolVersion returns the negotiated protocol version: the lower of
// ours and the remote's, or ours before the remote's is known.
func (p *Peer) ProtocolVersion() uint32 { return p.pver.Load() }

// The following return what the remote announced; they are zero until
// the version message has been processed.

// Services returns the remote's service flags.
func (p *Peer) Services() wire.ServiceFlag {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.services
}

// UserAgent returns the remote's user agent.
func (p *Peer) UserAgent() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.userAgent
}

// StartingHeight returns the height the remote announced in its version.
func (p *Peer) StartingHeight() int32 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.startingHeight
}

// TimeOffset returns the remote clock minus ours, in seconds, as of the
// version message.
func (p *Peer) TimeOffset() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.timeOffset
}

// RelayTx reports whether the remote wants transaction announcements.
func (p *Peer) RelayTx() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.relayTx
}

// WantsWtxid reports whether transactions are announced and requested by
// wtxid (BIP339).
func (p *Peer) WantsWtxid() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.wtxidRelay
}

// WantsAddrV2 reports whether the remote asked for addrv2 (BIP155).
func (p *Peer) WantsAddrV2() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addrV2
}

// WantsHeaders reports whether the remote asked for headers announcements
// (BIP130).
func (p *Peer) WantsHeaders() bool { return p.sendHeaders.Load() }

// FeeFilter returns the remote's feefilter in satoshis per kvB.
func (p *Peer) FeeFilter() int64 { return p.feeFilter.Load() }

// CompactBlocks returns the compact block version the remote announced
// (0 if none) and whether it asked for high-bandwidth mode.
func (p *Peer) CompactBlocks() (version uint64, highBandwidth bool) {
	return p.cmpctVersion.Load(), p.cmpctHB.Load()
}

// LastBlock returns the best height known for the remote: the starting
// height, raised by UpdateLastBlockHeight.
func (p *Peer) LastBlock() int32 { return p.lastBlock.Load() }

// UpdateLastBlockHeight records that the remote has a block at height.
func (p *Peer) UpdateLastBlockHeight(height int32) {
	for {
		cur := p.lastBlock.Load()
		if height <= cur || p.lastBlock.CompareAndSwap(cur, height) {
			return
		}
	}
}

// MarkNewTx records that the peer just gave us a transaction we accepted
// to the mempool, and MarkNewBlock a block new to us; inbound eviction
// protects the peers that did so most recently, as Core does.
func (p *Peer) MarkNewTx() { p.lastNewTx.Store(clock.Now().UnixNano()) }

// MarkNewBlock: see MarkNewTx.
func (p *Peer) MarkNewBlock() { p.lastNewBl.Store(clock.Now().UnixNano()) }

// Misbehaving adds howmuch to the peer's score. At the ban threshold the
// peer is disconnected and its address banned, except that whitelisted
// peers are neither banned nor disconnected and loopback peers are only
// disconnected. It returns true when the peer was disconnected for it.
func (p *Peer) Misbehaving(howmuch int, reason string) bool {
	if howmuch <= 0 {
		return false
	}
	p.mu.Lock()
	before := p.banScore
	p.banScore += uint32(howmuch)
	score := p.banScore
	p.mu.Unlock()
	p.cfg.Log.Debugf("Misbehaving %v: %s (score %d -> %d)", p, reason, before, score)
	if score < p.cfg.BanThreshold || before >= p.cfg.BanThreshold {
		return false
	}
	if p.perms.Has(PermNoBan) {
		p.cfg.Log.Infof("Warning: not punishing noban peer %d! (%s)", p.id, reason)
		return false
	}
	if p.connType == ConnManual {
		p.cfg.Log.Infof("Warning: not punishing manually connected peer %d! (%s)", p.id, reason)
		return false
	}
	switch {
	case p.ip.IsLoopback() || !p.ip.IsValid():
		// Like Core, disconnect local peers without banning: inbound
		// connections through a Tor or I2P daemon all come from
		// loopback, so a ban would shut out every such peer.
		p.cfg.Log.Infof("Disconnecting local peer %v without banning: %s (score %d)", p, reason, score)
	case p.cfg.Bans != nil:
		p.cfg.Bans.Ban(p.ip, reason)
		p.cfg.Log.Infof("Banning %v: %s (score %d)", p, reason, score)
	}
	p.disconnectf(ErrBanned, "%s", reason)
	return true
}

// BanScore returns the current misbehaviour score.
func (p *Peer) BanScore() uint32 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.banScore
}

// misbehaveAndDisconnect scores a violation and drops the connection (if
// the score did not already).
func (p *Peer) misbehaveAndDisconnect(howmuch int, kind ErrorKind, reason string) {
	if !p.Misbehaving(howmuch, reason) {
		p.disconnectf(kind, "%s", reason)
	}
}

// StatsSnap is a snapshot of a peer's statistics for getpeerinfo.
type StatsSnap struct {
	ID              int32
	Addr            string
	Inbound         bool
	Whitelisted     bool
	Permissions     Permissions
	Services        wire.ServiceFlag
	UserAgent       string
	Version         uint32
	ConnTime        time.Time
	TimeOffset      int64
	StartingHeight  int32
	LastBlock       int32
	RelayTx         bool
	WtxidRelay      bool
	AddrV2          bool
	SendHeaders     bool
	FeeFilter       int64
	LastSend        time.Time
	LastRecv        time.Time
	BytesSent       uint64
	BytesRecv       uint64
	BytesSentPerMsg map[string]uint64
	BytesRecvPerMsg map[string]uint64
	PingWait        time.Duration // time since an unanswered ping was sent
	LastPingRTT     time.Duration
	MinPingRTT      time.Duration
	BanScore        uint32
	QueuedBytes     int
	// AddrRelayEnabled is getpeerinfo's addr_relay_enabled: outbound
	// peers other than block-relay-only ones from the handshake on,
	// inbound peers once they sent addr, addrv2 or getaddr.
	AddrRelayEnabled bool
	AddrProcessed    uint64
	AddrRateLimited  uint64
	HandshakeDone    bool
	// VersionReceived: the peer's version message has arrived, so
	// Version, Services and StartingHeight are its own.
	VersionReceived bool
	// LastNewTx and LastNewBlock are when the peer last gave us a new
	// transaction or block; zero means never (getpeerinfo's
	// last_transaction and last_block).
	LastNewTx    time.Time
	LastNewBlock time.Time
}

// Stats returns a snapshot of the peer's statistics.
func (p *Peer) Stats() StatsSnap {
	s := StatsSnap{
		ID:          p.id,
		Addr:        p.addr,
		Inbound:     p.inbound,
		Whitelisted: p.perms.Has(PermNoBan),
		Permissions: p.perms,
		ConnTime:    p.connTime,
		Version:     p.pver.Load(),
		LastBlock:   p.lastBlock.Load(),
		SendHeaders: p.sendHeaders.Load(),
		FeeFilter:   p.feeFilter.Load(),
		BytesSent:   p.bytesSent.Load(),
		BytesRecv:   p.bytesRecv.Load(),
		QueuedBytes: p.wq.queuedBytes(),
	}
	if t := p.lastSend.Load(); t != 0 {
		s.LastSend = time.Unix(0, t)
	}
	if t := p.lastRecv.Load(); t != 0 {
		s.LastRecv = time.Unix(0, t)
	}
	if t := p.lastNewTx.Load(); t != 0 {
		s.LastNewTx = time.Unix(0, t)
	}
	if t := p.lastNewBl.Load(); t != 0 {
		s.LastNewBlock = time.Unix(0, t)
	}
	s.HandshakeDone = p.handshakeComplete()
	p.mu.Lock()
	s.Services, s.UserAgent = p.services, p.userAgent
	if p.remoteVersion != 0 {
		s.Version = p.remoteVersion
		s.VersionReceived = true
	}
	s.TimeOffset, s.StartingHeight = p.timeOffset, p.startingHeight
	s.RelayTx, s.WtxidRelay, s.AddrV2 = p.relayTx, p.wtxidRelay, p.addrV2
	s.BytesSentPerMsg = make(map[string]uint64, len(p.sentPerCmd))
	for k, v := range p.sentPerCmd {
		s.BytesSentPerMsg[k] = v
	}
	s.BytesRecvPerMsg = make(map[string]uint64, len(p.recvPerCmd))
	for k, v := range p.recvPerCmd {
		s.BytesRecvPerMsg[k] = v
	}
	if p.pingNonce != 0 {
		s.PingWait = clock.Since(p.pingStart)
	}
	s.LastPingRTT, s.MinPingRTT = p.lastPingRTT, p.minPingRTT
	s.BanScore = p.banScore
	p.mu.Unlock()
	s.AddrRelayEnabled = p.addrRelay.Load()
	p.addrMu.Lock()
	s.AddrProcessed, s.AddrRateLimited = p.addrProcessed, p.addrRateLimited
	p.addrMu.Unlock()
	return s
}

// noteRecv records n bytes read from the socket. As in Core, the totals
// (getpeerinfo's bytesrecv, getnettotals) and the last receive time move
// as bytes arrive, also while a message is still incomplete.
func (p *Peer) noteRecv(n int) {
	p.bytesRecv.Add(uint64(n))
	p.lastRecv.Store(clock.Now().UnixNano())
}

// countRecv records a received message of n bytes in the per-command
// counters; its bytes entered the totals as they arrived (noteRecv).
func (p *Peer) countRecv(cmd string, n int) {
	p.mu.Lock()
	if _, ok := p.recvPerCmd[cmd]; ok || len(p.recvPerCmd) < 64 {
		// Bounded: unknown commands are attacker-chosen strings.
		p.recvPerCmd[cmd] += uint64(n)
	} else {
		p.recvPerCmd["*other*"] += uint64(n)
	}
	p.mu.Unlock()
}

func (p *Peer) countSent(cmd string, n int) {
	p.bytesSent.Add(uint64(n))
	p.lastSend.Store(clock.Now().UnixNano())
	p.mu.Lock()
	p.sentPerCmd[cmd] += uint64(n)
	p.mu.Unlock()
}

// LocalAddr is our end of the connection (getpeerinfo's addrbind).
func (p *Peer) LocalAddr() net.Addr { return p.conn.LocalAddr() }

// AddrLocal returns our address as the remote reported seeing it in its
// version message (getpeerinfo's addrlocal); invalid when it sent none.
func (p *Peer) AddrLocal() netip.AddrPort {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addrMe
}

// NetAddress returns the remote address in addrv2 form with the services
// it announced, for the address manager; ok is false when the remote has
// no IP (a peer reached by name through a proxy).
func (p *Peer) NetAddress() (na wire.NetAddressV2, ok bool) {
	ap, err := netip.ParseAddrPort(p.addr)
	if err != nil || !p.ip.IsValid() {
		return na, false
	}
	p.mu.Lock()
	services := p.services
	p.mu.Unlock()
	return wire.NetAddressV2FromNetAddress(wire.NewNetAddress(netip.AddrPortFrom(p.ip, ap.Port()), services, uint32(clock.Unix()))), true
}
