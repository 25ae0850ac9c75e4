package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func main() {
	if len(os.Args) > 0 {
		progName = filepath.Base(os.Args[0])
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// cli is one run of the client.
type cli struct {
	cfg            *config
	stdin          *bufio.Reader
	stdinFile      *os.File // when standard input is a file, for terminal checks
	stdout, stderr io.Writer
	stdoutTTY      bool
	now            func() time.Time
	retryDelay     time.Duration // between -rpcwait attempts
}

// retryDelay is how long -rpcwait waits between attempts; tests shorten it.
var retryDelay = time.Second

// run is the whole client: it returns the exit status. As bitcoin-cli, a
// failure before any call (bad option, config file) exits 1 with "Error:
// ..." on stderr; a failed call exits 1 with "error: ..."; an RPC error
// prints "error code: N\nerror message:\n..." and exits with |N| (as the
// operating system truncates it); a result goes to stdout, a string as is
// and anything else as indented JSON.
func run(argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	s := newSettings()
	rest, err := s.parseCommandLine(argv)
	if err != nil {
		fmt.Fprintf(stderr, "Error parsing command line arguments: %v\n", err)
		return 1
	}
	if len(argv) == 0 || s.isSet("?") || s.isSet("h") || s.isSet("help") || s.isSet("help-debug") || s.getBool("version", false) {
		if s.getBool("version", false) && len(argv) > 0 {
			fmt.Fprint(stdout, versionText())
		} else {
			fmt.Fprint(stdout, helpText(s.isSet("help-debug")))
		}
		if len(argv) == 0 {
			fmt.Fprintln(stderr, "Error: too few parameters")
			return 1
		}
		return 0
	}
	cfg, err := loadConfig(s, rest, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	c := &cli{cfg: cfg, stdout: stdout, stderr: stderr, now: time.Now, retryDelay: retryDelay}
	if f, ok := stdin.(*os.File); ok {
		c.stdinFile = f
	}
	c.stdin = bufio.NewReader(stdin)
	if f, ok := stdout.(*os.File); ok {
		c.stdoutTTY = isTerminal(f)
	}
	return c.commandLineRPC()
}

// readLine reads one line of standard input without its newline, as
// std::getline does; ok is false at the end of input.
func (c *cli) readLine() (string, bool) {
	line, err := c.stdin.ReadString('\n')
	if err != nil && line == "" {
		return "", false
	}
	return strings.TrimSuffix(line, "\n"), true
}

// stdinTerminal reports whether standard input is a terminal.
func (c *cli) stdinTerminal() bool { return c.stdinFile != nil && isTerminal(c.stdinFile) }

// readSecret reads a password line, prompting and hiding the typing when
// standard input is a terminal.
func (c *cli) readSecret(prompt, failure string) (string, error) {
	tty := c.stdinTerminal()
	if tty {
		fmt.Fprint(c.stderr, prompt)
		restore := noEcho(c.stdinFile)
		defer restore()
	}
	line, ok := c.readLine()
	if !ok {
		return "", errors.New(failure)
	}
	if tty {
		fmt.Fprintln(c.stdout)
	}
	return line, nil
}

// commandLineRPC runs the command: reads what -stdin and friends ask for,
// picks the request handler, calls the server and prints the outcome.
func (c *cli) commandLineRPC() int {
	out, code := c.execute()
	if out != "" {
		if code == 0 {
			fmt.Fprintln(c.stdout, out)
		} else {
			fmt.Fprintln(c.stderr, out)
		}
	}
	return code
}

// execute returns the text to print and the exit status.
func (c *cli) execute() (string, int) {
	s := c.cfg.s
	args := append([]string{}, c.cfg.rest...)
	fail := func(err error) (string, int) { return "error: " + err.Error(), 1 }
	if s.getBool("stdinrpcpass", false) {
		pw, err := c.readSecret("RPC password> ", "-stdinrpcpass specified but failed to read from standard input")
		if err != nil {
			return fail(err)
		}
		s.forced["rpcpassword"] = setting{Str: pw}
	}
	if s.getBool("stdinwalletpassphrase", false) {
		if len(args) < 1 || !strings.HasPrefix(args[0], "walletpassphrase") {
			return fail(errors.New("-stdinwalletpassphrase is only applicable for walletpassphrase(change)"))
		}
		pass, err := c.readSecret("Wallet passphrase> ", "-stdinwalletpassphrase specified but failed to read from standard input")
		if err != nil {
			return fail(err)
		}
		args = append([]string{args[0], pass}, args[1:]...)
	}
	if s.getBool("stdin", false) {
		for {
			line, ok := c.readLine()
			if !ok {
				break
			}
			args = append(args, line)
		}
		if c.stdinTerminal() {
			fmt.Fprintln(c.stdout)
		}
	}
	var commands []string
	for _, o := range options {
		if o.flags&optCommand != 0 && s.onCommandLine(o.name) {
			commands = append(commands, "-"+o.name)
		}
	}
	if len(commands) > 1 {
		sort.Strings(commands)
		return fail(fmt.Errorf("Only one of %s may be specified.", strings.Join(commands, ", ")))
	}

	var h requestHandler
	method := ""
	switch {
	case s.getBool("getinfo", false):
		h = getinfoHandler{}
	case s.getBool("netinfo", false):
		if len(args) > 0 && (args[0] == "h" || args[0] == "help") {
			return netinfoHelp(), 0
		}
		h = newNetinfoHandler(c.now, c.cfg.chain)
	case s.getBool("generate", false):
		reply, err := c.connectAndCall(&defaultHandler{}, "getnewaddress", nil, c.rpcWalletName())
		if err != nil {
			return fail(err)
		}
		if e := reply.get("error"); !e.isNull() {
			return parseError(e)
		}
		addr := reply.get("result")
		if !addr.isStr() {
			return fail(typeError(addr, "string"))
		}
		if args, err = generateArgs(addr.s, args); err != nil {
			return fail(err)
		}
		h = &generateHandler{}
	case s.getBool("addrinfo", false):
		h = addrinfoHandler{}
	default:
		if len(args) < 1 {
			return fail(errors.New("too few parameters (need at least command)"))
		}
		h = &defaultHandler{named: s.getBool("named", false)}
		method, args = args[0], args[1:]
	}

	wallet := c.rpcWalletName()
	reply, err := c.connectAndCall(h, method, args, wallet)
	if err != nil {
		return fail(err)
	}
	result, rpcErr := reply.get("result"), reply.get("error")
	if !rpcErr.isNull() {
		return parseError(rpcErr)
	}
	if s.getBool("getinfo", false) {
		if wallet == nil {
			if err := c.walletBalances(result); err != nil {
				return fail(err)
			}
		}
		color, err := shouldColor(s.getString("color", "auto"), c.stdoutTTY)
		if err != nil {
			return fail(err)
		}
		result = jString(formatGetinfo(result, color))
	}
	switch {
	case result.isNull():
		return "", 0
	case result.isStr():
		return result.s, 0
	}
	return result.write(2), 0
}

// parseError words an RPC error as bitcoin-cli does and returns it with
// the exit status, the code's absolute value.
func parseError(e *jval) (string, int) {
	if !e.isObj() {
		return "error: " + e.write(0), 1
	}
	var b strings.Builder
	code := e.get("code")
	if !code.isNull() {
		b.WriteString("error code: " + code.valStr() + "\n")
	}
	if msg := e.get("message"); msg.isStr() {
		b.WriteString("error message:\n" + msg.s)
	}
	n, ok := code.int()
	if !ok {
		return "error: " + typeError(code, "number").Error(), 1
	}
	if n == rpcWalletNotSpecified {
		b.WriteString(" Or for the CLI, specify the \"-rpcwallet=<walletname>\" option before the command")
		fmt.Fprintf(&b, " (run \"%s -h\" for help or \"%s listwallets\" to see which wallets are currently loaded).", progName, progName)
	}
	if n < 0 {
		n = -n
	}
	return b.String(), int(n)
}
