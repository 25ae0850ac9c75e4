package wire

import "encoding/binary"

// FilterType is a BIP158 filter type.
type FilterType uint8

// GCSFilterRegular is the basic filter (BIP158).
const GCSFilterRegular FilterType = 0

// BIP157 limits.
const (
	// MaxGetCFiltersReqRange is the most filters one getcfilters may ask
	// for (MAX_GETCFILTERS_SIZE). The range is in heights, so the serving
	// side checks it once it has resolved StopHash.
	MaxGetCFiltersReqRange = 1000
	// MaxCFHeadersPerMsg is the most filter hashes a cfheaders message may
	// carry (MAX_GETCFHEADERS_SIZE).
	MaxCFHeadersPerMsg = 2000
	// CFCheckptInterval is the spacing of cfcheckpt headers.
	CFCheckptInterval = 1000
	// maxCFCheckpts bounds a cfcheckpt by the message size.
	maxCFCheckpts = MaxProtocolMessageLength / HashSize
)

// MsgGetCFilters asks for the filters of the blocks from StartHeight to
// the block StopHash.
type MsgGetCFilters struct {
	FilterType  FilterType
	StartHeight uint32
	StopHash    Hash
}

// Command returns "getcfilters".
func (m *MsgGetCFilters) Command() string { return CmdGetCFilters }

// BtcDecode reads the request.
func (m *MsgGetCFilters) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	var v MsgGetCFilters
	v.FilterType = FilterType(r.u8())
	v.StartHeight = r.u32()
	v.StopHash = r.hash()
	if err := finish(&r); err != nil {
		return err
	}
	*m = v
	return nil
}

// BtcEncode appends the request.
func (m *MsgGetCFilters) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	dst = binary.LittleEndian.AppendUint32(append(dst, byte(m.FilterType)), m.StartHeight)
	return append(dst, m.StopHash[:]...), nil
}

// MaxPayloadLength is 37.
func (m *MsgGetCFilters) MaxPayloadLength(pver uint32) uint32 { return 1 + 4 + HashSize }

// MsgGetCFHeaders asks for the filter headers from StartHeight to the
// block StopHash.
type MsgGetCFHeaders struct {
	FilterType  FilterType
	StartHeight uint32
	StopHash    Hash
}

// Command returns "getcfheaders".
func (m *MsgGetCFHeaders) Command() string { return CmdGetCFHeaders }

// BtcDecode reads the request.
func (m *MsgGetCFHeaders) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	var v MsgGetCFHeaders
	v.FilterType = FilterType(r.u8())
	v.StartHeight = r.u32()
	v.StopHash = r.hash()
	if err := finish(&r); err != nil {
		return err
	}
	*m = v
	return nil
}

// BtcEncode appends the request.
func (m *MsgGetCFHeaders) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	dst = binary.LittleEndian.AppendUint32(append(dst, byte(m.FilterType)), m.StartHeight)
	return append(dst, m.StopHash[:]...), nil
}

// MaxPayloadLength is 37.
func (m *MsgGetCFHeaders) MaxPayloadLength(pver uint32) uint32 { return 1 + 4 + HashSize }

// MsgGetCFCheckpt asks for the filter headers at every 1,000th block up to
// StopHash.
type MsgGetCFCheckpt struct {
	FilterType FilterType
	StopHash   Hash
}

// Command returns "getcfcheckpt".
func (m *MsgGetCFCheckpt) Command() string { return CmdGetCFCheckpt }

// BtcDecode reads the request.
func (m *MsgGetCFCheckpt) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	var v MsgGetCFCheckpt
	v.FilterType = FilterType(r.u8())
	v.StopHash = r.hash()
	if err := finish(&r); err != nil {
		return err
	}
	*m = v
	return nil
}

// BtcEncode appends the request.
func (m *MsgGetCFCheckpt) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	return append(append(dst, byte(m.FilterType)), m.StopHash[:]...), nil
}

// MaxPayloadLength is 33.
func (m *MsgGetCFCheckpt) MaxPayloadLength(pver uint32) uint32 { return 1 + HashSize }

// MsgCFilter carries one block's compact filter.
type MsgCFilter struct {
	FilterType FilterType
	BlockHash  Hash
	Data       []byte
}

// Command returns "cfilter".
func (m *MsgCFilter) Command() string { return CmdCFilter }

// BtcDecode reads the filter, copying its bytes.
func (m *MsgCFilter) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	var v MsgCFilter
	v.FilterType = FilterType(r.u8())
	v.BlockHash = r.hash()
	data := r.bytes(r.count("filter size", MaxProtocolMessageLength, 1))
	if err := finish(&r); err != nil {
		return err
	}
	v.Data = append([]byte(nil), data...)
	*m = v
	return nil
}

// BtcEncode appends the filter.
func (m *MsgCFilter) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	dst = append(append(dst, byte(m.FilterType)), m.BlockHash[:]...)
	return AppendVarBytes(dst, m.Data), nil
}

// MaxPayloadLength is the message size limit.
func (m *MsgCFilter) MaxPayloadLength(pver uint32) uint32 { return MaxProtocolMessageLength }

func (m *MsgCFilter) payloadSize(MessageEncoding) int { return 1 + HashSize + 9 + len(m.Data) }

// MsgCFHeaders carries filter hashes from which the receiver derives a run
// of filter headers, starting from PrevFilterHeader.
type MsgCFHeaders struct {
	FilterType       FilterType
	StopHash         Hash
	PrevFilterHeader Hash
	FilterHashes     []Hash
}

// Command returns "cfheaders".
func (m *MsgCFHeaders) Command() string { return CmdCFHeaders }

// BtcDecode reads at most MaxCFHeadersPerMsg hashes.
func (m *MsgCFHeaders) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	var v MsgCFHeaders
	v.FilterType = FilterType(r.u8())
	v.StopHash = r.hash()
	v.PrevFilterHeader = r.hash()
	n := r.count("filter hash count (MAX_GETCFHEADERS_SIZE)", MaxCFHeadersPerMsg, HashSize)
	if r.err != nil {
		return r.err
	}
	v.FilterHashes = make([]Hash, n)
	for i := range v.FilterHashes {
		v.FilterHashes[i] = r.hash()
	}
	if err := finish(&r); err != nil {
		return err
	}
	*m = v
	return nil
}

// BtcEncode appends the message.
func (m *MsgCFHeaders) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	if len(m.FilterHashes) > MaxCFHeadersPerMsg {
		return dst, limitError("filter hash count (MAX_GETCFHEADERS_SIZE)", uint64(len(m.FilterHashes)), MaxCFHeadersPerMsg)
	}
	dst = append(append(dst, byte(m.FilterType)), m.StopHash[:]...)
	dst = append(dst, m.PrevFilterHeader[:]...)
	dst = AppendVarInt(dst, uint64(len(m.FilterHashes)))
	for i := range m.FilterHashes {
		dst = append(dst, m.FilterHashes[i][:]...)
	}
	return dst, nil
}

// MaxPayloadLength is the size with MaxCFHeadersPerMsg hashes.
func (m *MsgCFHeaders) MaxPayloadLength(pver uint32) uint32 {
	return uint32(1 + 2*HashSize + VarIntSerializeSize(MaxCFHeadersPerMsg) + MaxCFHeadersPerMsg*HashSize)
}

func (m *MsgCFHeaders) payloadSize(MessageEncoding) int {
	return 1 + 2*HashSize + 9 + len(m.FilterHashes)*HashSize
}

// MsgCFCheckpt carries the filter headers at every 1,000th block up to
// StopHash.
type MsgCFCheckpt struct {
	FilterType    FilterType
	StopHash      Hash
	FilterHeaders []Hash
}

// Command returns "cfcheckpt".
func (m *MsgCFCheckpt) Command() string { return CmdCFCheckpt }

// BtcDecode reads the checkpoints; only the message size bounds them.
func (m *MsgCFCheckpt) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	var v MsgCFCheckpt
	v.FilterType = FilterType(r.u8())
	v.StopHash = r.hash()
	n := r.count("filter checkpoint count", maxCFCheckpts, HashSize)
	if r.err != nil {
		return r.err
	}
	v.FilterHeaders = make([]Hash, n)
	for i := range v.FilterHeaders {
		v.FilterHeaders[i] = r.hash()
	}
	if err := finish(&r); err != nil {
		return err
	}
	*m = v
	return nil
}

// BtcEncode appends the message.
func (m *MsgCFCheckpt) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	dst = append(append(dst, byte(m.FilterType)), m.StopHash[:]...)
	dst = AppendVarInt(dst, uint64(len(m.FilterHeaders)))
	for i := range m.FilterHeaders {
		dst = append(dst, m.FilterHeaders[i][:]...)
	}
	return dst, nil
}

// MaxPayloadLength is the message size limit.
func (m *MsgCFCheckpt) MaxPayloadLength(pver uint32) uint32 { return MaxProtocolMessageLength }

func (m *MsgCFCheckpt) payloadSize(MessageEncoding) int {
	return 1 + HashSize + 9 + len(m.FilterHeaders)*HashSize
}
