package node

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// btcdNode is a btcd v0.26.2 process started for an interop test.
type btcdNode struct {
	p2p, rpc string
	cmd      *exec.Cmd
}

func loopbackPort(t *testing.T) string { return fmt.Sprintf("127.0.0.1:%d", freePort(t)) }

// startBtcd runs the btcd binary named by BTCD_V026 on regtest with the
// v2 transport on, skipping the test when the variable is unset.
func startBtcd(t *testing.T, extra ...string) *btcdNode {
	t.Helper()
	bin := os.Getenv("BTCD_V026")
	if bin == "" {
		t.Skip("BTCD_V026 not set (GOBIN=/tmp/btcd026 go install github.com/btcsuite/btcd@v0.26.2, then BTCD_V026=/tmp/btcd026/btcd)")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "btcd.conf")
	if err := os.WriteFile(conf, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	b := &btcdNode{p2p: loopbackPort(t), rpc: loopbackPort(t)}
	args := append([]string{
		"--regtest", "--v2transport", "-C", conf,
		"--datadir=" + filepath.Join(dir, "data"), "--logdir=" + filepath.Join(dir, "logs"),
		"--listen=" + b.p2p, "--rpclisten=" + b.rpc, "--rpcuser=u", "--rpcpass=p", "--notls",
		"--debuglevel=debug",
	}, extra...)
	b.cmd = exec.Command(bin, args...)
	var out bytes.Buffer
	b.cmd.Stdout, b.cmd.Stderr = &out, &out
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.cmd.Process.Kill()
		b.cmd.Wait()
		if t.Failed() {
			t.Logf("btcd output:\n%s", out.String())
		}
	})
	waitFor(t, 30*time.Second, "btcd RPC", func() bool {
		var n int
		return b.call("getblockcount", &n) == nil
	})
	return b
}

// call makes a JSON-RPC call to btcd.
func (b *btcdNode) call(method string, result any, params ...any) error {
	if params == nil {
		params = []any{}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "1.0", "id": 1, "method": method, "params": params})
	req, err := http.NewRequest("POST", "http://"+b.rpc, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.SetBasicAuth("u", "p")
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return err
	}
	if r.Error != nil {
		return fmt.Errorf("%s: %s", method, r.Error.Message)
	}
	return json.Unmarshal(r.Result, result)
}

type btcdPeer struct {
	Addr    string `json:"addr"`
	Inbound bool   `json:"inbound"`
	V2      bool   `json:"v2_connection"`
	Version int    `json:"version"`
}

// checkV2Both waits until our node and btcd each list one handshaken
// peer and checks both call the connection v2.
func checkV2Both(t *testing.T, n *testNode, b *btcdNode, weInbound bool) {
	t.Helper()
	ours := handshaken(t, n, 1)[0]
	if ours.Transport != "v2" || len(ours.SessionID) != 64 || ours.Inbound != weInbound {
		t.Fatalf("our getpeerinfo: %+v", ours)
	}
	var theirs []btcdPeer
	waitFor(t, 20*time.Second, "btcd's peer", func() bool {
		theirs = nil
		return b.call("getpeerinfo", &theirs) == nil && len(theirs) == 1 && theirs[0].Version > 0
	})
	if !theirs[0].V2 || theirs[0].Inbound == weInbound {
		t.Fatalf("btcd getpeerinfo: %+v", theirs[0])
	}
	// Blocks cross the session: with one block message each, the
	// packet ciphers rekey (every 224 messages) on the way.
	n.mine(t, 250)
	waitFor(t, 30*time.Second, "btcd to sync", func() bool {
		var h int
		return b.call("getblockcount", &h) == nil && h == 250
	})
}

// btcd v0.26.2 dials us with --v2transport: both ends see v2.
func TestBtcdInteropInbound(t *testing.T) {
	n := newTestNode(t)
	b := startBtcd(t, "--connect="+n.s.p2pAddr())
	checkV2Both(t, n, b, true)
}

// We dial btcd v0.26.2 asking for v2: both ends see v2.
func TestBtcdInteropOutbound(t *testing.T) {
	b := startBtcd(t)
	n := newTestNode(t)
	n.must(t, "addnode", b.p2p, "onetry", true)
	checkV2Both(t, n, b, false)
}
