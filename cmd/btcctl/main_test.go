package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btcnode/btcd/rpc"
)

// startServer runs an RPC server with cookie auth in dataDir/regtest and
// returns its port.
func startServer(t *testing.T, dataDir, user, pass string) string {
	t.Helper()
	s, err := rpc.New(rpc.Config{
		Listeners: []string{"127.0.0.1:0"},
		DataDir:   filepath.Join(dataDir, "regtest"),
		User:      user,
		Pass:      pass,
		Net:       rpc.RegTestParams,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	_, port, _ := net.SplitHostPort(s.Addrs()[0].String())
	return port
}

func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestCookieAndOutput(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	port := startServer(t, dir, "", "")
	base := []string{"-datadir=" + dir, "-regtest", "-rpcport=" + port}

	code, out, errs := runCLI(t, "", append(base, "help", "uptime")...)
	if code != 0 || !strings.HasPrefix(out, "uptime\n") || errs != "" {
		t.Fatalf("help uptime: %d %q %q", code, out, errs)
	}
	code, out, _ = runCLI(t, "", append(base, "decodescript", "51")...)
	if code != 0 || !strings.Contains(out, "{\n  \"asm\": \"1\",") {
		t.Fatalf("decodescript: %d %q", code, out)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil || v["type"] != "nonstandard" {
		t.Fatalf("decodescript output %q", out)
	}
	// Named arguments and stdin arguments.
	code, out, _ = runCLI(t, "", append(base, "-named", "decodescript", "hexstring=51")...)
	if code != 0 || !strings.Contains(out, `"asm": "1"`) {
		t.Fatalf("-named: %d %q", code, out)
	}
	code, out, _ = runCLI(t, "51\n", append(base, "-stdin", "decodescript")...)
	if code != 0 || !strings.Contains(out, `"asm": "1"`) {
		t.Fatalf("-stdin: %d %q", code, out)
	}
	// JSON params: numbers and arrays parse as JSON, other text as strings.
	code, out, _ = runCLI(t, "", append(base, "createrawtransaction", "[]", `{"data":"00"}`)...)
	if code != 0 || out != "0200000000010000000000000000036a010000000000\n" {
		t.Fatalf("createrawtransaction: %d %q", code, out)
	}
	// RPC errors: message on stderr, exit status 1.
	code, out, errs = runCLI(t, "", append(base, "decodescript", "1")...)
	if code != 1 || out != "" || errs != "error code: -8\nerror message:\nargument must be hexadecimal string (not '1')\n" {
		t.Fatalf("parameter error: %d %q %q", code, out, errs)
	}
	code, _, errs = runCLI(t, "", append(base, "createrawtransaction", "[]", "{}", "abc")...)
	if code != 1 || errs != "error: Error parsing JSON: abc\n" {
		t.Fatalf("bad JSON argument: %d %q", code, errs)
	}
	code, _, errs = runCLI(t, "", append(base, "nosuchmethod")...)
	if code != 1 || errs != "error code: -32601\nerror message:\nMethod not found\n" {
		t.Fatalf("unknown method: %d %q", code, errs)
	}
}

func TestPasswordAndConfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	port := startServer(t, t.TempDir(), "u", "p")
	code, out, errs := runCLI(t, "", "-rpcuser=u", "-rpcpassword=p", "-rpcport="+port, "uptime")
	if code != 0 || strings.TrimSpace(out) == "" {
		t.Fatalf("password: %d %q %q", code, out, errs)
	}
	code, _, errs = runCLI(t, "", "-rpcuser=u", "-rpcpassword=wrong", "-rpcport="+port, "uptime")
	if code != 1 || !strings.Contains(errs, "Authorization failed") {
		t.Fatalf("bad password: %d %q", code, errs)
	}
	conf := filepath.Join(home, "my.conf")
	os.WriteFile(conf, []byte("# test\nrpcuser=u\nrpcpassword=p\nrpcconnect=127.0.0.1\nrpcport="+port+"\n"), 0o600)
	code, _, errs = runCLI(t, "", "-conf="+conf, "uptime")
	if code != 0 {
		t.Fatalf("config file: %d %q", code, errs)
	}
	// Default config file location.
	os.MkdirAll(filepath.Join(home, ".btcd"), 0o700)
	os.WriteFile(filepath.Join(home, ".btcd", "btcctl.conf"), []byte("rpcuser=u\nrpcpass=p\nrpcport="+port+"\n"), 0o600)
	if code, _, errs = runCLI(t, "", "uptime"); code != 0 {
		t.Fatalf("default config: %d %q", code, errs)
	}
	// The command line overrides the config file.
	if code, _, _ = runCLI(t, "", "-rpcpassword=wrong", "uptime"); code != 1 {
		t.Fatalf("command line did not override config")
	}
}

func TestNoCredentials(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	code, _, errs := runCLI(t, "", "-datadir="+t.TempDir(), "-testnet4", "uptime")
	if code != 1 || !strings.Contains(errs, "Could not locate RPC credentials") || !strings.Contains(errs, filepath.Join("testnet4", ".cookie")) {
		t.Fatalf("%d %q", code, errs)
	}
	if code, _, _ = runCLI(t, "", "-bogus", "uptime"); code != 1 {
		t.Fatal("unknown option accepted")
	}
	if code, _, _ = runCLI(t, ""); code != 1 {
		t.Fatal("no method accepted")
	}
}

func TestParamValue(t *testing.T) {
	for in, want := range map[string]string{
		"1": "1", "true": "true", `[1,"a"]`: `[1,"a"]`, "abc": `"abc"`,
		"0014ab": `"0014ab"`, `{"a":1}`: `{"a":1}`, "": `""`, "null": "null",
	} {
		if got := string(paramValue(in)); got != want {
			t.Errorf("paramValue(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestTLS(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	s, err := rpc.New(rpc.Config{Listeners: []string{"127.0.0.1:0"}, DataDir: dir, User: "u", Pass: "p", TLS: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	_, port, _ := net.SplitHostPort(s.Addrs()[0].String())
	args := []string{"-rpcuser=u", "-rpcpassword=p", "-rpcport=" + port, "-tls", "-rpccert=" + filepath.Join(dir, "rpc.cert"), "uptime"}
	if code, _, errs := runCLI(t, "", args...); code != 0 {
		t.Fatalf("TLS with pinned certificate: %d %q", code, errs)
	}
	if code, _, _ := runCLI(t, "", "-rpcuser=u", "-rpcpassword=p", "-rpcport="+port, "-tls", "uptime"); code != 1 {
		t.Fatal("untrusted certificate accepted")
	}
}
