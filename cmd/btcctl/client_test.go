package main

import (
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestWalletEndpoint(t *testing.T) {
	for in, want := range map[string]string{"": "/wallet/", "w1": "/wallet/w1", "my wallet/é": "/wallet/my%20wallet%2F%C3%A9", "a-b._~": "/wallet/a-b._~"} {
		if got := walletEndpoint(in); got != want {
			t.Errorf("walletEndpoint(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPortErrors(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	f := newFakeServer(t, func(c fakeCall) fakeReply { return fakeReply{result: "7"} })
	dir := newCoreDataDir(t, f.port, "__cookie__:x")
	cli := func(args ...string) (int, string, string) {
		return runCLI(t, "", append([]string{"-nonamed", "-datadir=" + dir}, args...)...)
	}
	for _, arg := range []string{"notaport", "-1", "0", "65536", "+1"} {
		want := "error: Invalid port provided in -rpcport: " + arg + "\n"
		if code, _, errs := cli("-rpcport="+arg, "echo"); code != 1 || errs != want {
			t.Errorf("-rpcport=%s: %d %q", arg, code, errs)
		}
	}
	for _, arg := range []string{"127.0.0.1:notaport", "127.0.0.1:-1", "127.0.0.1:0", "127.0.0.1:65536", "[::1]:0"} {
		want := "error: Invalid port provided in -rpcconnect: " + arg + "\n"
		if code, _, errs := cli("-rpcconnect="+arg, "echo"); code != 1 || errs != want {
			t.Errorf("-rpcconnect=%s: %d %q", arg, code, errs)
		}
	}
	// Port preferences: -rpcport, then the port in -rpcconnect, then the
	// config file's.
	dead := freePort(t)
	code, _, errs := cli("-rpcconnect=127.0.0.1:"+f.port, "-rpcport="+dead, "echo")
	if code != 1 || !strings.HasPrefix(errs, "Warning: Port specified in both -rpcconnect and -rpcport. Using -rpcport "+dead+"\nerror: timeout on transient error: Could not connect to the server 127.0.0.1:"+dead+"\n") {
		t.Errorf("-rpcport over -rpcconnect: %d %q", code, errs)
	}
	if code, out, _ := cli("-rpcconnect=127.0.0.1:"+dead, "-rpcport="+f.port, "getblockcount"); code != 0 || out != "7\n" {
		t.Errorf("-rpcport wins: %d %q", code, out)
	}
	if code, out, _ := runCLI(t, "", "-datadir="+dir, "-noconf", "-regtest", "-rpcconnect=127.0.0.1:"+f.port, "getblockcount"); code != 0 || out != "7\n" {
		t.Errorf("-rpcconnect port: %d %q", code, out)
	}
}

func TestConnectionErrors(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dead := freePort(t)
	dir := newCoreDataDir(t, dead, "__cookie__:x")
	want := "error: timeout on transient error: Could not connect to the server 127.0.0.1:" + dead + "\n\n" +
		"Make sure the bitcoind server is running and that you are connecting to the correct RPC port.\n" +
		"Use \"btcctl -help\" for more info.\n"
	code, out, errs := runCLI(t, "", "-datadir="+dir, "echo")
	if code != 1 || out != "" || errs != want {
		t.Errorf("no server: %d %q", code, errs)
	}
	// The host is shown without brackets.
	if code, _, errs = runCLI(t, "", "-datadir="+dir, "-rpcconnect=[::1]:"+dead, "-rpcport="+dead, "echo"); code != 1 || !strings.Contains(errs, "Could not connect to the server ::1:"+dead+"\n") {
		t.Errorf("IPv6: %d %q", code, errs)
	}

	// -rpcwait gives up after -rpcwaittimeout seconds.
	start := time.Now()
	code, _, errs = runCLI(t, "", "-datadir="+dir, "-rpcwait", "-rpcwaittimeout=1", "echo")
	if took := time.Since(start); code != 1 || errs != want || took < time.Second || took > 10*time.Second {
		t.Errorf("-rpcwait timeout: %d %q after %v", code, errs, took)
	}

	// A server that accepts the connection and never answers:
	// -rpcclienttimeout.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { <-done; c.Close() }()
		}
	}()
	_, silent, _ := net.SplitHostPort(l.Addr().String())
	code, _, errs = runCLI(t, "", "-datadir="+dir, "-rpcport="+silent, "-rpcclienttimeout=1", "echo")
	if code != 1 || !strings.HasPrefix(errs, "error: timeout on transient error: Could not connect to the server 127.0.0.1:"+silent+` (error code 0 - "timeout reached")`) {
		t.Errorf("client timeout: %d %q", code, errs)
	}
}

func TestRPCWaitRetries(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	var calls atomic.Int32
	f := newFakeServer(t, func(c fakeCall) fakeReply {
		if calls.Add(1) < 3 {
			return fakeReply{code: rpcInWarmup, message: "Loading block index…"}
		}
		return fakeReply{result: "101"}
	})
	dir := newCoreDataDir(t, f.port, "__cookie__:x")
	// Without -rpcwait the warm-up error is the answer.
	code, _, errs := runCLI(t, "", "-datadir="+dir, "getblockcount")
	if code != 28 || errs != "error code: -28\nerror message:\nLoading block index…\n" {
		t.Errorf("warm-up: %d %q", code, errs)
	}
	code, out, errs := runCLI(t, "", "-datadir="+dir, "-rpcwait", "getblockcount")
	if code != 0 || out != "101\n" || calls.Load() != 3 {
		t.Errorf("-rpcwait: %d %q %q after %d calls", code, out, errs, calls.Load())
	}
	// -rpcwait also waits for the server to appear.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	srv := &http.Server{Handler: f.srv.Config.Handler}
	go func() {
		time.Sleep(200 * time.Millisecond)
		if l, err := net.Listen("tcp", "127.0.0.1:"+port); err == nil {
			srv.Serve(l)
		}
	}()
	defer srv.Close()
	code, out, errs = runCLI(t, "", "-datadir="+dir, "-rpcport="+port, "-rpcwait", "-rpcwaittimeout=20", "getblockcount")
	if code != 0 || out != "101\n" {
		t.Errorf("-rpcwait for a late server: %d %q %q", code, out, errs)
	}
}

func TestHTTPStatuses(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	f := newFakeServer(t, func(c fakeCall) fakeReply { return fakeReply{result: `"ok"`} })
	f.auth = "__cookie__:secret"
	dir := newCoreDataDir(t, f.port, "__cookie__:secret\n")
	// The cookie's first line is the credentials, and the request is
	// bitcoin-cli's JSON-RPC 2.0 object.
	code, out, _ := runCLI(t, "", "-datadir="+dir, "getblockhash", "3")
	if code != 0 || out != "ok\n" || f.lastBody() != `{"method":"getblockhash","params":[3],"id":1,"jsonrpc":"2.0"}`+"\n" {
		t.Errorf("cookie: %d %q %q", code, out, f.lastBody())
	}
	// A password on the command line replaces the cookie.
	if code, _, errs := runCLI(t, "", "-datadir="+dir, "-rpcuser=__cookie__", "-rpcpassword=wrong", "uptime"); code != 1 || errs != "error: Authorization failed: Incorrect rpcuser or rpcpassword\n" {
		t.Errorf("wrong password: %d %q", code, errs)
	}
	// -rpcwallet changes the endpoint.
	runCLI(t, "", "-datadir="+dir, "-rpcwallet=my w", "getbalance")
	if calls := f.callsSeen(); calls[len(calls)-1].path != "/wallet/my%20w" {
		t.Errorf("wallet path %q", calls[len(calls)-1].path)
	}
	for status, want := range map[int]string{
		http.StatusServiceUnavailable: "error: Server response: Work queue depth exceeded\n",
		http.StatusForbidden:          "error: server returned HTTP error 403\n",
		http.StatusNotFound:           "error: couldn't parse reply from server\n",
	} {
		f.status = status
		if code, _, errs := runCLI(t, "", "-datadir="+dir, "uptime"); code != 1 || errs != want {
			t.Errorf("HTTP %d: %d %q", status, code, errs)
		}
	}
}

func TestReplyPrinting(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	replies := map[string]fakeReply{
		"str":        {result: `"line1\nline2"`},
		"obj":        {result: `{"a":[],"b":1.50000000,"c":{"d":"é"}}`},
		"null":       {},
		"bool":       {result: "false"},
		"err":        {code: -5, message: "Invalid address"},
		"walletmany": {code: rpcWalletNotSpecified, message: "Multiple wallets are loaded. Please select which wallet to use by requesting the RPC through the /wallet/<walletname> URI path."},
		"big":        {code: -32601, message: "Method not found"},
	}
	f := newFakeServer(t, func(c fakeCall) fakeReply { return replies[c.method] })
	dir := newCoreDataDir(t, f.port, "u:p")
	for method, want := range map[string]struct {
		code      int
		out, errs string
	}{
		"str":        {0, "line1\nline2\n", ""},
		"obj":        {0, "{\n  \"a\": [\n  ],\n  \"b\": 1.50000000,\n  \"c\": {\n    \"d\": \"é\"\n  }\n}\n", ""},
		"null":       {0, "", ""},
		"bool":       {0, "false\n", ""},
		"err":        {5, "", "error code: -5\nerror message:\nInvalid address\n"},
		"walletmany": {19, "", "error code: -19\nerror message:\nMultiple wallets are loaded. Please select which wallet to use by requesting the RPC through the /wallet/<walletname> URI path. Or for the CLI, specify the \"-rpcwallet=<walletname>\" option before the command (run \"btcctl -h\" for help or \"btcctl listwallets\" to see which wallets are currently loaded).\n"},
		"big":        {32601, "", "error code: -32601\nerror message:\nMethod not found\n"},
	} {
		code, out, errs := runCLI(t, "", "-datadir="+dir, method)
		if code != want.code || out != want.out || errs != want.errs {
			t.Errorf("%s: %d %q %q, want %d %q %q", method, code, out, errs, want.code, want.out, want.errs)
		}
	}
	// -ipcconnect: btcctl speaks HTTP only.
	if code, _, errs := runCLI(t, "", "-datadir="+dir, "-ipcconnect=unix", "str"); code != 1 || errs != "error: btcctl was not built with IPC support\n" {
		t.Errorf("-ipcconnect=unix: %d %q", code, errs)
	}
	if code, _, errs := runCLI(t, "", "-datadir="+dir, "-rpcconnect=127.0.0.1", "-ipcconnect=unix", "str"); code != 1 || errs != "error: -rpcconnect and -ipcconnect options cannot both be enabled\n" {
		t.Errorf("-ipcconnect with -rpcconnect: %d %q", code, errs)
	}
	if code, _, _ := runCLI(t, "", "-datadir="+dir, "-noipcconnect", "str"); code != 0 {
		t.Errorf("-noipcconnect: %d", code)
	}
}

func TestGenerate(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	f := newFakeServer(t, func(c fakeCall) fakeReply {
		switch c.method {
		case "getnewaddress":
			return fakeReply{result: `"bcrt1qaddr"`}
		case "generatetoaddress":
			return fakeReply{result: `["h1","h2"]`}
		}
		return fakeReply{code: rpcMethodNotFound, message: "Method not found"}
	})
	dir := newCoreDataDir(t, f.port, "u:p")
	code, out, errs := runCLI(t, "", "-datadir="+dir, "-generate", "2", "1000")
	if code != 0 || out != "{\n  \"address\": \"bcrt1qaddr\",\n  \"blocks\": [\n    \"h1\",\n    \"h2\"\n  ]\n}\n" {
		t.Errorf("-generate: %d %q %q", code, out, errs)
	}
	if body := f.lastBody(); body != `{"method":"generatetoaddress","params":[2,"bcrt1qaddr",1000],"id":1,"jsonrpc":"2.0"}`+"\n" {
		t.Errorf("generatetoaddress request %q", body)
	}
	runCLI(t, "", "-datadir="+dir, "-generate")
	if body := f.lastBody(); !strings.Contains(body, `"params":[1,"bcrt1qaddr"]`) {
		t.Errorf("default nblocks: %q", body)
	}
	for args, want := range map[string]string{
		"foo":   "error: Error parsing JSON: foo\n",
		"0":     "error: the first argument (number of blocks to generate, default: 1) must be an integer value greater than zero\n",
		"1 2 3": "error: too many arguments (maximum 2 for nblocks and maxtries)\n",
	} {
		code, _, errs := runCLI(t, "", append([]string{"-datadir=" + dir, "-generate"}, strings.Fields(args)...)...)
		if code != 1 || errs != want {
			t.Errorf("-generate %s: %d %q", args, code, errs)
		}
	}
}
