package node

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// --rpctls serves RPC over TLS with a self-signed certificate generated
// in --appdata on first start and reused after a restart; a client that
// trusts that certificate is served, plain HTTP is not.
func TestRPCTLS(t *testing.T) {
	n := newTestNode(t, "--rpctls")
	certFile := filepath.Join(n.dir, "rpc.cert")
	pem, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatalf("no generated certificate: %v", err)
	}
	if _, err := os.Stat(filepath.Join(n.dir, "rpc.key")); err != nil {
		t.Fatalf("no generated key: %v", err)
	}
	call := func(scheme string, client *http.Client) (int, error) {
		req, _ := http.NewRequest("POST", scheme+"://"+n.s.rpcAddr()+"/",
			strings.NewReader(`{"jsonrpc":"1.0","id":1,"method":"getblockcount","params":[]}`))
		req.SetBasicAuth("u", "p")
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatal("generated certificate does not parse")
	}
	trusting := &http.Client{Timeout: 10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	if code, err := call("https", trusting); err != nil || code != 200 {
		t.Fatalf("HTTPS call with the generated certificate: %d %v", code, err)
	}
	if code, err := call("http", &http.Client{Timeout: 10 * time.Second}); err == nil && code == 200 {
		t.Fatal("plain HTTP served with --rpctls")
	}

	dir := n.dir
	n.s.Stop()
	s := startServer(t, "--regtest", "--appdata="+dir, "--datadir="+filepath.Join(dir, "data"),
		"--nolisten", "--rpclisten=127.0.0.1:0", "--rpcuser=u", "--rpcpass=p", "--rpctls")
	defer s.Stop()
	again, err := os.ReadFile(certFile)
	if err != nil || !bytes.Equal(again, pem) {
		t.Fatal("certificate regenerated on restart")
	}
	n.s = s
	if code, err := call("https", trusting); err != nil || code != 200 {
		t.Fatalf("HTTPS call after restart: %d %v", code, err)
	}
}

// --rpctls conflicts with --notls.
func TestRPCTLSOptions(t *testing.T) {
	for _, args := range [][]string{{"--rpctls", "--notls"}} {
		if _, err := loadConfig(append([]string{"--regtest", "--appdata=" + t.TempDir()}, args...)); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
