package zmq

import (
	"bufio"
	"context"
	"encoding/hex"
	"os/exec"
	"strings"
	"testing"
)

// pySub is a libzmq (pyzmq) subscriber like bitcoind's
// contrib/zmq/zmq_sub.py: it prints "ready", then one line per message
// with the hex of each frame.
const pySub = `
import sys, zmq
ctx = zmq.Context()
s = ctx.socket(zmq.SUB)
s.setsockopt(zmq.RCVTIMEO, 10000)
s.setsockopt_string(zmq.SUBSCRIBE, "")
s.connect(sys.argv[1])
print("ready", flush=True)
for _ in range(int(sys.argv[2])):
    print(" ".join(f.hex() for f in s.recv_multipart()), flush=True)
`

// TestLibzmqInterop checks that a real libzmq SUB socket (pyzmq, as used
// by bitcoind's own examples and many tools) receives our frames. It is
// skipped where /usr/bin/python3 has no zmq module (Debian: python3-zmq).
func TestLibzmqInterop(t *testing.T) {
	if exec.Command("/usr/bin/python3", "-c", "import zmq").Run() != nil {
		t.Skip("python3-zmq (libzmq) not installed")
	}
	addr := freeAddr(t)
	n := newNotifier(t, Config{PubHashBlock: []string{addr}, PubRawTx: []string{addr}, PubSequence: []string{addr},
		PubHashBlockHWM: DefaultHWM, PubRawTxHWM: DefaultHWM, PubSequenceHWM: DefaultHWM})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/usr/bin/python3", "-c", pySub, addr, "4")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	lines := bufio.NewScanner(out)
	lines.Buffer(nil, 1<<20)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("subscriber did not start: %q", lines.Text())
	}
	waitFor(t, func() bool { return n.wants(topicSequence) && n.wants(topicHashBlock) })

	block := testBlock()
	n.BlockConnected(block) // rawtx ×2, sequence C, hashblock
	n.TipChanged()
	want := []string{
		hexFrames("rawtx", block.Transactions[0].AppendTo(nil, true), 0),
		hexFrames("rawtx", block.Transactions[1].AppendTo(nil, true), 1),
		hexFrames("sequence", seqBody(block.BlockHash(), 'C', 0, false), 0),
		hexFrames("hashblock", rev(block.BlockHash()), 0),
	}
	for i, w := range want {
		if !lines.Scan() {
			t.Fatalf("message %d missing: %v", i, lines.Err())
		}
		if got := lines.Text(); got != w {
			t.Fatalf("message %d:\n got %s\nwant %s", i, got, w)
		}
	}
}

func hexFrames(topic string, body []byte, seq uint32) string {
	return strings.Join([]string{
		hex.EncodeToString([]byte(topic)),
		hex.EncodeToString(body),
		hex.EncodeToString([]byte{byte(seq), byte(seq >> 8), byte(seq >> 16), byte(seq >> 24)}),
	}, " ")
}
