package wire

import "encoding/binary"

// Limits of the header-sync messages (Bitcoin Core's values).
const (
	// MaxBlockLocatorsPerMsg is the most hashes a block locator may hold
	// (MAX_LOCATOR_SZ).
	MaxBlockLocatorsPerMsg = 101
	// MaxBlockHeadersPerMsg is the most headers a headers message may
	// carry (MAX_HEADERS_RESULTS).
	MaxBlockHeadersPerMsg = 2000
	// MaxBlocksPerMsg is the most blocks a getblocks reply announces.
	MaxBlocksPerMsg = 500
)

// MsgGetBlocks asks for an inv of the blocks after the first locator hash
// the peer knows, up to HashStop or 500 blocks.
type MsgGetBlocks struct {
	ProtocolVersion    uint32
	BlockLocatorHashes []Hash
	HashStop           Hash
}

// MsgGetHeaders asks for the headers after the first locator hash the peer
// knows, up to HashStop or 2,000 headers.
type MsgGetHeaders struct {
	ProtocolVersion    uint32
	BlockLocatorHashes []Hash
	HashStop           Hash
}

func decodeLocator(p []byte) (pv uint32, loc []Hash, stop Hash, err error) {
	r := newReader(p)
	pv = r.u32()
	n := r.count("block locator size (MAX_LOCATOR_SZ)", MaxBlockLocatorsPerMsg, HashSize)
	if r.err != nil {
		return 0, nil, stop, r.err
	}
	loc = make([]Hash, n)
	for i := range loc {
		loc[i] = r.hash()
	}
	stop = r.hash()
	return pv, loc, stop, finish(&r)
}

func encodeLocator(dst []byte, pv uint32, loc []Hash, stop *Hash) ([]byte, error) {
	if len(loc) > MaxBlockLocatorsPerMsg {
		return dst, limitError("block locator size (MAX_LOCATOR_SZ)", uint64(len(loc)), MaxBlockLocatorsPerMsg)
	}
	dst = binary.LittleEndian.AppendUint32(dst, pv)
	dst = AppendVarInt(dst, uint64(len(loc)))
	for i := range loc {
		dst = append(dst, loc[i][:]...)
	}
	return append(dst, stop[:]...), nil
}

var maxLocatorPayload = uint32(4 + VarIntSerializeSize(MaxBlockLocatorsPerMsg) + (MaxBlockLocatorsPerMsg+1)*HashSize)

// Command returns "getblocks".
func (m *MsgGetBlocks) Command() string { return CmdGetBlocks }

// BtcDecode reads a locator of at most MaxBlockLocatorsPerMsg hashes.
func (m *MsgGetBlocks) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	pv, loc, stop, err := decodeLocator(p)
	if err == nil {
		m.ProtocolVersion, m.BlockLocatorHashes, m.HashStop = pv, loc, stop
	}
	return err
}

// BtcEncode appends the request.
func (m *MsgGetBlocks) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	return encodeLocator(dst, m.ProtocolVersion, m.BlockLocatorHashes, &m.HashStop)
}

// MaxPayloadLength is the size of a full locator.
func (m *MsgGetBlocks) MaxPayloadLength(pver uint32) uint32 { return maxLocatorPayload }

// AddBlockLocatorHash appends h to the locator.
func (m *MsgGetBlocks) AddBlockLocatorHash(h Hash) {
	m.BlockLocatorHashes = append(m.BlockLocatorHashes, h)
}

// Command returns "getheaders".
func (m *MsgGetHeaders) Command() string { return CmdGetHeaders }

// BtcDecode reads a locator of at most MaxBlockLocatorsPerMsg hashes.
func (m *MsgGetHeaders) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	pv, loc, stop, err := decodeLocator(p)
	if err == nil {
		m.ProtocolVersion, m.BlockLocatorHashes, m.HashStop = pv, loc, stop
	}
	return err
}

// BtcEncode appends the request.
func (m *MsgGetHeaders) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	return encodeLocator(dst, m.ProtocolVersion, m.BlockLocatorHashes, &m.HashStop)
}

// MaxPayloadLength is the size of a full locator.
func (m *MsgGetHeaders) MaxPayloadLength(pver uint32) uint32 { return maxLocatorPayload }

// AddBlockLocatorHash appends h to the locator.
func (m *MsgGetHeaders) AddBlockLocatorHash(h Hash) {
	m.BlockLocatorHashes = append(m.BlockLocatorHashes, h)
}

// MsgHeaders carries block headers, each followed on the wire by a
// transaction count that must be zero.
type MsgHeaders struct {
	Headers []BlockHeader
}

// Command returns "headers".
func (m *MsgHeaders) Command() string { return CmdHeaders }

// BtcDecode reads at most MaxBlockHeadersPerMsg headers.
func (m *MsgHeaders) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	n := r.count("header count (MAX_HEADERS_RESULTS)", MaxBlockHeadersPerMsg, BlockHeaderSize+1)
	if r.err != nil {
		return r.err
	}
	hs := make([]BlockHeader, n)
	for i := range hs {
		hs[i].decode(&r)
		if txc := r.varint(); txc != 0 {
			return messageError(ErrMalformed, "header %d has transaction count %d, want 0", i, txc)
		}
	}
	if err := finish(&r); err != nil {
		return err
	}
	m.Headers = hs
	return nil
}

// BtcEncode appends the headers, each with a zero transaction count.
func (m *MsgHeaders) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	if len(m.Headers) > MaxBlockHeadersPerMsg {
		return dst, limitError("header count (MAX_HEADERS_RESULTS)", uint64(len(m.Headers)), MaxBlockHeadersPerMsg)
	}
	dst = AppendVarInt(dst, uint64(len(m.Headers)))
	for i := range m.Headers {
		dst = append(m.Headers[i].AppendTo(dst), 0)
	}
	return dst, nil
}

// MaxPayloadLength is the size of MaxBlockHeadersPerMsg headers.
func (m *MsgHeaders) MaxPayloadLength(pver uint32) uint32 {
	return uint32(VarIntSerializeSize(MaxBlockHeadersPerMsg) + MaxBlockHeadersPerMsg*(BlockHeaderSize+1))
}

func (m *MsgHeaders) payloadSize(MessageEncoding) int {
	return VarIntSerializeSize(uint64(len(m.Headers))) + len(m.Headers)*(BlockHeaderSize+1)
}

// AddBlockHeader appends h.
func (m *MsgHeaders) AddBlockHeader(h BlockHeader) { m.Headers = append(m.Headers, h) }
