package wire

import "encoding/binary"

// emptyPayload decodes a message that carries nothing.
func emptyPayload(payload []byte) error {
	if len(payload) != 0 {
		return messageError(ErrTrailingData, "%d bytes in an empty message", len(payload))
	}
	return nil
}

// MsgVerAck acknowledges a version message.
type MsgVerAck struct{}

// Command returns "verack".
func (m *MsgVerAck) Command() string { return CmdVerAck }

// BtcDecode accepts only an empty payload.
func (m *MsgVerAck) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	return emptyPayload(p)
}

// BtcEncode appends nothing.
func (m *MsgVerAck) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	return dst, nil
}

// MaxPayloadLength is 0.
func (m *MsgVerAck) MaxPayloadLength(pver uint32) uint32 { return 0 }

// MsgGetAddr asks the peer for addresses of other nodes.
type MsgGetAddr struct{}

// Command returns "getaddr".
func (m *MsgGetAddr) Command() string { return CmdGetAddr }

// BtcDecode accepts only an empty payload.
func (m *MsgGetAddr) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	return emptyPayload(p)
}

// BtcEncode appends nothing.
func (m *MsgGetAddr) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	return dst, nil
}

// MaxPayloadLength is 0.
func (m *MsgGetAddr) MaxPayloadLength(pver uint32) uint32 { return 0 }

// MsgSendAddrV2 asks the peer to send addrv2 instead of addr (BIP155).
type MsgSendAddrV2 struct{}

// Command returns "sendaddrv2".
func (m *MsgSendAddrV2) Command() string { return CmdSendAddrV2 }

// BtcDecode accepts only an empty payload.
func (m *MsgSendAddrV2) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	return emptyPayload(p)
}

// BtcEncode appends nothing.
func (m *MsgSendAddrV2) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	return dst, nil
}

// MaxPayloadLength is 0.
func (m *MsgSendAddrV2) MaxPayloadLength(pver uint32) uint32 { return 0 }

// MsgMemPool asks for the txids in the peer's mempool (BIP35).
type MsgMemPool struct{}

// Command returns "mempool".
func (m *MsgMemPool) Command() string { return CmdMemPool }

// BtcDecode accepts only an empty payload.
func (m *MsgMemPool) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	return emptyPayload(p)
}

// BtcEncode appends nothing.
func (m *MsgMemPool) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	return dst, nil
}

// MaxPayloadLength is 0.
func (m *MsgMemPool) MaxPayloadLength(pver uint32) uint32 { return 0 }

// MsgSendHeaders asks the peer to announce blocks with headers (BIP130).
type MsgSendHeaders struct{}

// Command returns "sendheaders".
func (m *MsgSendHeaders) Command() string { return CmdSendHeaders }

// BtcDecode accepts only an empty payload.
func (m *MsgSendHeaders) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	return emptyPayload(p)
}

// BtcEncode appends nothing.
func (m *MsgSendHeaders) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	return dst, nil
}

// MaxPayloadLength is 0.
func (m *MsgSendHeaders) MaxPayloadLength(pver uint32) uint32 { return 0 }

// MsgWtxidRelay announces that transactions are announced by wtxid
// (BIP339). It is sent between version and verack.
type MsgWtxidRelay struct{}

// Command returns "wtxidrelay".
func (m *MsgWtxidRelay) Command() string { return CmdWtxidRelay }

// BtcDecode accepts only an empty payload.
func (m *MsgWtxidRelay) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	return emptyPayload(p)
}

// BtcEncode appends nothing.
func (m *MsgWtxidRelay) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	return dst, nil
}

// MaxPayloadLength is 0.
func (m *MsgWtxidRelay) MaxPayloadLength(pver uint32) uint32 { return 0 }

// MsgFilterClear removes a BIP37 bloom filter.
type MsgFilterClear struct{}

// Command returns "filterclear".
func (m *MsgFilterClear) Command() string { return CmdFilterClear }

// BtcDecode accepts only an empty payload.
func (m *MsgFilterClear) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	return emptyPayload(p)
}

// BtcEncode appends nothing.
func (m *MsgFilterClear) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	return dst, nil
}

// MaxPayloadLength is 0.
func (m *MsgFilterClear) MaxPayloadLength(pver uint32) uint32 { return 0 }

// MsgPing checks that a connection is alive; the peer answers with a pong
// carrying the same nonce (BIP31).
type MsgPing struct {
	Nonce uint64
}

// Command returns "ping".
func (m *MsgPing) Command() string { return CmdPing }

// BtcDecode reads the nonce, which exists from protocol version 60001 on.
func (m *MsgPing) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	if pver <= BIP0031Version {
		m.Nonce = 0
		return emptyPayload(p)
	}
	r := newReader(p)
	n := r.u64()
	if err := finish(&r); err != nil {
		return err
	}
	m.Nonce = n
	return nil
}

// BtcEncode appends the nonce when pver has it.
func (m *MsgPing) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	if pver <= BIP0031Version {
		return dst, nil
	}
	return binary.LittleEndian.AppendUint64(dst, m.Nonce), nil
}

// MaxPayloadLength is 8 (0 before BIP31).
func (m *MsgPing) MaxPayloadLength(pver uint32) uint32 {
	if pver <= BIP0031Version {
		return 0
	}
	return 8
}

// MsgPong answers a ping with its nonce.
type MsgPong struct {
	Nonce uint64
}

// Command returns "pong".
func (m *MsgPong) Command() string { return CmdPong }

// BtcDecode reads the nonce.
func (m *MsgPong) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	n := r.u64()
	if err := finish(&r); err != nil {
		return err
	}
	m.Nonce = n
	return nil
}

// BtcEncode appends the nonce.
func (m *MsgPong) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	return binary.LittleEndian.AppendUint64(dst, m.Nonce), nil
}

// MaxPayloadLength is 8.
func (m *MsgPong) MaxPayloadLength(pver uint32) uint32 { return 8 }

// MsgFeeFilter tells the peer not to announce transactions paying less
// than MinFee satoshis per 1000 virtual bytes (BIP133).
type MsgFeeFilter struct {
	MinFee int64
}

// Command returns "feefilter".
func (m *MsgFeeFilter) Command() string { return CmdFeeFilter }

// BtcDecode reads the fee rate.
func (m *MsgFeeFilter) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	v := int64(r.u64())
	if err := finish(&r); err != nil {
		return err
	}
	m.MinFee = v
	return nil
}

// BtcEncode appends the fee rate.
func (m *MsgFeeFilter) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	return binary.LittleEndian.AppendUint64(dst, uint64(m.MinFee)), nil
}

// MaxPayloadLength is 8.
func (m *MsgFeeFilter) MaxPayloadLength(pver uint32) uint32 { return 8 }

// MsgSendCmpct negotiates compact block relay (BIP152).
type MsgSendCmpct struct {
	// AnnounceHighBandwidth asks the peer to send cmpctblock without an
	// inv or headers first.
	AnnounceHighBandwidth bool
	// Version is the compact block version; 2 uses wtxids.
	Version uint64
}

// Command returns "sendcmpct".
func (m *MsgSendCmpct) Command() string { return CmdSendCmpct }

// BtcDecode reads the flag (any non-zero byte is true) and the version.
func (m *MsgSendCmpct) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	hb := r.u8() != 0
	v := r.u64()
	if err := finish(&r); err != nil {
		return err
	}
	m.AnnounceHighBandwidth, m.Version = hb, v
	return nil
}

// BtcEncode appends the flag and version.
func (m *MsgSendCmpct) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	b := byte(0)
	if m.AnnounceHighBandwidth {
		b = 1
	}
	return binary.LittleEndian.AppendUint64(append(dst, b), m.Version), nil
}

// MaxPayloadLength is 9.
func (m *MsgSendCmpct) MaxPayloadLength(pver uint32) uint32 { return 9 }
