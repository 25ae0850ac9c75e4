package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildBinary builds the front end once into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and starts the node; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "bitcoind")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// rpcCall calls method with the cookie in dir.
func rpcCall(t *testing.T, port int, cookieDir, method string, params ...any) (json.RawMessage, error) {
	t.Helper()
	cookie, err := os.ReadFile(filepath.Join(cookieDir, ".cookie"))
	if err != nil {
		return nil, err
	}
	user, pass, _ := strings.Cut(strings.TrimSpace(string(cookie)), ":")
	if params == nil {
		params = []any{}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "1.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("http://127.0.0.1:%d/", port), bytes.NewReader(body))
	req.SetBasicAuth(user, pass)
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r struct {
		Result json.RawMessage
		Error  *struct{ Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, fmt.Errorf("%s", r.Error.Message)
	}
	return r.Result, nil
}

// TestRegtestLayoutAndStop starts the front end as Core's test framework
// does and checks bitcoind's data layout, cookie authentication, the
// framework's control methods and a clean stop with nothing on stderr.
func TestRegtestLayoutAndStop(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	p2p, rpcPort := freePort(t), freePort(t)
	conf := fmt.Sprintf("regtest=1\n[regtest]\nport=%d\nrpcport=%d\nprinttoconsole=0\nconnect=0\ndnsseed=0\n", p2p, rpcPort)
	if err := os.WriteFile(filepath.Join(dir, "bitcoin.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "-datadir="+dir, "-debug", "-uacomment=testnode0", "-disablewallet", "-bind=127.0.0.1:"+fmt.Sprint(p2p))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	exited := false
	defer func() {
		if !exited {
			cmd.Process.Kill()
			<-done
		}
	}()
	net := filepath.Join(dir, "regtest")
	deadline := time.Now().Add(30 * time.Second)
	var res json.RawMessage
	var err error
	for time.Now().Before(deadline) {
		if res, err = rpcCall(t, rpcPort, net, "getblockcount"); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("RPC never answered: %v; stderr %q", err, stderr.String())
	}
	if string(res) != "0" {
		t.Errorf("getblockcount %s", res)
	}
	for _, name := range []string{".cookie", "debug.log", "blocks", "chainstate", "wallets", "bitcoind.pid"} {
		if _, err := os.Stat(filepath.Join(net, name)); err != nil {
			t.Errorf("DIR/regtest/%s: %v", name, err)
		}
	}
	if res, err = rpcCall(t, rpcPort, net, "getnetworkinfo"); err != nil || !strings.Contains(string(res), "(testnode0)/") {
		t.Errorf("getnetworkinfo subversion lacks the uacomment: %s %v", res, err)
	}
	checkDialectVersion(t, res, rpcPort, net)
	if _, err := rpcCall(t, rpcPort, net, "setmocktime", 1300000000); err != nil {
		t.Errorf("setmocktime: %v", err)
	}
	if _, err := rpcCall(t, rpcPort, net, "syncwithvalidationinterfacequeue"); err != nil {
		t.Errorf("syncwithvalidationinterfacequeue: %v", err)
	}
	if res, err = rpcCall(t, rpcPort, net, "stop", 0); err != nil || string(res) != `"Bitcoin Core stopping"` {
		t.Errorf("stop: %s %v", res, err)
	}
	select {
	case err := <-done:
		exited = true
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("node did not stop")
	}
	if stderr.Len() != 0 || stdout.Len() != 0 {
		t.Errorf("output with printtoconsole=0: stdout %q stderr %q", stdout.String(), stderr.String())
	}
	log, _ := os.ReadFile(filepath.Join(net, "debug.log"))
	if !bytes.Contains(log, []byte("Shutdown complete")) {
		t.Errorf("debug.log lacks the shutdown line")
	}
	if _, err := os.Stat(filepath.Join(net, ".cookie")); err == nil {
		t.Error("cookie left behind after stop")
	}
}

// TestStartupErrorOnStderr checks bitcoind's error format and exit code.
func TestStartupErrorOnStderr(t *testing.T) {
	bin := buildBinary(t)
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "-datadir="+t.TempDir(), "-regtest", "-fakearg")
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want status 1", err)
	}
	if got := strings.TrimSpace(stderr.String()); got != "Error: Error parsing command line arguments: Invalid parameter -fakearg" {
		t.Errorf("stderr %q", got)
	}
}
