package blockfilter

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

const crashDirEnv = "BLOCKFILTER_CRASH_CHILD_DIR"

// TestCrashChild is the child process of TestCrashRecovery: it indexes a
// deterministic chain as fast as it can until it is killed (or 10 s pass).
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("child process of TestCrashRecovery")
	}
	x, err := OpenIndex(dir, IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The chain is built as the index asks for it, so indexing starts
	// at once.
	var c testChain
	src := c.source()
	src.TipHeight = func() int32 { return 19999 }
	src.HashAt = func(h int32) (wire.Hash, bool) {
		c.extend(int(h)+1, 0)
		return c.hash(int(h)), true
	}
	src.Block = func(h int32) (*wire.MsgBlock, [][]byte, error) {
		c.extend(int(h)+1, 0)
		return c.blocks[h], c.scripts[h], nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	os.Stdout.WriteString("ready\n")
	_ = x.CatchUp(ctx, src)
}

// TestCrashRecovery kills a process that is indexing with SIGKILL at
// random moments and checks that the reopened index is consistent: its
// tip's entries exist and every header chains correctly.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	var ref testChain
	ref.extend(20000, 0)
	last := int32(-1)
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
		cmd.Env = append(os.Environ(), crashDirEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ready := make(chan bool, 1)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if sc.Text() == "ready" {
					ready <- true
					break
				}
			}
			io.Copy(io.Discard, out)
		}()
		select {
		case <-ready:
		case <-time.After(30 * time.Second):
			t.Fatal("child did not start")
		}
		time.Sleep(time.Duration(100+150*round) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()

		x, err := OpenIndex(dir, IndexOptions{})
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		hash, height := x.Tip()
		if height < last {
			t.Fatalf("round %d: tip went back from %d to %d", round, last, height)
		}
		if height >= 0 {
			if hash != ref.hash(int(height)) {
				t.Fatalf("round %d: tip %v is not block %d", round, hash, height)
			}
			for h := int32(0); h <= height; h += 1 + height/50 {
				hdr, err := x.FilterHeaderByHash(ref.hash(int(h)))
				if err != nil || hdr != ref.headers[h] {
					t.Fatalf("round %d: header %d: %v", round, h, err)
				}
			}
			if hdr, err := x.FilterHeaderByHash(hash); err != nil || hdr != ref.headers[height] {
				t.Fatalf("round %d: tip header: %v", round, err)
			}
		}
		t.Logf("round %d: killed at height %d", round, height)
		last = height
		x.Close()
	}
}
