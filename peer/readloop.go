package peer

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/wire"
)

// sendVersion queues our version message and records its nonce.
func (p *Peer) sendVersion() {
	p.nonce = randUint64()
	p.cfg.Nonces.Add(p.nonce)
	var height int32
	if p.cfg.BestHeight != nil {
		height = p.cfg.BestHeight()
	}
	var you wire.NetAddress
	if p.ip.IsValid() {
		if ap, err := netip.ParseAddrPort(p.addr); err == nil {
			you = wire.NetAddress{Addr: p.ip, Port: ap.Port()}
		}
	}
	msg := &wire.MsgVersion{
		ProtocolVersion: int32(p.cfg.ProtocolVersion),
		Services:        p.cfg.Services,
		Timestamp:       clock.Unix(),
		AddrYou:         you,
		// Like Core we do not reveal our own address here: addr_from
		// carries only our services.
		AddrMe:         wire.NetAddress{Services: p.cfg.Services},
		Nonce:          p.nonce,
		UserAgent:      p.cfg.UserAgent,
		LastBlock:      height,
		DisableRelayTx: p.noTxRelay(),
	}
	if err := p.QueueMessage(msg, nil); err != nil && p.Connected() {
		p.disconnect(fmt.Errorf("%w: sending version: %v", ErrBadMessage, err))
	}
}

// readLoop runs the handshake and then reads and dispatches messages until
// the connection ends.
func (p *Peer) readLoop() {
	defer p.wg.Done()
	defer p.disconnect(ErrConnection)

	deadline := p.connTime.Add(p.cfg.HandshakeTimeout)
	p.conn.SetReadDeadline(deadline)
	for !p.gotVersion || !p.gotVerAck {
		msg, ok := p.readMessage(true)
		if !ok {
			return
		}
		if msg != nil && !p.handleHandshakeMessage(msg) {
			return
		}
	}
	close(p.handshakeDone)
	p.cfg.Log.Debugf("Handshake done with %v: version %d, services %v, agent %q",
		p, p.remoteVersion, p.services, p.userAgent)
	p.afterVerAck()
	if l := p.cfg.Listeners.OnVerAck; l != nil {
		l(p)
	}
	for p.Connected() {
		// Any message, pongs included, keeps the connection alive.
		p.conn.SetReadDeadline(time.Now().Add(p.cfg.IdleTimeout))
		msg, ok := p.readMessage(false)
		if !ok {
			return
		}
		if msg != nil {
			p.dispatch(msg)
		}
	}
}

// readMessage reads one message. It returns (nil, true) for a message to
// ignore and (nil, false) when the peer has been disconnected.
func (p *Peer) readMessage(inHandshake bool) (wire.Message, bool) {
	n, msg, err := wire.ReadMessage(p.conn, p.pver.Load(), p.cfg.Net, wire.WitnessEncoding)
	var cmd string
	var uc *wire.UnknownCommandError
	switch {
	case msg != nil:
		cmd = msg.Command()
	case errors.As(err, &uc):
		cmd = uc.Command
	}
	if n > 0 {
		p.countRecv(cmd, n)
	}
	if l := p.cfg.Listeners.OnRead; l != nil {
		l(p, n, msg, err)
	}
	if err == nil {
		return msg, true
	}
	if !p.Connected() {
		return nil, false
	}
	var ne net.Error
	switch {
	case uc != nil:
		// Core ignores unknown messages so new ones can be deployed.
		p.cfg.Log.Debugf("Ignoring unknown command %q (%d bytes) from %v", uc.Command, uc.Length, p)
		return nil, true
	case errors.As(err, &ne) && ne.Timeout():
		if inHandshake {
			p.disconnectf(ErrHandshakeTimeout, "no handshake within %v", p.cfg.HandshakeTimeout)
		} else {
			p.disconnectf(ErrIdleTimeout, "nothing received for %v", p.cfg.IdleTimeout)
		}
	case errors.Is(err, wire.ErrBadChecksum):
		p.misbehaveAndDisconnect(PenaltyBadChecksum, ErrBadMessage, err.Error())
	case errors.Is(err, wire.ErrWrongNetwork):
		p.misbehaveAndDisconnect(PenaltyWrongNetwork, ErrBadMessage, err.Error())
	case errors.Is(err, wire.ErrLimitExceeded):
		p.misbehaveAndDisconnect(PenaltyOversized, ErrBadMessage, err.Error())
	case errors.Is(err, wire.ErrMalformed), errors.Is(err, wire.ErrTruncated),
		errors.Is(err, wire.ErrNonCanonical), errors.Is(err, wire.ErrTrailingData):
		p.misbehaveAndDisconnect(PenaltyMalformed, ErrBadMessage, err.Error())
	default:
		p.disconnect(fmt.Errorf("%w: %v", ErrConnection, err))
	}
	return nil, false
}

// handleHandshakeMessage processes a message before the handshake is
// complete and reports whether to keep reading.
func (p *Peer) handleHandshakeMessage(msg wire.Message) bool {
	switch m := msg.(type) {
	case *wire.MsgVersion:
		if p.gotVersion {
			p.Misbehaving(PenaltyDuplicateVer, "duplicate version message")
			return p.Connected()
		}
		return p.handleVersion(m)
	}
	if !p.gotVersion {
		p.misbehaveAndDisconnect(PenaltyBeforeVersion, ErrProtocolViolation, msg.Command()+" message before version")
		return false
	}
	switch msg.(type) {
	case *wire.MsgVerAck:
		p.gotVerAck = true
	case *wire.MsgWtxidRelay:
		if p.pver.Load() >= wire.WTxidRelayVersion {
			p.mu.Lock()
			p.wtxidRelay = true
			p.mu.Unlock()
		}
	case *wire.MsgSendAddrV2:
		p.mu.Lock()
		p.addrV2 = true
		p.mu.Unlock()
	default:
		// Core ignores anything else between version and verack.
		p.cfg.Log.Debugf("Ignoring %s before verack from %v", msg.Command(), p)
	}
	return true
}

// handleVersion checks the remote's version, records what it announced,
// and answers with our version (inbound), the pre-verack negotiation
// messages and verack.
func (p *Peer) handleVersion(m *wire.MsgVersion) bool {
	p.gotVersion = true
	if m.ProtocolVersion < 0 || uint32(m.ProtocolVersion) < p.cfg.MinProtocolVersion {
		p.disconnectf(ErrOldVersion, "version %d is below %d", m.ProtocolVersion, p.cfg.MinProtocolVersion)
		return false
	}
	if p.inbound && p.cfg.Nonces.Contains(m.Nonce) {
		p.cfg.Log.Infof("connected to self at %s, disconnecting", p.addr)
		p.disconnectf(ErrSelfConnection, "version nonce %#x is ours", m.Nonce)
		return false
	}
	if want := p.requiredServices(m.Services); !p.inbound && p.connType != ConnManual && m.Services&want != want {
		p.cfg.Log.Debugf("peer=%d does not offer the expected services (%08x offered, %08x expected); disconnecting",
			p.id, uint64(m.Services), uint64(want))
		p.disconnectf(ErrMissingServices, "offers %v, need %v", m.Services, want)
		return false
	}
	pver := min(uint32(m.ProtocolVersion), p.cfg.ProtocolVersion)
	p.pver.Store(pver)
	p.mu.Lock()
	p.remoteVersion = uint32(m.ProtocolVersion)
	p.services = m.Services
	p.userAgent = m.UserAgent
	p.startingHeight = m.LastBlock
	p.timeOffset = m.Timestamp - clock.Unix()
	p.relayTx = !m.DisableRelayTx && p.connType != ConnBlockRelay
	if m.AddrYou.Addr.IsValid() && !m.AddrYou.Addr.IsUnspecified() {
		p.addrMe = netip.AddrPortFrom(m.AddrYou.Addr.Unmap(), m.AddrYou.Port)
	}
	p.mu.Unlock()
	p.lastBlock.Store(m.LastBlock)
	if l := p.cfg.Listeners.OnVersion; l != nil {
		if err := l(p, m); err != nil {
			p.disconnect(fmt.Errorf("%w: %v", ErrRejected, err))
			return false
		}
	}
	if p.connType == ConnFeeler {
		// A feeler only checks that the address answers.
		p.cfg.Log.Debugf("feeler connection completed peer=%d; disconnecting", p.id)
		p.disconnectf(ErrFeelerDone, "feeler connection completed")
		return false
	}
	if p.inbound {
		p.sendVersion()
	}
	// BIP339 and BIP155: both must come between version and verack.
	if pver >= wire.WTxidRelayVersion {
		p.QueueMessage(&wire.MsgWtxidRelay{}, nil)
		p.QueueMessage(&wire.MsgSendAddrV2{}, nil)
	}
	p.QueueMessage(&wire.MsgVerAck{}, nil)
	return p.Connected()
}

// afterVerAck sends the negotiation messages that follow verack.
func (p *Peer) afterVerAck() {
	pver := p.pver.Load()
	if p.cfg.SendHeaders && pver >= wire.SendHeadersVersion {
		p.QueueMessage(&wire.MsgSendHeaders{}, nil)
	}
	if p.cfg.SendCmpct != nil && pver >= wire.ShortIDsBlocksVersion {
		sc := *p.cfg.SendCmpct
		p.QueueMessage(&sc, nil)
	}
	if p.cfg.FeeFilter != nil && !p.noTxRelay() && pver >= wire.FeeFilterVersion {
		p.QueueMessage(&wire.MsgFeeFilter{MinFee: p.cfg.FeeFilter()}, nil)
	}
}

// PushGetAddr asks the peer for addresses and, as Core does, allows that
// many more addresses through its rate limit.
func (p *Peer) PushGetAddr() {
	if p.QueueMessage(&wire.MsgGetAddr{}, nil) == nil {
		p.mu.Lock()
		p.addrTokens += wire.MaxAddrPerMsg
		p.mu.Unlock()
	}
}

// addrAllowance refills the peer's address token bucket and takes up to n
// tokens, returning how many addresses may be processed.
func (p *Peer) addrAllowance(n int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := clock.Now()
	if p.addrTokens < addrTokenBucketMax {
		elapsed := now.Sub(p.addrTokensTime).Seconds()
		p.addrTokens = min(p.addrTokens+elapsed*addrRatePerSecond, addrTokenBucketMax)
	}
	p.addrTokensTime = now
	k := n
	if !p.perms.Has(PermAddr) {
		k = min(n, int(p.addrTokens))
		p.addrTokens -= float64(k)
	}
	p.addrProcessed += uint64(k)
	p.addrRateLimited += uint64(n - k)
	return k
}

// dispatch handles a message after the handshake.
func (p *Peer) dispatch(msg wire.Message) {
	l := &p.cfg.Listeners
	switch m := msg.(type) {
	case *wire.MsgVersion:
		p.Misbehaving(PenaltyDuplicateVer, "duplicate version message")
	case *wire.MsgVerAck:
		// Redundant; Core ignores it.
	case *wire.MsgWtxidRelay, *wire.MsgSendAddrV2:
		p.misbehaveAndDisconnect(PenaltyLateNegotiation, ErrProtocolViolation, msg.Command()+" after verack")
	case *wire.MsgPing:
		p.QueueMessage(&wire.MsgPong{Nonce: m.Nonce}, nil)
	case *wire.MsgPong:
		p.handlePong(m)
	case *wire.MsgSendHeaders:
		p.sendHeaders.Store(true)
		if l.OnSendHeaders != nil {
			l.OnSendHeaders(p, m)
		}
	case *wire.MsgFeeFilter:
		// Core ignores values outside the money range.
		if m.MinFee >= 0 && m.MinFee <= maxMoney {
			p.feeFilter.Store(m.MinFee)
			if l.OnFeeFilter != nil {
				l.OnFeeFilter(p, m)
			}
		}
	case *wire.MsgSendCmpct:
		p.cmpctVersion.Store(m.Version)
		p.cmpctHB.Store(m.AnnounceHighBandwidth)
		if l.OnSendCmpct != nil {
			l.OnSendCmpct(p, m)
		}
	case *wire.MsgAddr:
		if p.connType == ConnBlockRelay {
			return // no address relay on block-relay-only connections
		}
		k := p.addrAllowance(len(m.AddrList))
		if k < len(m.AddrList) {
			rand.Shuffle(len(m.AddrList), func(i, j int) { m.AddrList[i], m.AddrList[j] = m.AddrList[j], m.AddrList[i] })
			m.AddrList = m.AddrList[:k]
		}
		if k > 0 && l.OnAddr != nil {
			l.OnAddr(p, m)
		}
		p.addrFetchDone(len(m.AddrList))
	case *wire.MsgAddrV2:
		if p.connType == ConnBlockRelay {
			return
		}
		k := p.addrAllowance(len(m.AddrList))
		if k < len(m.AddrList) {
			rand.Shuffle(len(m.AddrList), func(i, j int) { m.AddrList[i], m.AddrList[j] = m.AddrList[j], m.AddrList[i] })
			m.AddrList = m.AddrList[:k]
		}
		if k > 0 && l.OnAddrV2 != nil {
			l.OnAddrV2(p, m)
		}
		p.addrFetchDone(len(m.AddrList))
	case *wire.MsgInv:
		p.handleInv(m)
	case *wire.MsgTx:
		if p.noTxRelay() && !p.perms.Has(PermRelay) {
			p.disconnectf(ErrProtocolViolation, "transaction sent in blocks-only mode")
			return
		}
		if l.OnTx != nil {
			l.OnTx(p, m)
		}
	case *wire.MsgBlock:
		if l.OnBlock != nil {
			l.OnBlock(p, m)
		}
	case *wire.MsgHeaders:
		if l.OnHeaders != nil {
			l.OnHeaders(p, m)
		}
	case *wire.MsgGetData:
		if l.OnGetData != nil {
			l.OnGetData(p, m)
		}
	case *wire.MsgNotFound:
		if l.OnNotFound != nil {
			l.OnNotFound(p, m)
		}
	case *wire.MsgGetHeaders:
		if l.OnGetHeaders != nil {
			l.OnGetHeaders(p, m)
		}
	case *wire.MsgGetBlocks:
		if l.OnGetBlocks != nil {
			l.OnGetBlocks(p, m)
		}
	case *wire.MsgMemPool:
		if l.OnMemPool != nil {
			l.OnMemPool(p, m)
		}
	case *wire.MsgCmpctBlock:
		if l.OnCmpctBlock != nil {
			l.OnCmpctBlock(p, m)
		}
	case *wire.MsgGetBlockTxn:
		if l.OnGetBlockTxn != nil {
			l.OnGetBlockTxn(p, m)
		}
	case *wire.MsgBlockTxn:
		if l.OnBlockTxn != nil {
			l.OnBlockTxn(p, m)
		}
	case *wire.MsgGetCFilters:
		if l.OnGetCFilters != nil {
			l.OnGetCFilters(p, m)
		}
	case *wire.MsgGetCFHeaders:
		if l.OnGetCFHeaders != nil {
			l.OnGetCFHeaders(p, m)
		}
	case *wire.MsgGetCFCheckpt:
		if l.OnGetCFCheckpt != nil {
			l.OnGetCFCheckpt(p, m)
		}
	case *wire.MsgCFilter:
		if l.OnCFilter != nil {
			l.OnCFilter(p, m)
		}
	case *wire.MsgCFHeaders:
		if l.OnCFHeaders != nil {
			l.OnCFHeaders(p, m)
		}
	case *wire.MsgCFCheckpt:
		if l.OnCFCheckpt != nil {
			l.OnCFCheckpt(p, m)
		}
	case *wire.MsgReject:
		if l.OnReject != nil {
			l.OnReject(p, m)
		}
	case *wire.MsgFilterLoad, *wire.MsgFilterAdd, *wire.MsgFilterClear:
		// We never offer NODE_BLOOM; Core disconnects such peers.
		if p.cfg.Services&wire.SFNodeBloom == 0 {
			p.disconnectf(ErrProtocolViolation, "%s without bloom service", msg.Command())
		}
	case *wire.MsgGetAddr:
		p.handleGetAddr()
	default:
		p.cfg.Log.Debugf("Ignoring %s from %v", msg.Command(), p)
	}
}

// addrFetchDone ends an addr-fetch connection once the peer has sent
// addresses, as Core does.
func (p *Peer) addrFetchDone(n int) {
	if p.connType == ConnAddrFetch && n > 1 {
		p.cfg.Log.Debugf("addrfetch connection completed peer=%d; disconnecting", p.id)
		p.disconnectf(ErrFeelerDone, "addrfetch connection completed")
	}
}

func (p *Peer) handleGetAddr() {
	if !p.inbound {
		p.cfg.Log.Debugf("Ignoring getaddr from outbound %v", p)
		return
	}
	if p.gotGetAddr {
		p.cfg.Log.Debugf("Ignoring repeated getaddr from %v", p)
		return
	}
	p.gotGetAddr = true
	if l := p.cfg.Listeners.OnGetAddr; l != nil {
		l(p)
	}
}

func (p *Peer) handleInv(m *wire.MsgInv) {
	rejectTx := p.noTxRelay() && !p.perms.Has(PermRelay)
	p.invMu.Lock()
	for i := range m.InvList {
		iv := &m.InvList[i]
		switch iv.Type &^ wire.InvWitnessFlag {
		case wire.InvTypeTx, wire.InvTypeWTx:
			if rejectTx {
				p.invMu.Unlock()
				p.disconnectf(ErrProtocolViolation, "transaction inv in blocks-only mode")
				return
			}
		}
		p.knownInv.add(&iv.Hash)
	}
	p.invMu.Unlock()
	if l := p.cfg.Listeners.OnInv; l != nil {
		l(p, m)
	}
}
