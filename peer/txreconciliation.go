package peer

import (
	"encoding/binary"

	"github.com/btcnode/btcd/wire"
)

// The BIP330 (Erlay) handshake. With Config.TxReconciliation on, a peer
// that qualifies is sent sendtxrcncl before verack and the salt it was
// sent is remembered; the peer's own sendtxrcncl, if it arrives before
// verack, completes the registration and fixes the keys for the short
// transaction ids. Reconciliation rounds themselves are not run: the
// handshake lets the node interoperate with peers that announce Erlay,
// and transactions are still relayed by inv.

// TxReconciliationVersion is the BIP330 protocol version we announce.
const TxReconciliationVersion = 1

// txReconSaltTag is the BIP340-style tag of the hash that combines the two
// peers' salts (BIP330).
const txReconSaltTag = "Tx Relay Salting"

// reconPhase is how far the handshake has got with one peer.
type reconPhase uint8

const (
	// reconNone: no sendtxrcncl was sent, or the state was dropped.
	reconNone reconPhase = iota
	// reconPreRegistered: our sendtxrcncl went out; the peer's has not
	// arrived.
	reconPreRegistered
	// reconRegistered: both sides announced support.
	reconRegistered
)

// txRecon is a peer's reconciliation state, guarded by Peer.mu. It is
// written by the reader only.
type txRecon struct {
	phase     reconPhase
	localSalt uint64
	state     ReconciliationState // set once registered
}

// ReconciliationState is what the BIP330 handshake settled with a peer.
type ReconciliationState struct {
	// Version is the reconciliation version both sides speak: the lower
	// of ours and the peer's.
	Version uint32
	// Initiator is true when we would start reconciliation rounds, which
	// BIP330 leaves to the side that opened the connection.
	Initiator bool
	// K0 and K1 are the SipHash keys for short transaction ids: the two
	// halves of the tagged hash of both salts.
	K0, K1 uint64
}

// TxReconciliation returns the reconciliation state agreed with the peer;
// ok is false unless both sides announced support in the handshake and
// the registration survived verack.
func (p *Peer) TxReconciliation() (st ReconciliationState, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.recon.state, p.recon.phase == reconRegistered
}

// reconSalt combines the two salts as BIP330 says: the tagged hash of the
// smaller then the larger, each as 64-bit little-endian, read back as two
// little-endian 64-bit keys.
func reconSalt(a, b uint64) (k0, k1 uint64) {
	lo, hi := min(a, b), max(a, b)
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[:8], lo)
	binary.LittleEndian.PutUint64(buf[8:], hi)
	h := wire.TaggedHash(txReconSaltTag, buf[:])
	return binary.LittleEndian.Uint64(h[:8]), binary.LittleEndian.Uint64(h[8:16])
}

// offersTxReconciliation reports whether the peer is sent sendtxrcncl, by
// Core's rules: the common version has wtxid relay, the peer asked for
// transactions in its version, the connection carries transactions both
// ways (not block-relay-only, feeler or addr-fetch) and the node is not
// under -blocksonly, whatever the peer's permissions.
func (p *Peer) offersTxReconciliation(pver uint32) bool {
	if !p.cfg.TxReconciliation || pver < wire.WTxidRelayVersion || p.cfg.DisableRelayTx {
		return false
	}
	switch p.connType {
	case ConnBlockRelay, ConnFeeler, ConnAddrFetch:
		return false
	}
	return p.RelayTx()
}

// maybeSendTxRcncl queues our sendtxrcncl with a fresh salt when the peer
// qualifies. It is called between the version-time negotiation messages
// and verack, where BIP330 requires it.
func (p *Peer) maybeSendTxRcncl(pver uint32) {
	if !p.offersTxReconciliation(pver) {
		return
	}
	salt := randUint64()
	p.mu.Lock()
	p.recon = txRecon{phase: reconPreRegistered, localSalt: salt}
	p.mu.Unlock()
	p.QueueMessage(&wire.MsgSendTxRcncl{Version: TxReconciliationVersion, Salt: salt}, nil)
}

// handleSendTxRcnclFrame applies Core's rules to a received sendtxrcncl;
// afterVerAck tells whether the peer's verack has already arrived. The
// checks come before the payload is parsed, as in Core, so a late or
// unwanted message is refused whatever it holds.
func (p *Peer) handleSendTxRcnclFrame(f *frame, afterVerAck bool) {
	if !p.cfg.TxReconciliation {
		p.cfg.Log.Debugf("sendtxrcncl from peer=%d ignored, as our node does not have txreconciliation enabled", p.id)
		return
	}
	if afterVerAck {
		p.cfg.Log.Debugf("sendtxrcncl received after verack, disconnecting peer=%d", p.id)
		p.disconnectf(ErrProtocolViolation, "sendtxrcncl after verack")
		return
	}
	if p.rejectsTxs() {
		p.cfg.Log.Debugf("sendtxrcncl received to which we indicated no tx relay, disconnecting peer=%d", p.id)
		p.disconnectf(ErrProtocolViolation, "sendtxrcncl when we asked for no transactions")
		return
	}
	if !p.RelayTx() {
		p.cfg.Log.Debugf("sendtxrcncl received which indicated no tx relay to us, disconnecting peer=%d", p.id)
		p.disconnectf(ErrProtocolViolation, "sendtxrcncl from a peer that asked for no transactions")
		return
	}
	msg, ok := p.decode(f)
	if !ok || msg == nil {
		return
	}
	m, ok := msg.(*wire.MsgSendTxRcncl)
	if !ok {
		return
	}
	p.registerTxRecon(m)
}

// registerTxRecon completes the handshake with the peer's announcement.
func (p *Peer) registerTxRecon(m *wire.MsgSendTxRcncl) {
	p.mu.Lock()
	phase, local := p.recon.phase, p.recon.localSalt
	p.mu.Unlock()
	switch phase {
	case reconNone:
		// We did not offer reconciliation (an old common version, say),
		// so the announcement has nothing to pair with.
		p.cfg.Log.Debugf("Ignore unexpected txreconciliation signal from peer=%d", p.id)
		return
	case reconRegistered:
		p.cfg.Log.Debugf("txreconciliation protocol violation (sendtxrcncl received from already registered peer), disconnecting peer=%d", p.id)
		p.disconnectf(ErrProtocolViolation, "repeated sendtxrcncl")
		return
	}
	// A peer speaking a later version falls back to ours; version 0 does
	// not exist, so offering it breaks the protocol.
	version := min(m.Version, TxReconciliationVersion)
	if version < 1 {
		p.cfg.Log.Debugf("txreconciliation protocol violation, disconnecting peer=%d", p.id)
		p.disconnectf(ErrProtocolViolation, "sendtxrcncl version %d", m.Version)
		return
	}
	k0, k1 := reconSalt(local, m.Salt)
	p.mu.Lock()
	p.recon.phase = reconRegistered
	p.recon.state = ReconciliationState{Version: version, Initiator: !p.inbound, K0: k0, K1: k1}
	p.mu.Unlock()
	inbound := 0
	if p.inbound {
		inbound = 1
	}
	p.cfg.Log.Debugf("Register peer=%d (inbound=%d)", p.id, inbound)
}

// txReconAtVerAck drops the state at the peer's verack unless the
// registration completed and the peer negotiated wtxid relay: neither can
// happen any more, and reconciliation needs both.
func (p *Peer) txReconAtVerAck() {
	p.mu.Lock()
	keep := p.recon.phase == reconRegistered && p.wtxidRelay
	p.mu.Unlock()
	if !keep {
		p.forgetTxRecon()
	}
}

// forgetTxRecon drops the peer's reconciliation state, if it has any.
func (p *Peer) forgetTxRecon() {
	p.mu.Lock()
	had := p.recon.phase != reconNone
	p.recon = txRecon{}
	p.mu.Unlock()
	if had {
		p.cfg.Log.Debugf("Forget txreconciliation state of peer=%d", p.id)
	}
}
