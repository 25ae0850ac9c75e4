package peer

import (
	"fmt"
	"net/netip"

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
		Services:        p.LocalServices(),
		Timestamp:       clock.Unix(),
		AddrYou:         you,
		// Like Core we do not reveal our own address here: addr_from
		// carries only our services.
		AddrMe:         wire.NetAddress{Services: p.LocalServices()},
		Nonce:          p.nonce,
		UserAgent:      p.cfg.UserAgent,
		LastBlock:      height,
		DisableRelayTx: p.rejectsTxs(),
	}
	if err := p.QueueMessage(msg, nil); err != nil && p.Connected() {
		p.disconnect(fmt.Errorf("%w: sending version: %v", ErrBadMessage, err))
	}
}

// readLoop runs the handshake and then reads and dispatches messages until
// the connection ends. It sets no read deadlines: the writer's timer
// checks (timers.go) drop a silent peer, on the node clock.
func (p *Peer) readLoop() {
	defer p.wg.Done()
	defer p.forgetTxRecon() // txreconciliation.go
	defer p.disconnect(ErrConnection)
	if !p.setupTransport() {
		return
	}
	for !p.gotVersion || !p.gotVerAck {
		f, ok := p.readFrame()
		if !ok {
			return
		}
		keep := p.handshakeFrame(&f)
		f.release()
		if !keep {
			return
		}
	}
	// Core trickles to a new peer at its first chance: nothing can be
	// pending yet, but this sets the point (LastTxInvSequence) from which
	// the mempool's transactions may be requested.
	p.flushInventory()
	close(p.handshakeDone)
	p.cfg.Log.Debugf("Handshake done with %v: version %d, services %v, agent %q",
		p, p.remoteVersion, p.services, p.userAgent)
	p.afterVerAck()
	if l := p.cfg.Listeners.OnVerAck; l != nil {
		l(p)
	}
	for p.Connected() {
		f, ok := p.readFrame()
		if !ok {
			return
		}
		// Core runs a peer's send-side chores (ping, address sends)
		// between the messages it processes; doing so here too means a
		// clock jump takes effect before the next message is answered.
		p.timers(clock.Now())
		if p.Connected() {
			p.dispatchFrame(&f)
		}
		f.release()
	}
}

// handshakeFrame handles a message before the handshake is complete, as
// Core does: anything before version is ignored, and between version and
// verack only verack and the feature negotiation messages count. It
// reports whether to keep reading.
func (p *Peer) handshakeFrame(f *frame) bool {
	if f.cmd == wire.CmdVersion {
		if p.gotVersion {
			p.cfg.Log.Debugf("redundant version message from peer=%d", p.id)
			return true
		}
		msg, ok := p.decode(f)
		if !ok {
			return false
		}
		return p.handleVersion(msg.(*wire.MsgVersion))
	}
	if !p.gotVersion {
		p.cfg.Log.Debugf("non-version message before version handshake. Message \"%s\" from peer=%d", f.cmd, p.id)
		return true
	}
	switch f.cmd {
	case wire.CmdVerAck, wire.CmdWtxidRelay, wire.CmdSendAddrV2:
	case wire.CmdSendTxRcncl:
		p.handleSendTxRcnclFrame(f, false) // txreconciliation.go
		return p.Connected()
	default:
		p.cfg.Log.Debugf("Unsupported message \"%s\" prior to verack from peer=%d", f.cmd, p.id)
		return true
	}
	msg, ok := p.decode(f)
	if !ok {
		return false
	}
	switch msg.(type) {
	case *wire.MsgVerAck:
		p.gotVerAck = true
		p.txReconAtVerAck()
	case *wire.MsgWtxidRelay:
		if p.pver.Load() >= wire.WTxidRelayVersion {
			p.mu.Lock()
			p.wtxidRelay = true
			p.mu.Unlock()
		} else {
			p.cfg.Log.Debugf("ignoring wtxidrelay due to old common version=%d from peer=%d", p.pver.Load(), p.id)
		}
	case *wire.MsgSendAddrV2:
		p.mu.Lock()
		p.addrV2 = true
		p.mu.Unlock()
	}
	return true
}

// handleVersion checks the remote's version, records what it announced,
// and answers with our version (inbound), the pre-verack negotiation
// messages and verack, and, to an outbound peer that takes part in
// address relay, getaddr.
func (p *Peer) handleVersion(m *wire.MsgVersion) bool {
	p.gotVersion = true
	// Core expects services only of automatic outbound connections that
	// will serve us: not of inbound, manual or feeler ones.
	expectServices := !p.inbound && p.connType != ConnManual && p.connType != ConnFeeler
	if want := p.requiredServices(m.Services); expectServices && m.Services&want != want {
		p.cfg.Log.Debugf("peer=%d does not offer the expected services (%08x offered, %08x expected); disconnecting",
			p.id, uint64(m.Services), uint64(want))
		p.disconnectf(ErrMissingServices, "offers %v, need %v", m.Services, want)
		return false
	}
	if m.ProtocolVersion < 0 || uint32(m.ProtocolVersion) < p.cfg.MinProtocolVersion {
		p.cfg.Log.Debugf("using obsolete version %d, disconnecting peer=%d", m.ProtocolVersion, p.id)
		p.disconnectf(ErrOldVersion, "version %d is below %d", m.ProtocolVersion, p.cfg.MinProtocolVersion)
		return false
	}
	if p.inbound && p.cfg.Nonces.Contains(m.Nonce) {
		p.cfg.Log.Infof("connected to self at %s, disconnecting", p.addr)
		p.disconnectf(ErrSelfConnection, "version nonce %#x is ours", m.Nonce)
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
	p.maybeSendTxRcncl(pver) // BIP330, also before verack
	p.QueueMessage(&wire.MsgVerAck{}, nil)
	if !p.inbound && p.enableAddrRelay() {
		// Core asks each outbound peer for addresses once, to fill the
		// address manager, but not block-relay-only peers, which must
		// not learn that we gossip addresses.
		p.PushGetAddr()
	}
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
	p.startFeeFilter(clock.Now()) // feefilter.go
}

// dispatchFrame handles a message after the handshake. A pong and an
// oversized addr or addrv2 are read from the payload directly, since Core
// accepts a pong of any length and reports an addr's entry count.
func (p *Peer) dispatchFrame(f *frame) {
	switch f.cmd {
	case wire.CmdPong:
		p.handlePong(f.payload(), f.n)
		return
	case wire.CmdAddr, wire.CmdAddrV2:
		if n, ok := addrCount(f.payload()); ok && n > wire.MaxAddrPerMsg {
			p.oversizedAddr(f.cmd, n)
			return
		}
	case wire.CmdSendTxRcncl:
		p.handleSendTxRcnclFrame(f, true)
		return
	}
	msg, ok := p.decode(f)
	if ok && msg != nil {
		p.dispatch(msg)
	}
}

// dispatch handles a decoded message after the handshake.
func (p *Peer) dispatch(msg wire.Message) {
	l := &p.cfg.Listeners
	switch m := msg.(type) {
	case *wire.MsgVersion:
		p.cfg.Log.Debugf("redundant version message from peer=%d", p.id)
	case *wire.MsgVerAck:
		p.cfg.Log.Debugf("ignoring redundant verack message from peer=%d", p.id)
	case *wire.MsgWtxidRelay, *wire.MsgSendAddrV2:
		// Core only disconnects: the peer broke the negotiation order.
		p.cfg.Log.Debugf("%s received after verack, disconnecting peer=%d", msg.Command(), p.id)
		p.disconnectf(ErrProtocolViolation, "%s after verack", msg.Command())
	case *wire.MsgPing:
		p.QueueMessage(&wire.MsgPong{Nonce: m.Nonce}, nil)
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
		v2 := make([]wire.NetAddressV2, len(m.AddrList))
		for i := range m.AddrList {
			v2[i] = wire.NetAddressV2FromNetAddress(m.AddrList[i])
		}
		p.handleAddrs(wire.CmdAddr, v2)
	case *wire.MsgAddrV2:
		p.handleAddrs(wire.CmdAddrV2, m.AddrList)
	case *wire.MsgInv:
		p.handleInv(m)
	case *wire.MsgTx:
		if p.rejectsTxs() {
			p.cfg.Log.Debugf("transaction sent in violation of protocol, disconnecting peer=%d", p.id)
			p.disconnectf(ErrProtocolViolation, "transaction when we asked for none")
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
		p.cfg.Log.Debugf("received getdata (%d invsz) peer=%d", len(m.InvList), p.id)
		if len(m.InvList) > 0 && p.debug() {
			p.cfg.Log.Debugf("received getdata for: %s peer=%d", invString(&m.InvList[0]), p.id)
		}
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
		p.handleFilterMsg(msg) // bloomfilter.go
	case *wire.MsgGetAddr:
		p.handleGetAddr()
	default:
		p.cfg.Log.Debugf("Ignoring %s from %v", msg.Command(), p)
	}
}

func (p *Peer) handleInv(m *wire.MsgInv) {
	rejectTx := p.rejectsTxs()
	// Announcements by the id the peer did not negotiate (txid after
	// wtxidrelay, wtxid without it) are ignored by Core, so only the
	// negotiated kind breaks a no-transactions agreement.
	txKind := wire.InvTypeTx
	if p.WantsWtxid() {
		txKind = wire.InvTypeWTx
	}
	p.invMu.Lock()
	for i := range m.InvList {
		iv := &m.InvList[i]
		if rejectTx && iv.Type&^wire.InvWitnessFlag == txKind {
			p.invMu.Unlock()
			p.cfg.Log.Debugf("transaction (%v) inv sent in violation of protocol, disconnecting peer=%d", iv.Hash, p.id)
			p.disconnectf(ErrProtocolViolation, "transaction inv when we asked for none")
			return
		}
		p.knownInv.add(&iv.Hash)
	}
	p.invMu.Unlock()
	if l := p.cfg.Listeners.OnInv; l != nil {
		l(p, m)
	}
}
