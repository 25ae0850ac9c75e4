package wire

import (
	"encoding/binary"
	"net/netip"
)

// MaxUserAgentLen is the longest user agent a version message may carry
// (Bitcoin Core's MAX_SUBVERSION_LENGTH).
const MaxUserAgentLen = 256

// Protocol versions at which the message set changed.
const (
	// BIP0031Version is the last version without a nonce in ping.
	BIP0031Version uint32 = 60000
	// BIP0037Version added the relay flag to version and the bloom
	// filter messages.
	BIP0037Version uint32 = 70001
	// SendHeadersVersion added sendheaders (BIP130).
	SendHeadersVersion uint32 = 70012
	// FeeFilterVersion added feefilter (BIP133).
	FeeFilterVersion uint32 = 70013
	// ShortIDsBlocksVersion added compact blocks (BIP152).
	ShortIDsBlocksVersion uint32 = 70014
	// WTxidRelayVersion added wtxidrelay (BIP339).
	WTxidRelayVersion uint32 = 70016
)

// MsgVersion is the first message each side of a connection sends.
type MsgVersion struct {
	ProtocolVersion int32
	Services        ServiceFlag
	// Timestamp is the sender's clock in unix seconds.
	Timestamp int64
	// AddrYou is the receiver's address as the sender sees it (addr_recv).
	AddrYou NetAddress
	// AddrMe is the sender's own address (addr_from); Core ignores it.
	AddrMe    NetAddress
	Nonce     uint64
	UserAgent string
	LastBlock int32
	// DisableRelayTx is the inverse of the BIP37 relay flag.
	DisableRelayTx bool
}

// minVersionPayload is the mandatory part: version, services, time and the
// receiver's address.
const minVersionPayload = 4 + 8 + 8 + netAddressSize

// Command returns "version".
func (m *MsgVersion) Command() string { return CmdVersion }

// BtcDecode decodes a version payload. As in Bitcoin Core, the fields after
// the receiver's address come in optional groups (sender address and
// nonce; user agent; start height; relay flag); a missing group keeps its
// default (relay on) but a group cut short is an error. Bytes after the
// relay flag are ignored, since Core ignores them to allow future fields.
func (m *MsgVersion) BtcDecode(payload []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(payload)
	if len(payload) < minVersionPayload {
		return messageError(ErrTruncated, "version payload of %d bytes, need at least %d", len(payload), minVersionPayload)
	}
	var v MsgVersion
	v.ProtocolVersion = int32(r.u32())
	v.Services = ServiceFlag(r.u64())
	v.Timestamp = int64(r.u64())
	readNetAddress(&r, &v.AddrYou)
	if r.remaining() > 0 {
		readNetAddress(&r, &v.AddrMe)
		v.Nonce = r.u64()
	} else {
		// An absent sender address reads as the all-zero address it
		// encodes to, so decoding is stable under re-encoding.
		v.AddrMe.Addr = netip.IPv6Unspecified()
	}
	if r.remaining() > 0 && r.err == nil {
		ua := r.bytes(r.count("user agent length (MAX_SUBVERSION_LENGTH)", MaxUserAgentLen, 1))
		v.UserAgent = string(ua)
	}
	if r.remaining() > 0 {
		v.LastBlock = int32(r.u32())
	}
	if r.remaining() > 0 {
		v.DisableRelayTx = r.u8() == 0
	}
	if r.err != nil {
		return r.err
	}
	*m = v
	return nil
}

// BtcEncode appends the version payload with every optional field.
func (m *MsgVersion) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	if len(m.UserAgent) > MaxUserAgentLen {
		return dst, limitError("user agent length (MAX_SUBVERSION_LENGTH)", uint64(len(m.UserAgent)), MaxUserAgentLen)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(m.ProtocolVersion))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(m.Services))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(m.Timestamp))
	dst = appendNetAddress(dst, &m.AddrYou)
	dst = appendNetAddress(dst, &m.AddrMe)
	dst = binary.LittleEndian.AppendUint64(dst, m.Nonce)
	dst = AppendVarString(dst, m.UserAgent)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(m.LastBlock))
	relay := byte(1)
	if m.DisableRelayTx {
		relay = 0
	}
	return append(dst, relay), nil
}

// MaxPayloadLength is the protocol maximum: Core accepts any amount of data
// after the relay flag, so only the message size bounds a version.
func (m *MsgVersion) MaxPayloadLength(pver uint32) uint32 { return MaxProtocolMessageLength }

// HasService reports whether the version advertises service s.
func (m *MsgVersion) HasService(s ServiceFlag) bool { return m.Services&s == s }

// NewMsgVersion returns a version message for our protocol version.
func NewMsgVersion(me, you NetAddress, nonce uint64, lastBlock int32, unixTime int64) *MsgVersion {
	return &MsgVersion{
		ProtocolVersion: int32(ProtocolVersion),
		Services:        me.Services,
		Timestamp:       unixTime,
		AddrYou:         you,
		AddrMe:          me,
		Nonce:           nonce,
		LastBlock:       lastBlock,
	}
}
