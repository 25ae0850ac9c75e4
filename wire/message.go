package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// MessageEncoding selects how transactions inside a message are
// serialized.
type MessageEncoding uint32

// Message encodings. BaseEncoding is the pre-segwit form (no witness data);
// WitnessEncoding is the BIP144 form.
const (
	BaseEncoding MessageEncoding = 1 << iota
	WitnessEncoding
)

// Message is a P2P message payload. BtcDecode decodes exactly one payload
// (the whole of payload) and never keeps a reference to it; BtcEncode
// appends the payload to dst.
type Message interface {
	Command() string
	BtcDecode(payload []byte, pver uint32, enc MessageEncoding) error
	BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error)
	MaxPayloadLength(pver uint32) uint32
}

// Message header layout.
const (
	// MessageHeaderSize is the size of a message header: magic, command,
	// payload length and checksum.
	MessageHeaderSize = 24
	// CommandSize is the size of the NUL-padded command field.
	CommandSize = 12
)

// Commands of the messages this package knows.
const (
	CmdVersion      = "version"
	CmdVerAck       = "verack"
	CmdPing         = "ping"
	CmdPong         = "pong"
	CmdAddr         = "addr"
	CmdAddrV2       = "addrv2"
	CmdGetAddr      = "getaddr"
	CmdSendAddrV2   = "sendaddrv2"
	CmdInv          = "inv"
	CmdGetData      = "getdata"
	CmdNotFound     = "notfound"
	CmdGetBlocks    = "getblocks"
	CmdGetHeaders   = "getheaders"
	CmdHeaders      = "headers"
	CmdBlock        = "block"
	CmdTx           = "tx"
	CmdMemPool      = "mempool"
	CmdSendHeaders  = "sendheaders"
	CmdFeeFilter    = "feefilter"
	CmdWtxidRelay   = "wtxidrelay"
	CmdSendCmpct    = "sendcmpct"
	CmdCmpctBlock   = "cmpctblock"
	CmdGetBlockTxn  = "getblocktxn"
	CmdBlockTxn     = "blocktxn"
	CmdGetCFilters  = "getcfilters"
	CmdCFilter      = "cfilter"
	CmdGetCFHeaders = "getcfheaders"
	CmdCFHeaders    = "cfheaders"
	CmdGetCFCheckpt = "getcfcheckpt"
	CmdCFCheckpt    = "cfcheckpt"
	CmdReject       = "reject"
	CmdFilterLoad   = "filterload"
	CmdFilterAdd    = "filteradd"
	CmdFilterClear  = "filterclear"
	CmdMerkleBlock  = "merkleblock"
	CmdSendTxRcncl  = "sendtxrcncl"
)

// MakeEmptyMessage returns a new zero message for command, or an error
// wrapping ErrUnknownCommand.
func MakeEmptyMessage(command string) (Message, error) {
	switch command {
	case CmdVersion:
		return &MsgVersion{}, nil
	case CmdVerAck:
		return &MsgVerAck{}, nil
	case CmdPing:
		return &MsgPing{}, nil
	case CmdPong:
		return &MsgPong{}, nil
	case CmdAddr:
		return &MsgAddr{}, nil
	case CmdAddrV2:
		return &MsgAddrV2{}, nil
	case CmdGetAddr:
		return &MsgGetAddr{}, nil
	case CmdSendAddrV2:
		return &MsgSendAddrV2{}, nil
	case CmdInv:
		return &MsgInv{}, nil
	case CmdGetData:
		return &MsgGetData{}, nil
	case CmdNotFound:
		return &MsgNotFound{}, nil
	case CmdGetBlocks:
		return &MsgGetBlocks{}, nil
	case CmdGetHeaders:
		return &MsgGetHeaders{}, nil
	case CmdHeaders:
		return &MsgHeaders{}, nil
	case CmdBlock:
		return &MsgBlock{}, nil
	case CmdTx:
		return &MsgTx{}, nil
	case CmdMemPool:
		return &MsgMemPool{}, nil
	case CmdSendHeaders:
		return &MsgSendHeaders{}, nil
	case CmdFeeFilter:
		return &MsgFeeFilter{}, nil
	case CmdWtxidRelay:
		return &MsgWtxidRelay{}, nil
	case CmdSendCmpct:
		return &MsgSendCmpct{}, nil
	case CmdCmpctBlock:
		return &MsgCmpctBlock{}, nil
	case CmdGetBlockTxn:
		return &MsgGetBlockTxn{}, nil
	case CmdBlockTxn:
		return &MsgBlockTxn{}, nil
	case CmdGetCFilters:
		return &MsgGetCFilters{}, nil
	case CmdCFilter:
		return &MsgCFilter{}, nil
	case CmdGetCFHeaders:
		return &MsgGetCFHeaders{}, nil
	case CmdCFHeaders:
		return &MsgCFHeaders{}, nil
	case CmdGetCFCheckpt:
		return &MsgGetCFCheckpt{}, nil
	case CmdCFCheckpt:
		return &MsgCFCheckpt{}, nil
	case CmdReject:
		return &MsgReject{}, nil
	case CmdFilterLoad:
		return &MsgFilterLoad{}, nil
	case CmdFilterAdd:
		return &MsgFilterAdd{}, nil
	case CmdFilterClear:
		return &MsgFilterClear{}, nil
	case CmdMerkleBlock:
		return &MsgMerkleBlock{}, nil
	case CmdSendTxRcncl:
		return &MsgSendTxRcncl{}, nil
	}
	return nil, &UnknownCommandError{Command: command}
}

// UnknownCommandError reports a message whose command this package does not
// know. errors.Is(err, ErrUnknownCommand) matches it. When ReadMessage
// returns it the payload has been consumed, so the caller may ignore the
// message and keep reading.
type UnknownCommandError struct {
	Command string
	Length  uint32
}

// Error names the command.
func (e *UnknownCommandError) Error() string {
	return fmt.Sprintf("%s %q", ErrUnknownCommand, e.Command)
}

// Unwrap exposes ErrUnknownCommand to errors.Is.
func (e *UnknownCommandError) Unwrap() error { return ErrUnknownCommand }

// MessageHeader is the 24-byte header in front of every message.
type MessageHeader struct {
	Net      BitcoinNet
	Command  string
	Length   uint32
	Checksum [4]byte
}

// DecodeMessageHeader decodes a header from the front of b. The length
// must be at most MaxProtocolMessageLength (checked first, ErrLimitExceeded)
// and the command printable ASCII padded with NULs, Bitcoin Core's rule
// (ErrMalformed; the other fields are still filled in).
func DecodeMessageHeader(b []byte) (MessageHeader, error) {
	var h MessageHeader
	if len(b) < MessageHeaderSize {
		return h, messageError(ErrTruncated, "message header of %d bytes", len(b))
	}
	h.Net = BitcoinNet(binary.LittleEndian.Uint32(b))
	h.Length = binary.LittleEndian.Uint32(b[16:])
	copy(h.Checksum[:], b[20:24])
	if h.Length > MaxProtocolMessageLength {
		return h, limitError("message payload length (MaxProtocolMessageLength)", uint64(h.Length), MaxProtocolMessageLength)
	}
	cmd := b[4 : 4+CommandSize]
	n := 0
	for n < CommandSize && cmd[n] != 0 {
		if cmd[n] < 0x20 || cmd[n] > 0x7e {
			return h, messageError(ErrMalformed, "command byte %#x at %d is not printable ASCII", cmd[n], n)
		}
		n++
	}
	for i := n; i < CommandSize; i++ {
		if cmd[i] != 0 {
			return h, messageError(ErrMalformed, "command has data after its NUL padding")
		}
	}
	h.Command = commandString(cmd[:n])
	return h, nil
}

// knownCommands lets commandString return a constant instead of allocating
// a string for every header read.
var knownCommands = [...]string{
	CmdVersion, CmdVerAck, CmdPing, CmdPong, CmdAddr, CmdAddrV2, CmdSendAddrV2,
	CmdGetAddr, CmdInv, CmdGetData, CmdNotFound, CmdGetBlocks, CmdGetHeaders, CmdHeaders,
	CmdBlock, CmdTx, CmdMemPool, CmdSendHeaders, CmdFeeFilter, CmdWtxidRelay,
	CmdSendCmpct, CmdCmpctBlock, CmdGetBlockTxn, CmdBlockTxn, CmdGetCFilters,
	CmdCFilter, CmdGetCFHeaders, CmdCFHeaders, CmdGetCFCheckpt, CmdCFCheckpt,
	CmdReject, CmdFilterLoad, CmdFilterAdd, CmdFilterClear, CmdMerkleBlock,
	CmdSendTxRcncl,
}

func commandString(b []byte) string {
	for _, c := range knownCommands {
		if string(b) == c {
			return c
		}
	}
	return string(b)
}

// AppendTo appends the 24-byte header to dst. A command longer than
// CommandSize is truncated; WriteMessage refuses such commands first.
func (h *MessageHeader) AppendTo(dst []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.Net))
	var cmd [CommandSize]byte
	copy(cmd[:], h.Command)
	dst = append(dst, cmd[:]...)
	dst = binary.LittleEndian.AppendUint32(dst, h.Length)
	return append(dst, h.Checksum[:]...)
}

// checksum returns the first four bytes of sha256d(payload).
func checksum(payload []byte) (c [4]byte) {
	h := DoubleHashH(payload)
	copy(c[:], h[:4])
	return c
}

// ReadMessage reads one message from r. It checks the header (magic,
// command, length limit) before reading the payload into a pooled buffer,
// then the checksum, then decodes. n counts the bytes read.
//
// After ErrBadChecksum, an UnknownCommandError, a command that is not
// printable ASCII (ErrMalformed) or a payload decoding error, the whole
// message has been consumed and the stream is still in step, so the caller
// may ignore the message and continue, as Bitcoin Core does. After a wrong
// network, an oversized length or an I/O error it is not.
func ReadMessage(r io.Reader, pver uint32, net BitcoinNet, enc MessageEncoding) (n int, msg Message, err error) {
	hp := GetBuffer(MessageHeaderSize)
	n, err = io.ReadFull(r, *hp)
	if err != nil {
		PutBuffer(hp)
		return n, nil, err
	}
	hdr, hdrErr := DecodeMessageHeader(*hp)
	PutBuffer(hp)
	if errors.Is(hdrErr, ErrLimitExceeded) {
		return n, nil, hdrErr
	}
	if hdr.Net != net {
		return n, nil, messageError(ErrWrongNetwork, "message from network %v, expected %v", hdr.Net, net)
	}
	var mkErr error
	if hdrErr == nil {
		msg, mkErr = MakeEmptyMessage(hdr.Command)
	}
	if hdrErr == nil && mkErr == nil {
		if max := msg.MaxPayloadLength(pver); hdr.Length > max {
			return n, nil, limitError("payload length of "+hdr.Command+" message", uint64(hdr.Length), uint64(max))
		}
	}
	bp := GetBuffer(int(hdr.Length))
	defer PutBuffer(bp)
	pn, err := io.ReadFull(r, *bp)
	n += pn
	if err != nil {
		return n, nil, err
	}
	if hdrErr != nil {
		return n, nil, hdrErr
	}
	if mkErr != nil {
		return n, nil, &UnknownCommandError{Command: hdr.Command, Length: hdr.Length}
	}
	if checksum(*bp) != hdr.Checksum {
		return n, nil, messageError(ErrBadChecksum, "%s message", hdr.Command)
	}
	if err := msg.BtcDecode(*bp, pver, enc); err != nil {
		return n, nil, fmt.Errorf("%s message: %w", hdr.Command, err)
	}
	return n, msg, nil
}

// payloadSizer is implemented by messages that can tell their encoded size
// cheaply, so WriteMessage takes a pooled buffer that will not grow.
type payloadSizer interface {
	payloadSize(enc MessageEncoding) int
}

// WriteMessage encodes msg with its header into a pooled buffer and writes
// it to w in one Write call. It returns the bytes written.
func WriteMessage(w io.Writer, msg Message, pver uint32, net BitcoinNet, enc MessageEncoding) (int, error) {
	cmd := msg.Command()
	if len(cmd) > CommandSize {
		return 0, messageError(ErrMalformed, "command %q longer than %d bytes", cmd, CommandSize)
	}
	size := 256
	if s, ok := msg.(payloadSizer); ok {
		size = s.payloadSize(enc)
	}
	bp := GetBuffer(MessageHeaderSize + size)
	defer func() { PutBuffer(bp) }()
	buf := (*bp)[:MessageHeaderSize]
	buf, err := msg.BtcEncode(buf, pver, enc)
	*bp = buf
	if err != nil {
		return 0, fmt.Errorf("%s message: %w", cmd, err)
	}
	payload := buf[MessageHeaderSize:]
	if len(payload) > MaxProtocolMessageLength {
		return 0, limitError("payload length of "+cmd+" message (MaxProtocolMessageLength)", uint64(len(payload)), MaxProtocolMessageLength)
	}
	if max := msg.MaxPayloadLength(pver); uint64(len(payload)) > uint64(max) {
		return 0, limitError("payload length of "+cmd+" message", uint64(len(payload)), uint64(max))
	}
	hdr := MessageHeader{Net: net, Command: cmd, Length: uint32(len(payload)), Checksum: checksum(payload)}
	hdr.AppendTo(buf[:0])
	return w.Write(buf)
}

// finish reports trailing bytes left after a payload's content.
func finish(r *reader) error {
	if r.err != nil {
		return r.err
	}
	if r.remaining() != 0 {
		return messageError(ErrTrailingData, "%d bytes after the payload's content", r.remaining())
	}
	return nil
}
