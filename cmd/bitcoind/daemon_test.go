//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// -daemonwait returns once the background node is up (exit 0, its pid in
// the pid file, RPC answering); a second one on the same data directory
// fails its initialization and says so (exit 1). -daemon returns at once
// and the node comes up behind it. Both nodes stop over RPC.
func TestDaemonWait(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	p2p, rpcPort := freePort(t), freePort(t)
	conf := fmt.Sprintf("regtest=1\n[regtest]\nport=%d\nrpcport=%d\nconnect=0\ndnsseed=0\nlistenonion=0\nbind=127.0.0.1\n", p2p, rpcPort)
	if err := os.WriteFile(filepath.Join(dir, "bitcoin.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	netDir := filepath.Join(dir, "regtest")
	stop := func() {
		rpcCall(t, rpcPort, netDir, "stop")
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(filepath.Join(netDir, "bitcoind.pid")); os.IsNotExist(err) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatal("the background node did not stop")
	}
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, append([]string{"-datadir=" + dir}, args...)...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		done := make(chan error, 1)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v did not return", args)
		}
		return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
	}

	code, out, errOut := run("-daemonwait")
	if code != 0 || out != "bitcoind starting\n" || errOut != "" {
		t.Fatalf("-daemonwait: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	t.Cleanup(stop)
	if res, err := rpcCall(t, rpcPort, netDir, "getblockcount"); err != nil || string(res) != "0" {
		t.Fatalf("RPC right after -daemonwait returned: %s %v", res, err)
	}
	pid, err := os.ReadFile(filepath.Join(netDir, "bitcoind.pid"))
	if n, _ := strconv.Atoi(strings.TrimSpace(string(pid))); err != nil || n <= 0 || n == os.Getpid() {
		t.Fatalf("pid file %q %v", pid, err)
	}

	code, _, errOut = run("-daemonwait")
	if code != 1 || !strings.Contains(errOut, "Error during initialization - check debug.log for details") {
		t.Fatalf("second -daemonwait on a locked data directory: exit %d, stderr %q", code, errOut)
	}
	stop()

	code, out, _ = run("-daemon")
	if code != 0 || out != "bitcoind starting\n" {
		t.Fatalf("-daemon: exit %d, stdout %q", code, out)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := rpcCall(t, rpcPort, netDir, "getblockcount"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the -daemon node never answered RPC")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
