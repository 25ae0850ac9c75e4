package node

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer"
)

// msgCaptureDir is where --capturemessages writes, in the network's data
// directory, as bitcoind.
const msgCaptureDir = "message_capture"

// msgCapture writes every P2P message to
// message_capture/<peer address>/msgs_{recv,sent}.dat in bitcoind's
// format: per message the time in microseconds (int64), the command
// (12 bytes, NUL-padded), the payload length (uint32) and the payload,
// little-endian.
type msgCapture struct {
	dir string
	// mu orders the appends of the read and write goroutines of all
	// peers; capture is a debugging aid, so simplicity wins over speed.
	mu sync.Mutex
}

// capture appends one message. Errors are logged once per call and
// otherwise ignored: capture must never affect the connection.
func (c *msgCapture) capture(p *peer.Peer, sent bool, cmd string, payload []byte) {
	name := "msgs_recv.dat"
	if sent {
		name = "msgs_sent.dat"
	}
	// bitcoind's directory name: host:port with ':' made '_'.
	dir := filepath.Join(c.dir, strings.ReplaceAll(p.Addr(), ":", "_"))
	var hdr [8 + 12 + 4]byte
	binary.LittleEndian.PutUint64(hdr[:8], uint64(clock.Now().UnixMicro()))
	copy(hdr[8:20], cmd)
	binary.LittleEndian.PutUint32(hdr[20:], uint32(len(payload)))
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		peerLog.Debugf("Capturing messages: %v", err)
		return
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		peerLog.Debugf("Capturing messages: %v", err)
		return
	}
	defer f.Close()
	if _, err := f.Write(append(hdr[:], payload...)); err != nil {
		peerLog.Debugf("Capturing messages: %v", err)
	}
}

// hookMessageCapture installs --capturemessages on the peer listeners.
func (s *server) hookMessageCapture(l *peer.MessageListeners) {
	if !s.cfg.CaptureMessages {
		return
	}
	c := &msgCapture{dir: filepath.Join(s.cfg.DataDir, msgCaptureDir)}
	prev := l.OnCapture
	l.OnCapture = func(p *peer.Peer, sent bool, cmd string, payload []byte) {
		c.capture(p, sent, cmd, payload)
		if prev != nil {
			prev(p, sent, cmd, payload)
		}
	}
}
