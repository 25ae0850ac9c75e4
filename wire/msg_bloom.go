package wire

import "encoding/binary"

// BIP37 limits (Bitcoin Core's values).
const (
	// MaxFilterLoadFilterSize is the largest bloom filter in bytes
	// (MAX_BLOOM_FILTER_SIZE).
	MaxFilterLoadFilterSize = 36000
	// MaxFilterLoadHashFuncs is the most hash functions a filter may use
	// (MAX_HASH_FUNCS).
	MaxFilterLoadHashFuncs = 50
	// MaxFilterAddDataSize is the largest element filteradd may add
	// (MAX_SCRIPT_ELEMENT_SIZE).
	MaxFilterAddDataSize = 520
)

// BloomUpdateType says how a matching output updates the filter.
type BloomUpdateType uint8

// Bloom filter update modes.
const (
	BloomUpdateNone         BloomUpdateType = 0
	BloomUpdateAll          BloomUpdateType = 1
	BloomUpdateP2PubkeyOnly BloomUpdateType = 2
)

// MsgFilterLoad installs a BIP37 bloom filter.
//
// Like Core, the codec takes a filter of any size the message allows and
// leaves the protocol limits to WithinSizeConstraints: a node that
// receives a filter over them scores the sender as misbehaving (which does
// not disconnect a noban peer) rather than failing to parse the message.
type MsgFilterLoad struct {
	Filter    []byte
	HashFuncs uint32
	Tweak     uint32
	Flags     BloomUpdateType
}

// Command returns "filterload".
func (m *MsgFilterLoad) Command() string { return CmdFilterLoad }

// BtcDecode reads the filter; its size is bounded by the payload.
func (m *MsgFilterLoad) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	var v MsgFilterLoad
	f := r.bytes(r.count("bloom filter size", MaxProtocolMessageLength, 1))
	v.HashFuncs = r.u32()
	v.Tweak = r.u32()
	v.Flags = BloomUpdateType(r.u8())
	if err := finish(&r); err != nil {
		return err
	}
	v.Filter = append([]byte(nil), f...)
	*m = v
	return nil
}

// BtcEncode appends the filter.
func (m *MsgFilterLoad) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	dst = AppendVarBytes(dst, m.Filter)
	dst = binary.LittleEndian.AppendUint32(dst, m.HashFuncs)
	dst = binary.LittleEndian.AppendUint32(dst, m.Tweak)
	return append(dst, byte(m.Flags)), nil
}

// MaxPayloadLength is the message size limit: the protocol limits are
// checked after decoding (WithinSizeConstraints).
func (m *MsgFilterLoad) MaxPayloadLength(pver uint32) uint32 { return MaxProtocolMessageLength }

// WithinSizeConstraints reports whether the filter respects BIP37's limits
// (MAX_BLOOM_FILTER_SIZE bytes, MAX_HASH_FUNCS hash functions).
func (m *MsgFilterLoad) WithinSizeConstraints() bool {
	return len(m.Filter) <= MaxFilterLoadFilterSize && m.HashFuncs <= MaxFilterLoadHashFuncs
}

// MsgFilterAdd adds one element to the installed bloom filter. As for
// filterload, the codec accepts any size the message allows; an element
// over MaxFilterAddDataSize is the receiver's to refuse (WithinSizeLimit).
type MsgFilterAdd struct {
	Data []byte
}

// Command returns "filteradd".
func (m *MsgFilterAdd) Command() string { return CmdFilterAdd }

// BtcDecode reads the element; its size is bounded by the payload.
func (m *MsgFilterAdd) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	d := r.bytes(r.count("filteradd element size", MaxProtocolMessageLength, 1))
	if err := finish(&r); err != nil {
		return err
	}
	m.Data = append([]byte(nil), d...)
	return nil
}

// BtcEncode appends the element.
func (m *MsgFilterAdd) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	return AppendVarBytes(dst, m.Data), nil
}

// MaxPayloadLength is the message size limit (see WithinSizeLimit).
func (m *MsgFilterAdd) MaxPayloadLength(pver uint32) uint32 { return MaxProtocolMessageLength }

// WithinSizeLimit reports whether the element is at most
// MaxFilterAddDataSize (MAX_SCRIPT_ELEMENT_SIZE) bytes.
func (m *MsgFilterAdd) WithinSizeLimit() bool { return len(m.Data) <= MaxFilterAddDataSize }

// MsgMerkleBlock is a block header with a partial merkle tree proving the
// transactions that matched a bloom filter (BIP37).
type MsgMerkleBlock struct {
	Header       BlockHeader
	Transactions uint32
	Hashes       []Hash
	Flags        []byte
}

// Command returns "merkleblock".
func (m *MsgMerkleBlock) Command() string { return CmdMerkleBlock }

// BtcDecode reads the partial merkle tree; the message size bounds it.
func (m *MsgMerkleBlock) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	var v MsgMerkleBlock
	v.Header.decode(&r)
	v.Transactions = r.u32()
	n := r.count("merkle block hash count", MaxProtocolMessageLength/HashSize, HashSize)
	if r.err != nil {
		return r.err
	}
	v.Hashes = make([]Hash, n)
	for i := range v.Hashes {
		v.Hashes[i] = r.hash()
	}
	f := r.bytes(r.count("merkle block flag bytes", MaxProtocolMessageLength, 1))
	if err := finish(&r); err != nil {
		return err
	}
	v.Flags = append([]byte(nil), f...)
	*m = v
	return nil
}

// BtcEncode appends the message.
func (m *MsgMerkleBlock) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	dst = m.Header.AppendTo(dst)
	dst = binary.LittleEndian.AppendUint32(dst, m.Transactions)
	dst = AppendVarInt(dst, uint64(len(m.Hashes)))
	for i := range m.Hashes {
		dst = append(dst, m.Hashes[i][:]...)
	}
	return AppendVarBytes(dst, m.Flags), nil
}

// MaxPayloadLength is the message size limit.
func (m *MsgMerkleBlock) MaxPayloadLength(pver uint32) uint32 { return MaxProtocolMessageLength }

func (m *MsgMerkleBlock) payloadSize(MessageEncoding) int {
	return BlockHeaderSize + 4 + 9 + len(m.Hashes)*HashSize + 9 + len(m.Flags)
}
