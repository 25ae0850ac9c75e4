package node

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btclog"
	"github.com/go-zeromq/zmq4"

	"github.com/btcnode/btcd/wire"
)

// reversed returns h in display (RPC) byte order, as ZMQ sends hashes.
func reversed(h wire.Hash) []byte {
	b := make([]byte, len(h))
	for i := range h {
		b[i] = h[len(h)-1-i]
	}
	return b
}

func TestZMQNotifications(t *testing.T) {
	addr := fmt.Sprintf("tcp://127.0.0.1:%d", freePort(t))
	n := newTestNode(t, "--zmqpubhashblock="+addr, "--zmqpubsequence="+addr, "--zmqpubhashblockhwm=500")

	res, rerr := n.rpcCall(t, "getzmqnotifications")
	if rerr != nil {
		t.Fatal(rerr)
	}
	var eps []struct {
		Type, Address string
		HWM           int
	}
	if err := json.Unmarshal(res, &eps); err != nil {
		t.Fatal(err)
	}
	if len(eps) != 2 || eps[0].Type != "pubhashblock" || eps[0].Address != addr || eps[0].HWM != 500 ||
		eps[1].Type != "pubsequence" || eps[1].HWM != 1000 {
		t.Fatalf("getzmqnotifications: %s", res)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	sub := zmq4.NewSub(ctx)
	defer sub.Close()
	defer cancel()
	if err := sub.Dial(addr); err != nil {
		t.Fatal(err)
	}
	for _, tp := range []string{"hashblock", "sequence"} {
		if err := sub.SetOption(zmq4.OptionSubscribe, tp); err != nil {
			t.Fatal(err)
		}
	}
	msgs := make(chan zmq4.Msg, 64)
	go func() {
		defer close(msgs)
		for {
			m, err := sub.Recv()
			if err != nil {
				return
			}
			select {
			case msgs <- m:
			case <-ctx.Done():
				return
			}
		}
	}()

	// The subscription reaches the publisher asynchronously: mine until
	// a hashblock arrives, then check it names a mined block.
	mined := make(map[wire.Hash]bool)
	var gotBlock, gotSeq bool
	deadline := time.After(20 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !gotBlock || !gotSeq {
		select {
		case <-deadline:
			t.Fatalf("no hashblock/sequence message (block %v, sequence %v)", gotBlock, gotSeq)
		case <-tick.C:
			for _, h := range n.mine(t, 1) {
				mined[h] = true
			}
		case m, ok := <-msgs:
			if !ok {
				t.Fatal("subscriber closed")
			}
			if len(m.Frames) != 3 || len(m.Frames[2]) != 4 {
				t.Fatalf("message with %d frames", len(m.Frames))
			}
			body := m.Frames[1]
			switch string(m.Frames[0]) {
			case "hashblock":
				found := false
				for h := range mined {
					found = found || bytes.Equal(body, reversed(h))
				}
				if !found {
					t.Fatalf("hashblock %x is not a mined block", body)
				}
				gotBlock = true
			case "sequence":
				if len(body) != 33 || body[32] != 'C' {
					t.Fatalf("sequence body %x", body)
				}
				gotSeq = true
			}
		}
	}

	// Mempool acceptance: sequence 'A' with the 8-byte mempool sequence.
	n.mine(t, 100)
	op, v := n.coinbaseOut(t, 1)
	tx := opTrueSpend(op, v, 1, 10_000)
	if _, err := n.s.pool.AcceptTransaction(tx, mempoolOpts()); err != nil {
		t.Fatal(err)
	}
	if body := waitSequence(t, msgs, tx.TxHash(), 'A'); len(body) != 41 {
		t.Fatalf("mempool sequence body %x", body)
	}
	// Block inclusion is announced by the block ('C'), not by 'R'.
	tip := n.mine(t, 1)[0]
	waitSequence(t, msgs, tip, 'C')
}

// waitSequence reads messages until a sequence message with label
// arrives for hash, failing at the deadline.
func waitSequence(t *testing.T, msgs <-chan zmq4.Msg, hash wire.Hash, label byte) []byte {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case <-deadline:
			t.Fatalf("no sequence %q for %v", label, hash)
		case m, ok := <-msgs:
			if !ok {
				t.Fatal("subscriber closed")
			}
			body := m.Frames[1]
			if string(m.Frames[0]) == "sequence" && len(body) >= 33 && body[32] == label &&
				bytes.Equal(body[:32], reversed(hash)) {
				return body
			}
		}
	}
}

func TestZMQOptions(t *testing.T) {
	for _, args := range [][]string{
		{"--zmqpubrawblockhwm=-1"},
	} {
		if _, err := loadConfig(append([]string{"--regtest", "--appdata=" + t.TempDir()}, args...)); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
	// A publisher whose address is in use or malformed is left out and
	// the node starts, as in bitcoind; the good publisher still runs.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	good := "tcp://127.0.0.1:" + strconv.Itoa(freePort(t))
	bad := newTestNode(t, "--zmqpubrawtx=tcp://"+busy.Addr().String(), "--zmqpubhashtx=foo", "--zmqpubhashblock="+good)
	res, rerr := bad.rpcCall(t, "getzmqnotifications")
	if rerr != nil || !strings.Contains(string(res), good) || strings.Contains(string(res), "pubrawtx") || strings.Contains(string(res), "foo") {
		t.Fatalf("getzmqnotifications with bad publishers: %s %+v", res, rerr)
	}

	n := newTestNode(t)
	res, rerr = n.rpcCall(t, "getzmqnotifications")
	if rerr != nil || string(res) != "[]" {
		t.Fatalf("getzmqnotifications without publishers: %s %+v", res, rerr)
	}
}

// TestZMQBadAddressLogged: a malformed -zmqpub address does not stop
// start-up; the node logs why the publisher was left out and runs
// without it.
func TestZMQBadAddressLogged(t *testing.T) {
	logged := captureLog(t)
	zmqLog.SetLevel(btclog.LevelInfo)
	t.Cleanup(func() { zmqLog.SetLevel(btclog.LevelOff) })
	n := newTestNode(t, "--zmqpubhashtx=foo")
	res, rerr := n.rpcCall(t, "getzmqnotifications")
	if rerr != nil || string(res) != "[]" {
		t.Fatalf("getzmqnotifications: %s %+v", res, rerr)
	}
	want := `ZMQ publisher not started: zmq: bad publisher address: --zmqpubhashtx="foo"`
	waitFor(t, 5*time.Second, "log line "+want, func() bool { return strings.Contains(logged(), want) })
}
