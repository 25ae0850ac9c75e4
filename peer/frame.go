package peer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/btcnode/btcd/wire"
	"github.com/btcsuite/btclog"
)

// frame is one message as it came off the wire: its command and its
// checksummed payload, not yet decoded. The reader looks at the command
// first because, like Core, it ignores some messages without parsing them
// (anything before version, most things before verack) and treats a few
// payloads its own way (a short pong, an addr of more than 1000 entries).
type frame struct {
	cmd string
	buf *[]byte // pooled payload; release returns it
	n   int     // bytes read, header included
}

func (f *frame) payload() []byte { return *f.buf }

func (f *frame) release() {
	wire.PutBuffer(f.buf)
	f.buf = nil
}

// lenientLength lists the commands whose payload may exceed the decoder's
// limit, up to wire.MaxProtocolMessageLength as for any message in Core:
// Core reads a pong's nonce and ignores what follows, and it counts the
// entries of an addr or addrv2 before refusing more than 1000, which it
// reports with the count.
func lenientLength(cmd string) bool {
	return cmd == wire.CmdPong || cmd == wire.CmdAddr || cmd == wire.CmdAddrV2
}

// readFrame reads the next message's header and payload and checks the
// framing: network magic, length limits, command characters, checksum.
// It returns ok false once the peer has been disconnected, for a framing
// error or because the connection ended.
func (p *Peer) readFrame() (f frame, ok bool) {
	if p.v2 != nil {
		return p.readFrameV2()
	}
	n, err := io.ReadFull(p.rd, p.hdr[:])
	if err != nil {
		p.readFailed(err)
		return f, false
	}
	hdr, hdrErr := wire.DecodeMessageHeader(p.hdr[:])
	if errors.Is(hdrErr, wire.ErrLimitExceeded) {
		p.cfg.Log.Debugf("Header error: Size too large (%s, %d bytes), peer=%d", hdr.Command, hdr.Length, p.id)
		p.misbehaveAndDisconnect(PenaltyOversized, ErrBadMessage, hdrErr.Error())
		return f, false
	}
	if hdr.Net != p.cfg.Net {
		p.cfg.Log.Debugf("Header error: Wrong MessageStart %08x received, peer=%d", uint32(hdr.Net), p.id)
		err := fmt.Errorf("%w: message from network %v, expected %v", wire.ErrWrongNetwork, hdr.Net, p.cfg.Net)
		p.misbehaveAndDisconnect(PenaltyWrongNetwork, ErrBadMessage, err.Error())
		return f, false
	}
	if hdrErr == nil && !p.checkLength(hdr.Command, hdr.Length, n) {
		return f, false
	}
	// The length is at most MaxProtocolMessageLength here, and the
	// buffer goes back to the pool after the message is handled.
	bp := wire.GetBuffer(int(hdr.Length))
	pn, err := io.ReadFull(p.rd, *bp)
	n += pn
	if err != nil {
		wire.PutBuffer(bp)
		p.readFailed(err)
		return f, false
	}
	if hdrErr != nil {
		wire.PutBuffer(bp)
		p.misbehaveAndDisconnect(PenaltyMalformed, ErrBadMessage, hdrErr.Error())
		return f, false
	}
	p.countRecv(hdr.Command, n)
	if sum := wire.DoubleHashH(*bp); [4]byte(sum[:4]) != hdr.Checksum {
		wire.PutBuffer(bp)
		err := fmt.Errorf("%w: %s message", wire.ErrBadChecksum, hdr.Command)
		p.misbehaveAndDisconnect(PenaltyBadChecksum, ErrBadMessage, err.Error())
		return f, false
	}
	if p.debug() {
		p.cfg.Log.Debugf("received: %s (%d bytes) peer=%d", hdr.Command, hdr.Length, p.id)
	}
	if l := p.cfg.Listeners.OnCapture; l != nil {
		l(p, false, hdr.Command, *bp)
	}
	return frame{cmd: hdr.Command, buf: bp, n: n}, true
}

// checkLength refuses a payload longer than its message's limit (n
// bytes, counted here, were read for it); the messages lenientLength
// lists are checked later.
func (p *Peer) checkLength(cmd string, length uint32, n int) bool {
	if lenientLength(cmd) {
		return true
	}
	msg, err := wire.MakeEmptyMessage(cmd)
	if err != nil {
		return true
	}
	if max := msg.MaxPayloadLength(p.pver.Load()); length > max {
		p.countRecv(cmd, n)
		p.misbehaveAndDisconnect(PenaltyOversized, ErrBadMessage,
			fmt.Sprintf("%v: payload length of %s message %d exceeds maximum %d", wire.ErrLimitExceeded, cmd, length, max))
		return false
	}
	return true
}

// readFailed ends the connection after a read error, unless it was our
// own disconnect that closed it.
func (p *Peer) readFailed(err error) {
	if p.Connected() {
		p.disconnect(fmt.Errorf("%w: %v", ErrConnection, err))
	}
}

// decode parses a frame into its message. Unknown commands are logged
// and give (nil, true), as Core ignores them so new messages can be
// deployed; a payload that does not parse scores and disconnects, giving
// (nil, false).
func (p *Peer) decode(f *frame) (wire.Message, bool) {
	msg, err := wire.MakeEmptyMessage(f.cmd)
	if err != nil {
		p.cfg.Log.Debugf("Unknown command \"%s\" from peer=%d", f.cmd, p.id)
		return nil, true
	}
	if err := msg.BtcDecode(f.payload(), p.pver.Load(), wire.WitnessEncoding); err != nil {
		// As Core, a payload that does not deserialize is logged and
		// dropped; the connection and the peer's score are unaffected
		// (the framing, checksum and length limits were checked, so it
		// cost the peer its own bandwidth only).
		p.observeRead(f.n, nil, fmt.Errorf("%s message: %w", f.cmd, err))
		p.cfg.Log.Debugf("ProcessMessages(%s, %d bytes): Exception '%v' caught, peer=%d", f.cmd, len(f.payload()), err, p.id)
		return nil, true
	}
	p.observeRead(f.n, msg, nil)
	return msg, true
}

// observeRead tells the OnRead listener about a message read.
func (p *Peer) observeRead(n int, msg wire.Message, err error) {
	if l := p.cfg.Listeners.OnRead; l != nil {
		l(p, n, msg, err)
	}
}

// addrCount reads the entry count at the front of an addr or addrv2
// payload, so an oversized message can be refused with its size without
// decoding it; ok is false when the count itself does not parse.
func addrCount(payload []byte) (n uint64, ok bool) {
	if len(payload) == 0 {
		return 0, false
	}
	switch b := payload[0]; {
	case b < 0xfd:
		return uint64(b), true
	case b == 0xfd && len(payload) >= 3:
		return uint64(binary.LittleEndian.Uint16(payload[1:])), true
	case b == 0xfe && len(payload) >= 5:
		return uint64(binary.LittleEndian.Uint32(payload[1:])), true
	case b == 0xff && len(payload) >= 9:
		return binary.LittleEndian.Uint64(payload[1:]), true
	}
	return 0, false
}

// debug reports whether debug lines are logged, so the per-message lines
// cost nothing when they are not.
func (p *Peer) debug() bool { return p.cfg.Log.Level() <= btclog.LevelDebug }
