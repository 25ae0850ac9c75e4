package wire

import "encoding/binary"

// MsgSendTxRcncl announces support for transaction reconciliation (BIP330,
// Erlay). It is sent between version and verack and carries the highest
// reconciliation protocol version the sender speaks and the sender's half
// of the salt that keys the short transaction ids of a reconciliation.
type MsgSendTxRcncl struct {
	Version uint32
	Salt    uint64
}

// sendTxRcnclPayload is the fixed payload size: a 32-bit version and a
// 64-bit salt.
const sendTxRcnclPayload = 4 + 8

// Command returns "sendtxrcncl".
func (m *MsgSendTxRcncl) Command() string { return CmdSendTxRcncl }

// BtcDecode reads the version and salt; anything after them is an error.
func (m *MsgSendTxRcncl) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	v := r.u32()
	s := r.u64()
	if err := finish(&r); err != nil {
		return err
	}
	m.Version, m.Salt = v, s
	return nil
}

// BtcEncode appends the version and salt, both little-endian.
func (m *MsgSendTxRcncl) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	dst = binary.LittleEndian.AppendUint32(dst, m.Version)
	return binary.LittleEndian.AppendUint64(dst, m.Salt), nil
}

// MaxPayloadLength is 12.
func (m *MsgSendTxRcncl) MaxPayloadLength(pver uint32) uint32 { return sendTxRcnclPayload }
