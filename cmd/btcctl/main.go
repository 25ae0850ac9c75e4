package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/btcnode/btcd/rpc"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// network is what btcctl needs to know about a network.
type network struct {
	port   string
	subdir string // data subdirectory, as the daemon names it
}

var networks = map[string]network{
	"main":     {"8332", "mainnet"},
	"test":     {"18332", "testnet3"},
	"testnet4": {"48332", "testnet4"},
	"signet":   {"38332", "signet"},
	"regtest":  {"18443", "regtest"},
}

// options are the parsed command-line and config-file settings.
type options struct {
	connect, port, user, password string
	dataDir, conf, cookieFile     string
	chain                         string
	named, stdin                  bool
	tls, skipVerify               bool
	cert                          string
	timeout                       time.Duration
	help                          bool
}

// boolFlags take no value.
var boolFlags = map[string]bool{
	"regtest": true, "testnet": true, "testnet4": true, "signet": true,
	"named": true, "stdin": true, "tls": true, "skipverify": true, "help": true, "?": true, "h": true,
}

// defaultAppDir is the daemon's application directory: ~/.btcd on Unix,
// ~/Library/Application Support/Btcd on macOS, %LOCALAPPDATA%\Btcd on
// Windows.
func defaultAppDir() string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		home = "."
	}
	switch runtime.GOOS {
	case "windows":
		if dir := os.Getenv("LOCALAPPDATA"); dir != "" {
			return filepath.Join(dir, "Btcd")
		}
		return filepath.Join(home, "Btcd")
	case "darwin", "ios":
		return filepath.Join(home, "Library", "Application Support", "Btcd")
	}
	return filepath.Join(home, ".btcd")
}

const usage = `Usage: btcctl [options] <method> [params...]
Options:
  -rpcconnect=<host>    Send commands to node running on <host> (default: 127.0.0.1)
  -rpcport=<port>       Connect to JSON-RPC on <port> (default: 8332, testnet: 18332, testnet4: 48332, signet: 38332, regtest: 18443)
  -rpcuser=<user>       Username for JSON-RPC connections
  -rpcpassword=<pw>     Password for JSON-RPC connections
  -rpccookiefile=<loc>  Location of the auth cookie (default: data dir)
  -datadir=<dir>        Data directory; the cookie is <dir>/<network>/.cookie (default: ~/.btcd/data)
  -conf=<file>          Config file with rpcuser/rpcpassword/rpcconnect/rpcport (default: ~/.btcd/btcctl.conf, else ~/.btcd/btcd.conf)
  -chain=<chain>        main, test, testnet4, signet or regtest
  -regtest, -testnet, -testnet4, -signet   Select the network
  -named                Pass named instead of positional arguments
  -stdin                Read extra arguments from standard input, one per line
  -tls                  Connect with TLS; -rpccert=<file> to trust a certificate, -skipverify to trust any
  -rpcclienttimeout=<n> Timeout in seconds during HTTP requests (default: 900)
`

// parseArgs splits options from the method and its parameters.
func parseArgs(args []string) (*options, []string, error) {
	o := &options{connect: "127.0.0.1", chain: "main", timeout: 900 * time.Second}
	set := map[string]string{}
	var order []string
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		a = strings.TrimLeft(a, "-")
		name, val, hasVal := strings.Cut(a, "=")
		if !hasVal && !boolFlags[name] {
			if i+1 >= len(args) {
				return nil, nil, fmt.Errorf("option -%s needs a value", name)
			}
			i++
			val = args[i]
		}
		set[name] = val
		order = append(order, name)
	}
	rest := args[i:]
	// The config file is read first so the command line overrides it.
	conf := set["conf"]
	if conf == "" {
		// Prefer btcctl.conf; the daemon's btcd.conf also carries
		// rpcuser and rpcpass.
		conf = filepath.Join(defaultAppDir(), "btcctl.conf")
		if _, err := os.Stat(conf); err != nil {
			conf = filepath.Join(defaultAppDir(), "btcd.conf")
		}
	}
	if b, err := os.ReadFile(conf); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || line[0] == '#' || line[0] == ';' || line[0] == '[' {
				continue
			}
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				continue
			}
			switch k = strings.TrimSpace(k); k {
			case "rpcuser", "rpcpassword", "rpcpass", "rpcconnect", "rpcport", "rpccookiefile", "datadir":
				if err := o.apply(k, strings.TrimSpace(v), false); err != nil {
					return nil, nil, err
				}
			}
		}
	} else if set["conf"] != "" {
		return nil, nil, fmt.Errorf("cannot read config file %s: %v", conf, err)
	}
	for _, name := range order {
		if err := o.apply(name, set[name], true); err != nil {
			return nil, nil, err
		}
	}
	return o, rest, nil
}

func (o *options) apply(name, val string, cmdline bool) error {
	switch name {
	case "rpcconnect":
		if h, p, err := net.SplitHostPort(val); err == nil {
			o.connect, o.port = h, p
		} else {
			o.connect = val
		}
	case "rpcport":
		o.port = val
	case "rpcuser":
		o.user = val
	case "rpcpassword", "rpcpass":
		o.password = val
	case "datadir":
		o.dataDir = val
	case "conf":
		o.conf = val
	case "rpccookiefile":
		o.cookieFile = val
	case "chain":
		if _, ok := networks[val]; !ok {
			return fmt.Errorf("invalid -chain=%s", val)
		}
		o.chain = val
	case "regtest":
		o.chain = "regtest"
	case "testnet":
		o.chain = "test"
	case "testnet4":
		o.chain = "testnet4"
	case "signet":
		o.chain = "signet"
	case "named":
		o.named = true
	case "stdin":
		o.stdin = true
	case "tls":
		o.tls = true
	case "skipverify":
		o.skipVerify = true
	case "rpccert":
		o.cert = val
	case "rpcclienttimeout":
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			return fmt.Errorf("invalid -rpcclienttimeout=%s", val)
		}
		o.timeout = time.Duration(n) * time.Second
		if n == 0 {
			o.timeout = 0
		}
	case "help", "?", "h":
		o.help = true
	default:
		if cmdline {
			return fmt.Errorf("unknown option -%s", name)
		}
	}
	return nil
}

// paramValue converts an argument whose type is not known: JSON when the
// text parses as JSON, else a JSON string.
func paramValue(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(strings.TrimSpace(s))
	}
	b, _ := json.Marshal(s)
	return b
}

// convertArg converts one argument as bitcoin-cli does with its table of
// non-string parameters: string-typed arguments of known methods are sent
// as strings, other typed arguments must be JSON, and arguments of unknown
// type are JSON when they parse.
func convertArg(arg *rpc.Arg, s string) (json.RawMessage, error) {
	if arg == nil || arg.Type == rpc.ArgAny {
		return paramValue(s), nil
	}
	if arg.Type == rpc.ArgStr || arg.Type == rpc.ArgHex {
		b, _ := json.Marshal(s)
		return b, nil
	}
	if !json.Valid([]byte(s)) {
		return nil, fmt.Errorf("Error parsing JSON: %s", s)
	}
	return json.RawMessage(strings.TrimSpace(s)), nil
}

// buildParams makes the params array, or object with -named.
func buildParams(method string, args []string, named bool) (json.RawMessage, error) {
	m := rpc.LookupMethod(method)
	if !named {
		list := make([]json.RawMessage, len(args))
		for i, a := range args {
			var arg *rpc.Arg
			if m != nil && i < len(m.Args) {
				arg = &m.Args[i]
			}
			v, err := convertArg(arg, a)
			if err != nil {
				return nil, err
			}
			list[i] = v
		}
		return json.Marshal(list)
	}
	obj := map[string]json.RawMessage{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return nil, fmt.Errorf("No '=' in named argument '%s', this may be because you forgot to use -named", a)
		}
		if _, dup := obj[k]; dup {
			return nil, fmt.Errorf("Parameter %s specified multiple times", k)
		}
		var arg *rpc.Arg
		if m != nil {
			for i := range m.Args {
				for _, alias := range strings.Split(m.Args[i].Name, "|") {
					if alias == k {
						arg = &m.Args[i]
					}
				}
			}
		}
		val, err := convertArg(arg, v)
		if err != nil {
			return nil, err
		}
		obj[k] = val
	}
	return json.Marshal(obj)
}

// credentials returns "user:password" from options or the cookie file.
func credentials(o *options) (string, error) {
	if o.password != "" {
		return o.user + ":" + o.password, nil
	}
	path := o.cookieFile
	if path == "" {
		dir := o.dataDir
		if dir == "" {
			dir = filepath.Join(defaultAppDir(), "data")
		}
		path = filepath.Join(dir, networks[o.chain].subdir, ".cookie")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("Could not locate RPC credentials. No authentication cookie could be found (%s), and RPC password is not set.", path)
	}
	return strings.TrimSpace(string(b)), nil
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, rest, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	if o.help {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if o.stdin {
		sc := bufio.NewScanner(stdin)
		sc.Buffer(make([]byte, 0, 64*1024), 64<<20)
		for sc.Scan() {
			rest = append(rest, sc.Text())
		}
	}
	if len(rest) == 0 {
		fmt.Fprint(stderr, "error: too few parameters\n"+usage)
		return 1
	}
	method := rest[0]
	params, err := buildParams(method, rest[1:], o.named)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	auth, err := credentials(o)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	port := o.port
	if port == "" {
		port = networks[o.chain].port
	}
	reply, code, err := call(o, net.JoinHostPort(o.connect, port), auth, method, params)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	_ = code
	return printReply(reply, stdout, stderr)
}

// call posts one JSON-RPC request and returns the decoded reply object.
func call(o *options, hostport, auth, method string, params json.RawMessage) (map[string]json.RawMessage, int, error) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return nil, 0, err
	}
	scheme := "http"
	tr := &http.Transport{}
	if o.tls {
		scheme = "https"
		tc := &tls.Config{InsecureSkipVerify: o.skipVerify}
		if o.cert != "" {
			pem, err := os.ReadFile(o.cert)
			if err != nil {
				return nil, 0, err
			}
			pool := x509.NewCertPool()
			pool.AppendCertsFromPEM(pem)
			tc.RootCAs = pool
		}
		tr.TLSClientConfig = tc
	}
	client := &http.Client{Transport: tr, Timeout: o.timeout}
	req, err := http.NewRequest(http.MethodPost, scheme+"://"+hostport+"/", bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	user, pass, _ := strings.Cut(auth, ":")
	req.SetBasicAuth(user, pass)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("Could not connect to the server %s (%v)\n\nMake sure the btcd server is running and that you are connecting to the correct RPC port.", hostport, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<30))
	if err != nil {
		return nil, resp.StatusCode, err
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return nil, resp.StatusCode, fmt.Errorf("Authorization failed: Incorrect rpcuser or rpcpassword")
	case http.StatusServiceUnavailable:
		return nil, resp.StatusCode, fmt.Errorf("server busy (HTTP 503): %s", strings.TrimSpace(string(data)))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		if resp.StatusCode >= 400 {
			return nil, resp.StatusCode, fmt.Errorf("server returned HTTP error %d", resp.StatusCode)
		}
		return nil, resp.StatusCode, fmt.Errorf("couldn't parse reply from server")
	}
	return obj, resp.StatusCode, nil
}

// printReply prints the result or error and returns the exit status.
func printReply(reply map[string]json.RawMessage, stdout, stderr io.Writer) int {
	if e := reply["error"]; len(e) > 0 && string(e) != "null" {
		var rpcErr struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(e, &rpcErr); err != nil {
			fmt.Fprintf(stderr, "error: %s\n", e)
			return 1
		}
		fmt.Fprintf(stderr, "error code: %d\nerror message:\n%s\n", rpcErr.Code, rpcErr.Message)
		return 1
	}
	res := reply["result"]
	if len(res) == 0 || string(res) == "null" {
		return 0
	}
	var s string
	if res[0] == '"' && json.Unmarshal(res, &s) == nil {
		fmt.Fprintln(stdout, s)
		return 0
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, res, "", "  "); err != nil {
		fmt.Fprintln(stdout, string(res))
		return 0
	}
	fmt.Fprintln(stdout, buf.String())
	return 0
}
