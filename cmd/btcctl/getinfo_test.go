package main

import (
	"strings"
	"testing"
)

// getinfoAnswers answers -getinfo's batch like a node without a wallet.
func getinfoAnswers(progress string) func(c fakeCall) fakeReply {
	return func(c fakeCall) fakeReply {
		switch c.method {
		case "getnetworkinfo":
			return fakeReply{result: `{"version":300000,"subversion":"/Satoshi:30.0.0/","protocolversion":70016,"timeoffset":-2,` +
				`"connections":3,"connections_in":1,"connections_out":2,"relayfee":0.00001000,"warnings":[],` +
				`"networks":[{"name":"ipv4","proxy":"127.0.0.1:9050"},{"name":"ipv6","proxy":"127.0.0.1:9050"},{"name":"onion","proxy":"127.0.0.1:9050"},` +
				`{"name":"i2p","proxy":"127.0.0.1:7656"},{"name":"cjdns","proxy":"127.0.0.1:9050"}]}`}
		case "getblockchaininfo":
			return fakeReply{result: `{"chain":"regtest","blocks":101,"headers":102,"verificationprogress":` + progress + `,"difficulty":4.656542373906925e-10}`}
		}
		return fakeReply{code: rpcMethodNotFound, message: "Method not found"}
	}
}

func TestGetinfo(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	f := newFakeServer(t, getinfoAnswers("1"))
	dir := newCoreDataDir(t, f.port, "u:p")
	code, out, errs := runCLI(t, "", "-datadir="+dir, "-getinfo")
	want := "Chain: regtest\n" +
		"Blocks: 101\n" +
		"Headers: 102\n" +
		"Verification progress: 100.0000%\n" +
		"Difficulty: 4.656542373906925e-10\n" +
		"\n" +
		"Network: in 1, out 2, total 3\n" +
		"Version: 300000\n" +
		"Time offset (s): -2\n" +
		"Proxies: 127.0.0.1:9050 (ipv4, ipv6, onion, cjdns), 127.0.0.1:7656 (i2p)\n" +
		"Min tx relay fee rate (BTC/kvB): 0.00001000\n" +
		"\n" +
		"Warnings: (none)\n"
	if code != 0 || out != want || errs != "" {
		t.Errorf("-getinfo: %d %q\nwant %q\n%q", code, out, want, errs)
	}
	// One batch of four calls with null params, then listwallets (which
	// fails: no wallet).
	calls := f.callsSeen()
	var methods []string
	for _, c := range calls {
		methods = append(methods, c.method)
	}
	if strings.Join(methods, " ") != "getnetworkinfo getblockchaininfo getwalletinfo getbalances listwallets" {
		t.Errorf("calls %v", methods)
	}
	if !strings.HasPrefix(f.bodies[0], `[{"method":"getnetworkinfo","params":null,"id":0,"jsonrpc":"2.0"},`) {
		t.Errorf("batch %q", f.bodies[0])
	}

	code, out, _ = runCLI(t, "", "-datadir="+dir, "-getinfo", "-color=always")
	if code != 0 || !strings.HasPrefix(out, "\x1b[34mChain: regtest\x1b[0m\n") || !strings.Contains(out, "\x1b[32mNetwork: in 1, out 2, total 3\x1b[0m\n") || !strings.HasSuffix(out, "\x1b[33mWarnings:\x1b[0m (none)\n") {
		t.Errorf("-color=always: %q", out)
	}
	if _, out, _ = runCLI(t, "", "-datadir="+dir, "-getinfo", "-color=auto"); strings.Contains(out, "\x1b[") {
		t.Errorf("-color=auto into a buffer: %q", out)
	}
	if code, _, errs = runCLI(t, "", "-datadir="+dir, "-getinfo", "-color=foo"); code != 1 || errs != "error: Invalid value for -color option. Valid values: always, auto, never.\n" {
		t.Errorf("-color=foo: %d %q", code, errs)
	}
	if code, _, errs = runCLI(t, "", "-datadir="+dir, "-getinfo", "help"); code != 1 || errs != "error: -getinfo takes no arguments\n" {
		t.Errorf("-getinfo help: %d %q", code, errs)
	}
}

func TestGetinfoProgressAndWallet(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	base := getinfoAnswers("0.4321")
	f := newFakeServer(t, func(c fakeCall) fakeReply {
		switch {
		case c.method == "getwalletinfo":
			return fakeReply{result: `{"walletname":"","keypoolsize":1000,"unlocked_until":0,"paytxfee":0.00000000}`}
		case c.method == "getbalances" && c.path == "/wallet/secret":
			return fakeReply{result: `{"mine":{"trusted":1234567.00000000}}`}
		case c.method == "getbalances":
			return fakeReply{result: `{"mine":{"trusted":50.00000000}}`}
		case c.method == "listwallets":
			return fakeReply{result: `["","secret"]`}
		case c.method == "getnetworkinfo":
			r := base(c)
			r.result = strings.Replace(r.result, `"warnings":[]`, `"warnings":["w1","w2"]`, 1)
			return r
		}
		return base(c)
	})
	dir := newCoreDataDir(t, f.port, "u:p")
	code, out, _ := runCLI(t, "", "-datadir="+dir, "-getinfo")
	if !strings.Contains(out, "Verification progress: ▒▒▒▒▒▒▒▒▒░░░░░░░░░░░░ 43.2100%\n") {
		t.Errorf("progress bar: %q", out)
	}
	want := "Wallet: \"\"\nKeypool size: 1000\nUnlocked until: 0\nTransaction fee rate (-paytxfee) (BTC/kvB): 0.00000000\n\n" +
		"Balance: 50.00000000\n\n" +
		"Balances\n     50.00000000 \"\"\n1234567.00000000 secret\n\n" +
		"Warnings: w1; w2\n"
	if code != 0 || !strings.HasSuffix(out, want) {
		t.Errorf("wallet part: %d %q", code, out)
	}
	// With -rpcwallet the batch goes to the wallet and no balances are
	// listed.
	_, out, _ = runCLI(t, "", "-datadir="+dir, "-rpcwallet=secret", "-getinfo")
	if strings.Contains(out, "Balances") || !strings.Contains(out, "Balance: 1234567.00000000\n") {
		t.Errorf("-rpcwallet: %q", out)
	}
	// An error from getnetworkinfo is the answer.
	g := newFakeServer(t, func(c fakeCall) fakeReply { return fakeReply{code: -1, message: "boom"} })
	dir2 := newCoreDataDir(t, g.port, "u:p")
	if code, _, errs := runCLI(t, "", "-datadir="+dir2, "-getinfo"); code != 1 || errs != "error code: -1\nerror message:\nboom\n" {
		t.Errorf("failing getnetworkinfo: %d %q", code, errs)
	}
}

func TestProgressBar(t *testing.T) {
	for in, want := range map[float64]int{0: 20, 0.05: 20, 0.5: 20, 0.99: 21} {
		if got := strings.Count(progressBar(in), "▒") + strings.Count(progressBar(in), "░"); got != want {
			t.Errorf("progressBar(%v) has %d cells, want %d", in, got, want)
		}
	}
	if progressBar(-1) != "" || progressBar(2) != "" {
		t.Error("out-of-range progress drawn")
	}
}
