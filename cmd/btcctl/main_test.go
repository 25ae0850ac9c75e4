package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btcnode/btcd/chaincfg"

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
		Net:       rpc.NetParamsOf(&chaincfg.RegressionNetParams),
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
	// RPC errors: message on stderr, the code's absolute value as the
	// exit status.
	code, out, errs = runCLI(t, "", append(base, "decodescript", "1")...)
	if code != 8 || out != "" || errs != "error code: -8\nerror message:\nargument must be hexadecimal string (not '1')\n" {
		t.Fatalf("parameter error: %d %q %q", code, out, errs)
	}
	code, _, errs = runCLI(t, "", append(base, "createrawtransaction", "[]", "{}", "abc")...)
	if code != 1 || errs != "error: Error parsing JSON: abc\n" {
		t.Fatalf("bad JSON argument: %d %q", code, errs)
	}
	code, _, errs = runCLI(t, "", append(base, "nosuchmethod")...)
	if code != 32601 || errs != "error code: -32601\nerror message:\nMethod not found\n" {
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
	if code != 1 || errs != "error: Authorization failed: Incorrect rpcuser or rpcpassword\n" {
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
	dir := t.TempDir()
	port := startServer(t, t.TempDir(), "", "") // its cookie is elsewhere
	// As bitcoin-cli, the call is made without credentials and the
	// refusal explains that none were found.
	code, _, errs := runCLI(t, "", "-datadir="+dir, "-regtest", "-rpcport="+port, "uptime")
	want := "error: Could not locate RPC credentials. No authentication cookie could be found, and RPC password is not set.  See -rpcpassword and -stdinrpcpass.  Configuration file: (" + filepath.Join(dir, "bitcoin.conf") + ")\n"
	if code != 1 || errs != want {
		t.Fatalf("%d %q", code, errs)
	}
	if code, _, _ = runCLI(t, "", "-bogus", "uptime"); code != 1 {
		t.Fatal("unknown option accepted")
	}
	if code, _, _ = runCLI(t, ""); code != 1 {
		t.Fatal("no method accepted")
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

// TestAgainstServer drives the project's own RPC server the way Core's
// functional tests drive bitcoin-cli: -datadir with bitcoin.conf and the
// cookie in regtest/.
func TestAgainstServer(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	port := startServer(t, dir, "", "")
	writeFile(t, filepath.Join(dir, "bitcoin.conf"), "regtest=1\n[regtest]\nrpcport="+port+"\n")
	base := []string{"-nonamed", "-datadir=" + dir}
	cli := func(stdin string, args ...string) (int, string, string) {
		t.Helper()
		return runCLI(t, stdin, append(append([]string{}, base...), args...)...)
	}
	// echo's arguments stay strings; named ones join positional ones.
	if code, out, errs := cli("", "-named", "echo", "0", "1", "arg3=3", "arg5=5"); code != 0 || out != "[\n  \"0\",\n  \"1\",\n  null,\n  \"3\",\n  null,\n  \"5\"\n]\n" {
		t.Errorf("named echo: %d %q %q", code, out, errs)
	}
	if code, _, errs := cli("", "-named", "echo", "0", "1", "arg1=1"); code != 8 || errs != "error code: -8\nerror message:\nParameter arg1 specified twice both as positional and named argument\n" {
		t.Errorf("named clash: %d %q", code, errs)
	}
	if code, out, _ := cli("", "-named", "echo", "arg0=0", "arg1=1", "arg2=2", "arg1=3"); code != 0 || out != "[\n  \"0\",\n  \"3\",\n  \"2\"\n]\n" {
		t.Errorf("named overwrite: %d %q", code, out)
	}
	// A null result prints nothing; a string prints as is.
	if code, out, _ := cli("", "echojson"); code != 0 || out != "[\n]\n" {
		t.Errorf("echojson: %d %q", code, out)
	}
	cookie, err := os.ReadFile(filepath.Join(dir, "regtest", ".cookie"))
	if err != nil {
		t.Fatal(err)
	}
	user, pass, _ := strings.Cut(strings.TrimSpace(string(cookie)), ":")
	// -stdinrpcpass takes the first line; -stdin the others.
	if code, out, errs := cli(pass+"\nfoo\nbar", "-rpcuser="+user, "-stdin", "-stdinrpcpass", "echo"); code != 0 || out != "[\n  \"foo\",\n  \"bar\"\n]\n" {
		t.Errorf("-stdin -stdinrpcpass: %d %q %q", code, out, errs)
	}
	if code, _, errs := cli("foo", "-rpcuser="+user, "-stdinrpcpass", "echo"); code != 1 || !strings.Contains(errs, "Incorrect rpcuser or rpcpassword") {
		t.Errorf("wrong -stdinrpcpass: %d %q", code, errs)
	}
	if code, _, errs := cli("", "-stdinrpcpass", "echo"); code != 1 || errs != "error: -stdinrpcpass specified but failed to read from standard input\n" {
		t.Errorf("empty -stdinrpcpass: %d %q", code, errs)
	}
	// std::getline keeps empty lines (and a '\r').
	if code, out, _ := cli("a\n\nb\r\n", "-stdin", "echo"); code != 0 || out != "[\n  \"a\",\n  \"\",\n  \"b\\r\"\n]\n" {
		t.Errorf("-stdin lines: %d %q", code, out)
	}
	if code, _, errs := cli("", "-stdinwalletpassphrase", "echo"); code != 1 || errs != "error: -stdinwalletpassphrase is only applicable for walletpassphrase(change)\n" {
		t.Errorf("-stdinwalletpassphrase: %d %q", code, errs)
	}
	// Cookie options.
	if code, _, errs := cli("", "-rpccookiefile=does-not-exist", "-rpcpassword=", "echo"); code != 1 || !strings.Contains(errs, "Could not locate RPC credentials") {
		t.Errorf("missing cookie: %d %q", code, errs)
	}
	if code, out, _ := cli("", "-rpccookiefile="+filepath.Join(dir, "regtest", ".cookie"), "echo", "x"); code != 0 || !strings.Contains(out, `"x"`) {
		t.Errorf("absolute cookie: %d %q", code, out)
	}
	if code, out, _ := cli("", "-norpccookiefile", "-rpcuser="+user, "-rpcpassword="+pass, "echo", "y"); code != 0 || !strings.Contains(out, `"y"`) {
		t.Errorf("-norpccookiefile: %d %q", code, out)
	}
	// -generate needs a wallet: the server's getnewaddress error is the
	// answer.
	if code, out, errs := cli("", "-generate"); code != 32601 || out != "" || errs != "error code: -32601\nerror message:\nMethod not found\n" {
		t.Errorf("-generate: %d %q %q", code, out, errs)
	}
	// -addrinfo needs getaddrmaninfo.
	if code, _, errs := cli("", "-addrinfo"); code != 1 || !strings.HasPrefix(errs, "error: -addrinfo requires bitcoind v26.0 or later") {
		t.Errorf("-addrinfo: %d %q", code, errs)
	}
}

func TestHelpAndVersion(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	code, out, errs := runCLI(t, "", "-version")
	if code != 0 || !strings.HasPrefix(out, "Bitcoin Core RPC client version v"+clientVersion+"\n") || errs != "" {
		t.Errorf("-version: %d %q %q", code, out, errs)
	}
	code, out, _ = runCLI(t, "", "-datadir=/nonexistent", "-help")
	if code != 0 || !strings.Contains(out, "Usage: btcctl [options] <command> [params]") || !strings.Contains(out, "\n  -rpcwaittimeout=<n>\n       Timeout in seconds") || strings.Contains(out, "-vbparams") {
		t.Errorf("-help: %d %q", code, out)
	}
	if _, out, _ = runCLI(t, "", "-help-debug"); !strings.Contains(out, "-vbparams") {
		t.Error("-help-debug lacks the debug options")
	}
	// No arguments at all: the help, and an error.
	code, out, errs = runCLI(t, "")
	if code != 1 || !strings.Contains(out, "Usage:") || errs != "Error: too few parameters\n" {
		t.Errorf("no arguments: %d %q", code, errs)
	}
	code, _, errs = runCLI(t, "", "-datadir="+t.TempDir())
	if code != 1 || errs != "error: too few parameters (need at least command)\n" {
		t.Errorf("no command: %d %q", code, errs)
	}
	code, _, errs = runCLI(t, "", "-foo=1", "x")
	if code != 1 || errs != "Error parsing command line arguments: Invalid parameter -foo=1\n" {
		t.Errorf("bad option: %d %q", code, errs)
	}
	if code, _, errs = runCLI(t, "", "-datadir="+t.TempDir(), "-getinfo", "-netinfo"); code != 1 || errs != "error: Only one of -getinfo, -netinfo may be specified.\n" {
		t.Errorf("two commands: %d %q", code, errs)
	}
	if code, out, _ = runCLI(t, "", "-datadir="+t.TempDir(), "-netinfo", "help"); code != 0 || !strings.HasPrefix(out, "-netinfo (level [outonly]) | help\n") || !strings.Contains(out, "> btcctl -netinfo 4 outonly") {
		t.Errorf("-netinfo help: %d %q", code, out)
	}
}

func TestFormatParagraph(t *testing.T) {
	in := "aaaa bbbb cccc dddd\nee ffffffffffffffff gg"
	want := "aaaa bbbb\n   cccc\n   dddd\nee\n   ffffffffffffffff\n   gg"
	if got := formatParagraph(in, 10, 3); got != want {
		t.Errorf("formatParagraph =\n%q\nwant\n%q", got, want)
	}
}
