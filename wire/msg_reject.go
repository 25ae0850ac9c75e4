package wire

import (
	"fmt"
	"strconv"
)

// RejectCode is the reason class of a reject message (BIP61).
type RejectCode uint8

// Reject codes.
const (
	RejectMalformed       RejectCode = 0x01
	RejectInvalid         RejectCode = 0x10
	RejectObsolete        RejectCode = 0x11
	RejectDuplicate       RejectCode = 0x12
	RejectNonstandard     RejectCode = 0x40
	RejectDust            RejectCode = 0x41
	RejectInsufficientFee RejectCode = 0x42
	RejectCheckpoint      RejectCode = 0x43
)

// String names the code.
func (c RejectCode) String() string {
	switch c {
	case RejectMalformed:
		return "REJECT_MALFORMED"
	case RejectInvalid:
		return "REJECT_INVALID"
	case RejectObsolete:
		return "REJECT_OBSOLETE"
	case RejectDuplicate:
		return "REJECT_DUPLICATE"
	case RejectNonstandard:
		return "REJECT_NONSTANDARD"
	case RejectDust:
		return "REJECT_DUST"
	case RejectInsufficientFee:
		return "REJECT_INSUFFICIENTFEE"
	case RejectCheckpoint:
		return "REJECT_CHECKPOINT"
	}
	return "RejectCode(" + strconv.Itoa(int(c)) + ")"
}

// MsgReject is the BIP61 reject message. Bitcoin Core no longer sends it
// (since 0.20); older peers may, so it is decoded for logging only.
type MsgReject struct {
	// Cmd is the command of the rejected message.
	Cmd    string
	Code   RejectCode
	Reason string
	// Hash names the rejected block or transaction (only for those).
	Hash Hash
}

// Command returns "reject".
func (m *MsgReject) Command() string { return CmdReject }

// BtcDecode reads a reject. The rejected command is at most CommandSize
// bytes; the reason is bounded only by the message, since old btcd sends
// reasons longer than Core's 111 bytes. A hash follows for tx and block.
func (m *MsgReject) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	var v MsgReject
	v.Cmd = string(r.bytes(r.count("rejected command length", CommandSize, 1)))
	v.Code = RejectCode(r.u8())
	v.Reason = string(r.bytes(r.count("reject reason length", MaxProtocolMessageLength, 1)))
	if v.Cmd == CmdBlock || v.Cmd == CmdTx {
		v.Hash = r.hash()
	}
	if err := finish(&r); err != nil {
		return err
	}
	*m = v
	return nil
}

// BtcEncode appends the reject; it exists for tests, the node never sends
// reject.
func (m *MsgReject) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	if len(m.Cmd) > CommandSize {
		return dst, limitError("rejected command length", uint64(len(m.Cmd)), CommandSize)
	}
	dst = AppendVarString(dst, m.Cmd)
	dst = append(dst, byte(m.Code))
	dst = AppendVarString(dst, m.Reason)
	if m.Cmd == CmdBlock || m.Cmd == CmdTx {
		dst = append(dst, m.Hash[:]...)
	}
	return dst, nil
}

// MaxPayloadLength is the message size limit.
func (m *MsgReject) MaxPayloadLength(pver uint32) uint32 { return MaxProtocolMessageLength }

// String describes the reject for logs.
func (m *MsgReject) String() string {
	s := fmt.Sprintf("cmd %q, code %v, reason %q", m.Cmd, m.Code, m.Reason)
	if m.Cmd == CmdBlock || m.Cmd == CmdTx {
		s += ", hash " + m.Hash.String()
	}
	return s
}
