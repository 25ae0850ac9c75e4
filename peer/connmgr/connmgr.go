package connmgr

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults follow Bitcoin Core and btcd.
const (
	// DefaultTargetOutbound is the number of automatic full-relay outbound
	// connections (Core's MAX_OUTBOUND_FULL_RELAY_CONNECTIONS).
	DefaultTargetOutbound = 8
	// DefaultTargetBlockRelay is Core's number of additional block-relay-
	// only outbound connections (MAX_BLOCK_RELAY_ONLY_CONNECTIONS): they
	// relay neither transactions nor addresses, so an attacker watching
	// those cannot find them, and they keep us on the best chain if our
	// full-relay peers are eclipsed. The server opts in by setting
	// Config.TargetBlockRelay.
	DefaultTargetBlockRelay = 2
	// DefaultMaxPeers is the default total connection limit.
	DefaultMaxPeers = 125
	// DefaultRetryBase is the first retry delay of a persistent peer.
	DefaultRetryBase = 5 * time.Second
	// DefaultMaxRetry caps the exponential back-off.
	DefaultMaxRetry = 5 * time.Minute
	// stableConnection is how long a persistent connection must last for
	// its back-off to start over.
	stableConnection = time.Minute
	// DefaultAttemptInterval paces automatic outbound attempts, as in
	// Core, so an address manager full of dead addresses does not make
	// the node spin.
	DefaultAttemptInterval = 500 * time.Millisecond
)

// ConnState is the state of a connection request.
type ConnState int32

// Connection request states.
const (
	ConnPending ConnState = iota
	ConnEstablished
	ConnFailed
	ConnWaiting // waiting to retry
	ConnRemoved
)

// ConnReq is one outbound connection the manager maintains.
type ConnReq struct {
	// ID identifies the request to Remove.
	ID uint64
	// Addr is the host:port dialed.
	Addr string
	// Permanent requests (--connect, --addpeer) are retried forever;
	// automatic ones are replaced by another address when they end.
	Permanent bool
	// BlockRelayOnly marks an automatic connection made for
	// TargetBlockRelay; the server must configure its peer to relay
	// neither transactions nor addresses.
	BlockRelayOnly bool
	// OneShot requests (ConnectOneShot) are dialed once and never
	// replaced: they use none of the automatic slots.
	OneShot bool

	state     atomic.Int32
	group     string // network group of an automatic request
	retries   int
	connected time.Time
	timer     *time.Timer
}

// State returns the request's current state.
func (c *ConnReq) State() ConnState { return ConnState(c.state.Load()) }

// Config configures a Manager.
type Config struct {
	// Listeners accept inbound connections; they are closed by Stop.
	Listeners []net.Listener
	// OnAccept receives each inbound connection accepted within the
	// inbound limit. Closing the conn frees its slot.
	OnAccept func(conn net.Conn)
	// OnConnection receives each established outbound connection.
	// Closing the conn frees its slot (and schedules a retry when the
	// request is permanent).
	OnConnection func(req *ConnReq, conn net.Conn)
	// OnDisconnection is told when an outbound connection's conn closes.
	OnDisconnection func(req *ConnReq)
	// EvictInbound is called when an inbound connection arrives and every
	// inbound slot is taken. It should disconnect one inbound peer (see
	// SelectEviction) and report whether it did; if so the new connection
	// is accepted, otherwise it is dropped. Nil drops it.
	EvictInbound func() bool
	// IsBanned rejects inbound connections and automatic outbound
	// addresses; nil bans nothing.
	IsBanned func(addr netip.Addr) bool
	// GetNewAddress returns a candidate for an automatic outbound
	// connection; nil disables automatic connections (--connect).
	GetNewAddress func() (string, error)
	// OutboundGroup returns the network group of a host:port (see
	// addrmgr.GroupKey); when set, automatic connections go to at most one
	// address per group, as Core does, so one operator cannot hold
	// several of our outbound slots.
	OutboundGroup func(addr string) string
	// Dial connects; nil means a direct TCP dial with a 30 s timeout.
	Dial DialFunc
	// TargetOutbound is the number of automatic full-relay outbound
	// connections; zero means DefaultTargetOutbound.
	TargetOutbound int
	// TargetBlockRelay is the number of automatic block-relay-only
	// outbound connections made in addition (see
	// DefaultTargetBlockRelay); zero means none.
	TargetBlockRelay int
	// MaxPeers caps inbound plus outbound connections; inbound
	// connections get what the outbound target leaves. Zero means
	// DefaultMaxPeers.
	MaxPeers int
	// MaxInbound, when positive, is the inbound limit instead of what
	// MaxPeers leaves after the outbound targets (see CoreInboundSlots).
	MaxInbound int
	// AttemptInterval is the pause between automatic connection
	// attempts; zero means DefaultAttemptInterval.
	AttemptInterval time.Duration
	// RetryBase and MaxRetry shape the back-off of permanent requests;
	// zero means the defaults.
	RetryBase, MaxRetry time.Duration
}

// Manager maintains outbound connections and accepts inbound ones. It is
// safe for concurrent use.
type Manager struct {
	cfg    Config
	nextID atomic.Uint64
	// ctx is cancelled by Stop to abort dials in progress.
	ctx    context.Context
	cancel context.CancelFunc
	quit   chan struct{}
	wake   chan struct{}
	wg     sync.WaitGroup

	mu       sync.Mutex
	reqs     map[uint64]*ConnReq
	auto     int // automatic full-relay requests pending or established
	autoBR   int // automatic block-relay-only requests
	inbound  int
	started  bool
	stopped  bool
	stopOnce sync.Once
}

// New returns a Manager; call Start to begin.
func New(cfg Config) *Manager {
	if cfg.TargetOutbound <= 0 {
		cfg.TargetOutbound = DefaultTargetOutbound
	}
	if cfg.MaxPeers <= 0 {
		cfg.MaxPeers = DefaultMaxPeers
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = DefaultRetryBase
	}
	if cfg.MaxRetry <= 0 {
		cfg.MaxRetry = DefaultMaxRetry
	}
	if cfg.AttemptInterval <= 0 {
		cfg.AttemptInterval = DefaultAttemptInterval
	}
	if cfg.Dial == nil {
		cfg.Dial = NewDialer(DialConfig{})
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{
		cfg:    cfg,
		ctx:    ctx,
		cancel: cancel,
		quit:   make(chan struct{}),
		wake:   make(chan struct{}, 1),
		reqs:   make(map[uint64]*ConnReq),
	}
}

// CoreInboundSlots is bitcoind's inbound limit for -maxconnections=maxConns:
// what is left after the full-relay and block-relay-only outbound slots
// and one feeler, whether or not automatic connections are made.
func CoreInboundSlots(maxConns int) int {
	full := min(DefaultTargetOutbound, maxConns)
	blockRelay := min(DefaultTargetBlockRelay, maxConns-full)
	return max(0, maxConns-full-blockRelay-1)
}

// InboundLimit is the number of inbound connections allowed.
func (m *Manager) InboundLimit() int {
	if m.cfg.MaxInbound > 0 {
		return m.cfg.MaxInbound
	}
	n := m.cfg.MaxPeers - m.cfg.TargetOutbound - m.cfg.TargetBlockRelay
	if n < 0 {
		return 0
	}
	return n
}

// Start begins accepting and, if GetNewAddress is set, connecting.
func (m *Manager) Start() {
	m.mu.Lock()
	if m.started || m.stopped {
		m.mu.Unlock()
		return
	}
	m.started = true
	m.wg.Add(len(m.cfg.Listeners))
	if m.cfg.GetNewAddress != nil {
		m.wg.Add(1)
	}
	m.mu.Unlock()
	for _, l := range m.cfg.Listeners {
		go m.acceptLoop(l)
	}
	if m.cfg.GetNewAddress != nil {
		go m.autoLoop()
	}
}

// Stop closes the listeners, cancels pending dials and retries and waits
// for the manager's goroutines. Established connections are left to their
// owners.
func (m *Manager) Stop() {
	m.stopOnce.Do(func() {
		m.mu.Lock()
		m.stopped = true
		for _, r := range m.reqs {
			if r.timer != nil {
				r.timer.Stop()
			}
		}
		m.mu.Unlock()
		close(m.quit)
		m.cancel()
		for _, l := range m.cfg.Listeners {
			l.Close()
		}
		m.wg.Wait()
	})
}

// Connect adds an outbound connection request to addr (host:port) and
// starts dialing. Permanent requests are retried until removed.
func (m *Manager) Connect(addr string, permanent bool) (*ConnReq, error) {
	req := &ConnReq{ID: m.nextID.Add(1), Addr: addr, Permanent: permanent}
	m.mu.Lock()
	if m.stopped {
		m.mu.Unlock()
		return nil, ErrStopped
	}
	m.reqs[req.ID] = req
	m.mu.Unlock()
	m.dial(req)
	return req, nil
}

// ConnectOneShot dials addr once, outside the automatic slots and
// without retries (regtest's addconnection).
func (m *Manager) ConnectOneShot(addr string) (*ConnReq, error) {
	req := &ConnReq{ID: m.nextID.Add(1), Addr: addr, OneShot: true}
	m.mu.Lock()
	if m.stopped {
		m.mu.Unlock()
		return nil, ErrStopped
	}
	m.reqs[req.ID] = req
	m.mu.Unlock()
	m.dial(req)
	return req, nil
}

// Remove drops a request: it is no longer retried, and its connection, if
// any, is left to its owner to close.
func (m *Manager) Remove(id uint64) {
	m.mu.Lock()
	req, ok := m.reqs[id]
	if ok {
		delete(m.reqs, id)
		req.state.Store(int32(ConnRemoved))
		if req.timer != nil {
			req.timer.Stop()
		}
	}
	m.mu.Unlock()
}

// Requests returns the current outbound requests.
func (m *Manager) Requests() []*ConnReq {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*ConnReq, 0, len(m.reqs))
	for _, r := range m.reqs {
		out = append(out, r)
	}
	return out
}

// Counts returns the numbers of established outbound and inbound
// connections.
func (m *Manager) Counts() (outbound, inbound int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.reqs {
		if r.State() == ConnEstablished {
			outbound++
		}
	}
	return outbound, m.inbound
}

// retryDelay is the back-off before attempt number retries+1.
func (m *Manager) retryDelay(retries int) time.Duration {
	d := m.cfg.RetryBase
	for i := 0; i < retries && d < m.cfg.MaxRetry; i++ {
		d *= 2
	}
	return min(d, m.cfg.MaxRetry)
}

func (m *Manager) dial(req *ConnReq) {
	// wg.Add happens under the lock that Stop takes before it waits, so
	// no dial can start once Stop is waiting.
	m.mu.Lock()
	if m.stopped {
		m.mu.Unlock()
		if !req.Permanent {
			m.autoDone(req)
		}
		return
	}
	m.wg.Add(1)
	m.mu.Unlock()
	req.state.Store(int32(ConnPending))
	go func() {
		defer m.wg.Done()
		// bitcoind's wording, which its tests wait for.
		log.Debugf("trying v1 connection %s", req.Addr)
		conn, err := m.cfg.Dial(m.ctx, req.Addr)
		if err != nil {
			log.Debug(ConnectError(req.Addr, err))
			m.failed(req)
			return
		}
		m.mu.Lock()
		if m.stopped || req.State() == ConnRemoved {
			m.mu.Unlock()
			conn.Close()
			if !req.Permanent {
				m.autoDone(req)
			}
			return
		}
		req.state.Store(int32(ConnEstablished))
		req.connected = time.Now()
		m.mu.Unlock()
		log.Debugf("Connected to %s", req.Addr)
		tc := &trackedConn{Conn: conn}
		tc.onClose = func() { m.closed(req) }
		if m.cfg.OnConnection != nil {
			m.cfg.OnConnection(req, tc)
		}
	}()
}

// failed handles a dial error: permanent requests retry after back-off,
// automatic ones give their slot to another address.
func (m *Manager) failed(req *ConnReq) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped || req.State() == ConnRemoved {
		if !req.Permanent {
			m.autoDoneLocked(req)
		}
		return
	}
	if !req.Permanent {
		req.state.Store(int32(ConnFailed))
		delete(m.reqs, req.ID)
		m.autoDoneLocked(req)
		return
	}
	m.scheduleRetryLocked(req)
}

func (m *Manager) scheduleRetryLocked(req *ConnReq) {
	req.retries++
	d := m.retryDelay(req.retries - 1)
	req.state.Store(int32(ConnWaiting))
	log.Debugf("Retrying %s in %v", req.Addr, d)
	req.timer = time.AfterFunc(d, func() {
		m.mu.Lock()
		ok := !m.stopped && req.State() == ConnWaiting
		m.mu.Unlock()
		if ok {
			m.dial(req)
		}
	})
}

// closed handles the end of an established outbound connection.
func (m *Manager) closed(req *ConnReq) {
	if m.cfg.OnDisconnection != nil {
		m.cfg.OnDisconnection(req)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !req.Permanent {
		delete(m.reqs, req.ID)
		if req.State() != ConnRemoved {
			req.state.Store(int32(ConnFailed))
		}
		m.autoDoneLocked(req)
		return
	}
	if m.stopped || req.State() == ConnRemoved {
		return
	}
	if time.Since(req.connected) >= stableConnection {
		req.retries = 0
	}
	m.scheduleRetryLocked(req)
}

func (m *Manager) autoDone(req *ConnReq) {
	m.mu.Lock()
	m.autoDoneLocked(req)
	m.mu.Unlock()
}

func (m *Manager) autoDoneLocked(req *ConnReq) {
	if req.OneShot {
		delete(m.reqs, req.ID)
		return
	}
	switch {
	case req.BlockRelayOnly && m.autoBR > 0:
		m.autoBR--
	case !req.BlockRelayOnly && m.auto > 0:
		m.auto--
	}
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// autoLoop keeps TargetOutbound full-relay and TargetBlockRelay
// block-relay-only automatic connections open or pending.
func (m *Manager) autoLoop() {
	defer m.wg.Done()
	tick := time.NewTicker(m.cfg.AttemptInterval)
	defer tick.Stop()
	for {
		m.fillOutbound()
		select {
		case <-m.quit:
			return
		case <-m.wake:
		case <-tick.C:
		}
	}
}

// fillOutbound starts at most one automatic connection per call, so a run
// of dead addresses is paced by AttemptInterval.
func (m *Manager) fillOutbound() {
	m.mu.Lock()
	needFull := m.auto < m.cfg.TargetOutbound
	needBR := m.autoBR < m.cfg.TargetBlockRelay
	stopped := m.stopped
	m.mu.Unlock()
	if stopped || (!needFull && !needBR) {
		return
	}
	// Full-relay slots fill first.
	blockRelay := !needFull
	// Bounded: the address manager may keep returning addresses we are
	// already connected to.
	for range 20 {
		addr, err := m.cfg.GetNewAddress()
		if err != nil || addr == "" {
			return
		}
		if m.cfg.IsBanned != nil {
			if ap, err := netip.ParseAddrPort(addr); err == nil && m.cfg.IsBanned(ap.Addr()) {
				continue
			}
		}
		var grp string
		if m.cfg.OutboundGroup != nil {
			grp = m.cfg.OutboundGroup(addr)
		}
		m.mu.Lock()
		dup := false
		for _, r := range m.reqs {
			if r.Addr == addr || (grp != "" && !r.Permanent && r.group == grp) {
				dup = true
				break
			}
		}
		if dup || m.stopped {
			m.mu.Unlock()
			continue
		}
		req := &ConnReq{ID: m.nextID.Add(1), Addr: addr, group: grp, BlockRelayOnly: blockRelay}
		m.reqs[req.ID] = req
		if blockRelay {
			m.autoBR++
		} else {
			m.auto++
		}
		m.mu.Unlock()
		m.dial(req)
		return
	}
}

func (m *Manager) acceptLoop(l net.Listener) {
	defer m.wg.Done()
	for {
		conn, err := l.Accept()
		if err != nil {
			select {
			case <-m.quit:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			log.Warnf("Accept on %v: %v", l.Addr(), err)
			select {
			case <-m.quit:
				return
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		if m.cfg.IsBanned != nil {
			if ap, err := netip.ParseAddrPort(conn.RemoteAddr().String()); err == nil && m.cfg.IsBanned(ap.Addr()) {
				// bitcoind's words, which Core's tests look for.
				log.Debugf("connection from %v dropped (banned)", conn.RemoteAddr())
				conn.Close()
				continue
			}
		}
		m.mu.Lock()
		full := m.inbound >= m.InboundLimit()
		m.mu.Unlock()
		// The evicted peer's slot frees when its conn closes, which may be
		// a moment later; meanwhile the count runs one over the limit, as
		// in Core.
		if full && m.InboundLimit() > 0 && m.cfg.EvictInbound != nil && m.cfg.EvictInbound() {
			full = false
		}
		if !full {
			m.mu.Lock()
			m.inbound++
			m.mu.Unlock()
		}
		if full {
			log.Debugf("Rejecting inbound %v: %d inbound connections", conn.RemoteAddr(), m.InboundLimit())
			conn.Close()
			continue
		}
		tc := &trackedConn{Conn: conn, onClose: func() {
			m.mu.Lock()
			m.inbound--
			m.mu.Unlock()
		}}
		if m.cfg.OnAccept != nil {
			m.cfg.OnAccept(tc)
		} else {
			tc.Close()
		}
	}
}

// trackedConn tells the manager when its owner closes it.
type trackedConn struct {
	net.Conn
	once    sync.Once
	onClose func()
}

// Close closes the connection and frees its slot once.
func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.onClose)
	return err
}
