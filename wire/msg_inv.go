package wire

import (
	"encoding/binary"
	"strconv"
)

// MaxInvPerMsg is the most entries an inv, getdata or notfound message may
// carry (Bitcoin Core's MAX_INV_SZ).
const MaxInvPerMsg = 50000

// InvVectSize is the serialized size of an InvVect.
const InvVectSize = 4 + HashSize

// InvType says what an inventory vector names.
type InvType uint32

// InvWitnessFlag is ORed into a type to ask for witness data (BIP144).
const InvWitnessFlag InvType = 1 << 30

// Inventory types.
const (
	InvTypeError         InvType = 0
	InvTypeTx            InvType = 1
	InvTypeBlock         InvType = 2
	InvTypeFilteredBlock InvType = 3
	// InvTypeCmpctBlock asks for a block as cmpctblock (BIP152).
	InvTypeCmpctBlock InvType = 4
	// InvTypeWTx names a transaction by wtxid (BIP339).
	InvTypeWTx                  InvType = 5
	InvTypeWitnessTx                    = InvTypeTx | InvWitnessFlag
	InvTypeWitnessBlock                 = InvTypeBlock | InvWitnessFlag
	InvTypeWitnessFilteredBlock         = InvTypeFilteredBlock | InvWitnessFlag
)

// String names the type.
func (t InvType) String() string {
	switch t {
	case InvTypeError:
		return "ERROR"
	case InvTypeTx:
		return "MSG_TX"
	case InvTypeBlock:
		return "MSG_BLOCK"
	case InvTypeFilteredBlock:
		return "MSG_FILTERED_BLOCK"
	case InvTypeCmpctBlock:
		return "MSG_CMPCT_BLOCK"
	case InvTypeWTx:
		return "MSG_WTX"
	case InvTypeWitnessTx:
		return "MSG_WITNESS_TX"
	case InvTypeWitnessBlock:
		return "MSG_WITNESS_BLOCK"
	case InvTypeWitnessFilteredBlock:
		return "MSG_FILTERED_WITNESS_BLOCK"
	}
	return "InvType(" + strconv.FormatUint(uint64(t), 10) + ")"
}

// InvVect names a transaction or block.
type InvVect struct {
	Type InvType
	Hash Hash
}

// decodeInvList reads an inventory list bounded by MaxInvPerMsg.
func decodeInvList(p []byte) ([]InvVect, error) {
	r := newReader(p)
	n := r.count("inventory count (MAX_INV_SZ)", MaxInvPerMsg, InvVectSize)
	if r.err != nil {
		return nil, r.err
	}
	list := make([]InvVect, n)
	for i := range list {
		list[i].Type = InvType(r.u32())
		list[i].Hash = r.hash()
	}
	if err := finish(&r); err != nil {
		return nil, err
	}
	return list, nil
}

func encodeInvList(dst []byte, list []InvVect) ([]byte, error) {
	if len(list) > MaxInvPerMsg {
		return dst, limitError("inventory count (MAX_INV_SZ)", uint64(len(list)), MaxInvPerMsg)
	}
	dst = AppendVarInt(dst, uint64(len(list)))
	for i := range list {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(list[i].Type))
		dst = append(dst, list[i].Hash[:]...)
	}
	return dst, nil
}

func invListSize(n int) int { return VarIntSerializeSize(uint64(n)) + n*InvVectSize }

var maxInvPayload = uint32(invListSize(MaxInvPerMsg))

// MsgInv announces transactions and blocks.
type MsgInv struct {
	InvList []InvVect
}

// AddInvVect appends iv.
func (m *MsgInv) AddInvVect(iv InvVect) { m.InvList = append(m.InvList, iv) }

// Command returns "inv".
func (m *MsgInv) Command() string { return CmdInv }

// BtcDecode reads at most MaxInvPerMsg entries.
func (m *MsgInv) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	l, err := decodeInvList(p)
	if err == nil {
		m.InvList = l
	}
	return err
}

// BtcEncode appends the list.
func (m *MsgInv) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	return encodeInvList(dst, m.InvList)
}

// MaxPayloadLength is the size of MaxInvPerMsg entries.
func (m *MsgInv) MaxPayloadLength(pver uint32) uint32 { return maxInvPayload }

func (m *MsgInv) payloadSize(MessageEncoding) int { return invListSize(len(m.InvList)) }

// MsgGetData requests the objects named.
type MsgGetData struct {
	InvList []InvVect
}

// AddInvVect appends iv.
func (m *MsgGetData) AddInvVect(iv InvVect) { m.InvList = append(m.InvList, iv) }

// Command returns "getdata".
func (m *MsgGetData) Command() string { return CmdGetData }

// BtcDecode reads at most MaxInvPerMsg entries.
func (m *MsgGetData) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	l, err := decodeInvList(p)
	if err == nil {
		m.InvList = l
	}
	return err
}

// BtcEncode appends the list.
func (m *MsgGetData) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	return encodeInvList(dst, m.InvList)
}

// MaxPayloadLength is the size of MaxInvPerMsg entries.
func (m *MsgGetData) MaxPayloadLength(pver uint32) uint32 { return maxInvPayload }

func (m *MsgGetData) payloadSize(MessageEncoding) int { return invListSize(len(m.InvList)) }

// MsgNotFound answers a getdata for objects the peer does not have.
type MsgNotFound struct {
	InvList []InvVect
}

// AddInvVect appends iv.
func (m *MsgNotFound) AddInvVect(iv InvVect) { m.InvList = append(m.InvList, iv) }

// Command returns "notfound".
func (m *MsgNotFound) Command() string { return CmdNotFound }

// BtcDecode reads at most MaxInvPerMsg entries.
func (m *MsgNotFound) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	l, err := decodeInvList(p)
	if err == nil {
		m.InvList = l
	}
	return err
}

// BtcEncode appends the list.
func (m *MsgNotFound) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	return encodeInvList(dst, m.InvList)
}

// MaxPayloadLength is the size of MaxInvPerMsg entries.
func (m *MsgNotFound) MaxPayloadLength(pver uint32) uint32 { return maxInvPayload }

func (m *MsgNotFound) payloadSize(MessageEncoding) int { return invListSize(len(m.InvList)) }
