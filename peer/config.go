package peer

import (
	"net/netip"
	"strings"
	"time"

	"github.com/btcnode/btcd/peer/banmgr"
	"github.com/btcnode/btcd/wire"
	"github.com/btcsuite/btclog"
)

// Protocol and policy defaults; the Bitcoin Core constant each mirrors is
// named where there is one.
const (
	// DefaultMinProtocolVersion is the oldest peer version accepted. Core
	// accepts 31800, but a peer without the BIP37 relay flag (70001) could
	// not tell us whether it wants transactions, and btcd uses the same
	// floor.
	DefaultMinProtocolVersion uint32 = wire.BIP0037Version
	// DefaultHandshakeTimeout is Core's -peertimeout default: how long a
	// new connection is left alone before the inactivity checks (no
	// message yet, handshake unfinished) may drop it.
	DefaultHandshakeTimeout = 60 * time.Second
	// DefaultIdleTimeout disconnects a peer we have sent nothing to, or
	// received nothing from, for this long (Core's TIMEOUT_INTERVAL, 20
	// minutes).
	DefaultIdleTimeout = 20 * time.Minute
	// DefaultPingInterval is how often a ping is sent (Core's
	// PING_INTERVAL).
	DefaultPingInterval = 2 * time.Minute
	// DefaultPingTimeout disconnects a peer that leaves a ping unanswered
	// (Core's TIMEOUT_INTERVAL).
	DefaultPingTimeout = 20 * time.Minute
	// DefaultWriteTimeout disconnects a peer that stops reading while we
	// have something to send.
	DefaultWriteTimeout = 2 * time.Minute
	// DefaultLocalAddrInterval is the mean interval between announcements
	// of our own address (Core's AVG_LOCAL_ADDRESS_BROADCAST_INTERVAL).
	DefaultLocalAddrInterval = 24 * time.Hour
	// DefaultAddrInterval is the mean interval between addr messages to
	// one peer (Core's AVG_ADDRESS_BROADCAST_INTERVAL): addresses to relay
	// wait for the next one, so their timing says less about their source.
	DefaultAddrInterval = 30 * time.Second
	// DefaultSendBufferSize is the soft limit on queued bytes:
	// QueueMessageWait blocks above it, which pauses that peer's reading
	// the way Core pauses a peer whose send buffer is full.
	DefaultSendBufferSize = 5_000_000
	// DefaultMaxQueuedBytes is the hard limit; a peer whose queue would
	// exceed it is disconnected. It leaves room for the soft limit plus a
	// maximal block plus announcements.
	DefaultMaxQueuedBytes = 12_000_000
	// DefaultBanThreshold is the misbehaviour score that bans a peer.
	DefaultBanThreshold = 100
	// DefaultInboundTrickle and DefaultOutboundTrickle are the mean
	// intervals between transaction announcements (Core's
	// INBOUND_INVENTORY_BROADCAST_INTERVAL and
	// OUTBOUND_INVENTORY_BROADCAST_INTERVAL); the actual delays are
	// exponentially distributed so the timing leaks less about where a
	// transaction came from.
	DefaultInboundTrickle  = 5 * time.Second
	DefaultOutboundTrickle = 2 * time.Second
	// MaxInvPerTrickle caps one trickled announcement (Core's
	// INVENTORY_BROADCAST_MAX).
	MaxInvPerTrickle = 1000
	// maxPendingInv bounds transactions waiting to be announced, about
	// 1 MB per peer; beyond it announcements are dropped (the peer can
	// still learn of them from others or in blocks).
	maxPendingInv = 20000
	// maxKnownInv is how many announced or received inventory hashes a
	// peer remembers, so they are not announced back to it.
	maxKnownInv = 4096
	// Address rate limiting (Core's MAX_ADDR_RATE_PER_SECOND and
	// MAX_ADDR_PROCESSING_TOKEN_BUCKET).
	addrRatePerSecond  = 0.1
	addrTokenBucketMax = wire.MaxAddrPerMsg
	// maxKnownAddrs is how many addresses a peer is remembered to know
	// (the size of Core's m_addr_known filter), so they are not sent
	// back to it.
	maxKnownAddrs = 5000
	// addrFetchTimeout ends an addr-fetch connection that sent no
	// addresses (Core: ten address broadcast intervals).
	addrFetchTimeout = 5 * time.Minute
	// tickInterval is how often a peer checks its timers (pings,
	// timeouts, address sends) against the node clock, which tests move
	// with setmocktime; a clock change is also acted on at once.
	tickInterval = 100 * time.Millisecond
	// maxMoney bounds a feefilter value (Core's MAX_MONEY).
	maxMoney = 21_000_000 * 100_000_000
)

// Misbehaviour penalties the peer applies itself. The caller scores
// invalid blocks, headers and transactions and unrequested data through
// Misbehaving. These framing and protocol penalties are below the default
// threshold, as Bitcoin Core only disconnects for them, so one broken
// message drops the connection without banning; repeated offenders
// accumulate no score across connections, but a peer that also sends
// invalid data reaches the threshold sooner. Like Core, messages before
// version, a repeated version and late feature negotiation are not
// scored: the first two are ignored, the last only disconnects.
const (
	PenaltyBadChecksum  = 10
	PenaltyWrongNetwork = 10
	PenaltyOversized    = 20 // also an addr or addrv2 of over 1000 entries
	PenaltyMalformed    = 10
	PenaltyProtocol     = 10 // other protocol violations
)

// Services returns the service flags a node advertises: Bitcoin Core sets
// NODE_NETWORK_LIMITED and NODE_WITNESS always, NODE_NETWORK unless
// pruned, and NODE_COMPACT_FILTERS when it serves BIP157 filters.
func Services(pruned, compactFilters bool) wire.ServiceFlag {
	s := wire.SFNodeNetworkLimited | wire.SFNodeWitness
	if !pruned {
		s |= wire.SFNodeNetwork
	}
	if compactFilters {
		s |= wire.SFNodeCompactFilters
	}
	return s
}

// UserAgent formats a BIP14 user agent, "/name:version(comments)/".
// Characters BIP14 reserves are removed from each part.
func UserAgent(name, version string, comments ...string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if strings.ContainsRune("/:()", r) || r < 0x20 || r > 0x7e {
				return -1
			}
			return r
		}, s)
	}
	var sb strings.Builder
	sb.WriteString("/" + clean(name) + ":" + clean(version))
	if len(comments) > 0 {
		sb.WriteByte('(')
		for i, c := range comments {
			if i > 0 {
				sb.WriteString("; ")
			}
			sb.WriteString(clean(c))
		}
		sb.WriteByte(')')
	}
	sb.WriteByte('/')
	ua := sb.String()
	if len(ua) > wire.MaxUserAgentLen {
		ua = ua[:wire.MaxUserAgentLen]
	}
	return ua
}

// MessageListeners are the callbacks the server and sync manager use. They
// run on the peer's reader goroutine, one at a time per peer; a nil
// callback means the message is ignored. Messages are not reused after the
// callback returns, so a listener may keep them.
type MessageListeners struct {
	// OnVersion sees the remote version before we accept it; a non-nil
	// error rejects the peer (for example a banned address or a network
	// group we are already connected to).
	OnVersion func(p *Peer, msg *wire.MsgVersion) error
	// OnVerAck is called once the handshake is complete in both
	// directions; the server adds the peer here.
	OnVerAck func(p *Peer)

	OnHeaders      func(p *Peer, msg *wire.MsgHeaders)
	OnBlock        func(p *Peer, msg *wire.MsgBlock)
	OnTx           func(p *Peer, msg *wire.MsgTx)
	OnInv          func(p *Peer, msg *wire.MsgInv)
	OnGetData      func(p *Peer, msg *wire.MsgGetData)
	OnNotFound     func(p *Peer, msg *wire.MsgNotFound)
	OnGetHeaders   func(p *Peer, msg *wire.MsgGetHeaders)
	OnGetBlocks    func(p *Peer, msg *wire.MsgGetBlocks)
	OnMemPool      func(p *Peer, msg *wire.MsgMemPool)
	OnSendHeaders  func(p *Peer, msg *wire.MsgSendHeaders)
	OnFeeFilter    func(p *Peer, msg *wire.MsgFeeFilter)
	OnSendCmpct    func(p *Peer, msg *wire.MsgSendCmpct)
	OnCmpctBlock   func(p *Peer, msg *wire.MsgCmpctBlock)
	OnGetBlockTxn  func(p *Peer, msg *wire.MsgGetBlockTxn)
	OnBlockTxn     func(p *Peer, msg *wire.MsgBlockTxn)
	OnGetCFilters  func(p *Peer, msg *wire.MsgGetCFilters)
	OnGetCFHeaders func(p *Peer, msg *wire.MsgGetCFHeaders)
	OnGetCFCheckpt func(p *Peer, msg *wire.MsgGetCFCheckpt)
	OnCFilter      func(p *Peer, msg *wire.MsgCFilter)
	OnCFHeaders    func(p *Peer, msg *wire.MsgCFHeaders)
	OnCFCheckpt    func(p *Peer, msg *wire.MsgCFCheckpt)
	OnReject       func(p *Peer, msg *wire.MsgReject)
	// OnAddrs receives the addresses of an addr or addrv2 message (in
	// addrv2 form) that passed the peer's checks as Core applies them:
	// the rate limit, a NODE_NETWORK or NODE_NETWORK_LIMITED service
	// bit, not banned; implausible timestamps are already replaced by
	// five days ago. relay reports whether the message may be gossiped
	// on: Core relays only from messages of at most ten addresses that
	// do not answer our getaddr, and only addresses seen in the last
	// ten minutes (which the listener checks, with routability).
	OnAddrs func(p *Peer, addrs []wire.NetAddressV2, relay bool)
	// OnGetAddr is called at most once per connection and only for
	// inbound peers; Core ignores getaddr from outbound peers so they
	// cannot fingerprint us. The listener answers with PushAddress; the
	// answer goes out with the peer's next addr message.
	OnGetAddr func(p *Peer)
	// OnPong is told the measured round trip of each answered ping.
	OnPong func(p *Peer, rtt time.Duration)

	// TxInvSequence, when set, returns the mempool's sequence number.
	// It is read at every trickle of transaction announcements, even one
	// with nothing to announce; the peer keeps the value as
	// LastTxInvSequence, so getdata is answered only for transactions
	// the peer could have been told about.
	TxInvSequence func() uint64

	// OnRead and OnWrite observe every message read or written (after
	// the handshake too); err is non-nil for a read that failed. They are
	// for tests and tracing.
	OnRead  func(p *Peer, n int, msg wire.Message, err error)
	OnWrite func(p *Peer, n int, cmd string, err error)

	// OnQueue is told the encoded size of each message as it enters the
	// send queue, before the writer takes it. Limits on what is served
	// (--maxuploadtarget) count here: a request answered must count
	// before the next one is checked, and a large block can sit in the
	// queue while the next getdata is read.
	OnQueue func(p *Peer, n int, cmd string)

	// OnCapture sees every message's payload as it went over the wire:
	// received ones once their checksum is verified, sent ones once
	// written (-capturemessages). payload is only valid during the call.
	OnCapture func(p *Peer, sent bool, cmd string, payload []byte)
}

// Config is the configuration of a peer. The server usually builds one
// per connection from a shared template; the peer copies it.
type Config struct {
	// Net is the network magic.
	Net wire.BitcoinNet
	// ProtocolVersion is the version we announce; zero means
	// wire.ProtocolVersion.
	ProtocolVersion uint32
	// Services are the services we announce (see Services).
	Services wire.ServiceFlag
	// UserAgent is our BIP14 user agent (see UserAgent).
	UserAgent string
	// BestHeight returns our chain height for the version message; nil
	// means 0.
	BestHeight func() int32
	// DisableRelayTx announces that we do not want transactions
	// (--blocksonly); a peer that sends or announces them anyway is
	// disconnected, unless it has the relay permission (then, as in
	// Core, our version asks it for transactions after all).
	DisableRelayTx bool
	// MinProtocolVersion is the oldest version accepted; zero means
	// DefaultMinProtocolVersion.
	MinProtocolVersion uint32
	// RequiredServices must all be offered by automatic outbound peers
	// (the server asks SFNodeNetwork|SFNodeWitness of full-sync peers);
	// inbound and manual (SetManual) peers are not checked, as in Core.
	RequiredServices wire.ServiceFlag
	// NearTip, when set and true, lets a pruned peer (NODE_NETWORK_LIMITED)
	// stand in for NODE_NETWORK in RequiredServices: once the node has
	// caught up it needs only recent blocks (Core's desirable services).
	NearTip func() bool

	// SendHeaders sends sendheaders after verack (BIP130) to peers that
	// support it.
	SendHeaders bool
	// SendCmpct, when set, is sent after verack to peers that support
	// compact blocks (BIP152).
	SendCmpct *wire.MsgSendCmpct
	// FeeFilter, when set and transactions are relayed, returns the
	// feefilter value (satoshis per kvB) to announce (BIP133): sent
	// after verack, then again on Core's schedule when it changes.
	FeeFilter func() int64
	// InitialDownload, when set, reports whether the node is in initial
	// block download; meanwhile the feefilter is MaxFeeFilter, so peers
	// do not announce transactions we would not fetch, and the real value
	// follows as soon as the download ends.
	InitialDownload func() bool

	// TxReconciliation takes part in the BIP330 (Erlay) handshake
	// (-txreconciliation): sendtxrcncl is sent to peers that can use it
	// and theirs is checked and registered. Off, a peer's sendtxrcncl is
	// ignored, as by a node that does not know the message.
	TxReconciliation bool

	// V2 enables the BIP324 encrypted transport: an outbound peer opens
	// with the v2 handshake (the caller sets it only when the remote
	// advertises NODE_P2P_V2); an inbound peer may speak either, told
	// apart by whether its first bytes are a v1 version header.
	V2 bool

	// Listeners receive the messages.
	Listeners MessageListeners

	// Bans is where misbehaving peers are banned and where whitelisted
	// ranges are looked up; nil disconnects at the threshold without
	// banning.
	Bans *banmgr.Manager
	// BanThreshold is the score that disconnects and bans; zero means
	// DefaultBanThreshold.
	BanThreshold uint32

	// Nonces records our version nonces for self-connection detection and
	// must be shared by all peers of one node; nil means a package-wide
	// set.
	Nonces *NonceSet

	// Timeouts and limits; zero means the default of the same name.
	// HandshakeTimeout is -peertimeout: after it, a connection that has
	// not exchanged a message each way, or not finished the handshake,
	// is dropped. IdleTimeout, PingTimeout and the address schedule are
	// measured on the node clock (internal/clock), so mock time moves
	// them.
	HandshakeTimeout time.Duration
	IdleTimeout      time.Duration
	PingInterval     time.Duration
	PingTimeout      time.Duration
	WriteTimeout     time.Duration
	SendBufferSize   int
	MaxQueuedBytes   int
	// TrickleInterval overrides the mean announcement interval (both
	// directions); zero means the Core defaults.
	TrickleInterval time.Duration
	// InboundTrickle, when set, is the announcement schedule shared by
	// all inbound peers of the node (see TrickleClock); it replaces
	// TrickleInterval for inbound peers.
	InboundTrickle *TrickleClock

	// LocalAddress, when set, returns our address to announce to p in an
	// addr (or addrv2) message, or ok false to announce nothing (not
	// listening, still syncing, no address known). As Core does, it is
	// asked for peers that take part in address relay: first when relay
	// starts (at once for outbound peers, on an inbound peer's first
	// addr, addrv2 or getaddr), then at exponentially distributed
	// intervals of LocalAddrInterval on average.
	LocalAddress func(p *Peer) (na wire.NetAddressV2, ok bool)
	// LocalAddrInterval is the mean self-announcement interval; zero
	// means DefaultLocalAddrInterval.
	LocalAddrInterval time.Duration
	// AddrInterval is the mean interval between addr messages to the
	// peer; zero means DefaultAddrInterval.
	AddrInterval time.Duration

	// Log is the peer's logger; nil means the package logger.
	Log btclog.Logger
}

func (c *Config) applyDefaults(inbound bool) {
	if c.ProtocolVersion == 0 {
		c.ProtocolVersion = wire.ProtocolVersion
	}
	if c.MinProtocolVersion == 0 {
		c.MinProtocolVersion = DefaultMinProtocolVersion
	}
	if c.BanThreshold == 0 {
		c.BanThreshold = DefaultBanThreshold
	}
	if c.Nonces == nil {
		c.Nonces = defaultNonces
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.HandshakeTimeout, DefaultHandshakeTimeout)
	def(&c.IdleTimeout, DefaultIdleTimeout)
	def(&c.PingInterval, DefaultPingInterval)
	def(&c.PingTimeout, DefaultPingTimeout)
	def(&c.WriteTimeout, DefaultWriteTimeout)
	def(&c.LocalAddrInterval, DefaultLocalAddrInterval)
	def(&c.AddrInterval, DefaultAddrInterval)
	if inbound {
		def(&c.TrickleInterval, DefaultInboundTrickle)
	} else {
		def(&c.TrickleInterval, DefaultOutboundTrickle)
	}
	if c.SendBufferSize <= 0 {
		c.SendBufferSize = DefaultSendBufferSize
	}
	if c.MaxQueuedBytes <= 0 {
		c.MaxQueuedBytes = DefaultMaxQueuedBytes
	}
	if c.Log == nil {
		c.Log = log
	}
}

var log = btclog.Disabled

// UseLogger sets the package logger.
func UseLogger(l btclog.Logger) { log = l }

// isWhitelisted reports whether ip is exempt from bans.
func (c *Config) isWhitelisted(ip netip.Addr) bool {
	return c.Bans != nil && ip.IsValid() && c.Bans.IsWhitelisted(ip)
}
