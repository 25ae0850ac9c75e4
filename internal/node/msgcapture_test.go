package node

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// --capturemessages writes both directions of a peer's traffic in
// bitcoind's record format under message_capture/<addr with '_'>/.
func TestCaptureMessages(t *testing.T) {
	n := newTestNode(t, "--capturemessages")
	r := dialNetPeer(t, n)
	addr := strings.ReplaceAll(r.conn.LocalAddr().String(), ":", "_")
	dir := filepath.Join(n.s.cfg.DataDir, msgCaptureDir, addr)
	records := func(name string) []string {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		var cmds []string
		for len(b) >= 24 {
			cmd := strings.TrimRight(string(b[8:20]), "\x00")
			l := int(binary.LittleEndian.Uint32(b[20:24]))
			if len(b) < 24+l {
				t.Fatalf("%s: truncated %s record", name, cmd)
			}
			cmds = append(cmds, cmd)
			b = b[24+l:]
		}
		return cmds
	}
	waitFor(t, 10*time.Second, "captured handshake", func() bool {
		recv, sent := records("msgs_recv.dat"), records("msgs_sent.dat")
		return len(recv) >= 2 && recv[0] == "version" && slices.Contains(recv, "verack") &&
			len(sent) >= 2 && sent[0] == "version" && slices.Contains(sent, "verack")
	})
}
