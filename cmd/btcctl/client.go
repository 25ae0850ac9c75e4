package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/btcnode/btcd/internal/hostport"
)

// errConnFailed is a transient failure: no answer from the server, or the
// server still warming up. -rpcwait retries it.
type errConnFailed struct{ msg string }

func (e *errConnFailed) Error() string { return e.msg }

// rpcInWarmup is the error code of a server that is still starting.
const rpcInWarmup = -28

// rpcMethodNotFound is JSON-RPC's unknown-method code.
const rpcMethodNotFound = -32601

// rpcWalletNotSpecified is the error code for a call that needs a wallet
// name because several are loaded.
const rpcWalletNotSpecified = -19

// hostPort picks the server address with bitcoin-cli's preferences for the
// port: -rpcport, then a port in -rpcconnect, then the network's default.
func (c *cli) hostPort() (string, uint16, error) {
	s := c.cfg.s
	port := defaultRPCPorts[c.cfg.chain]
	connect := s.getString("rpcconnect", "127.0.0.1")
	host, connectPort, ok := hostport.Split(connect)
	if !ok {
		// The argument as given, to help the user find the mistake.
		return "", 0, fmt.Errorf("Invalid port provided in -rpcconnect: %s", connect)
	}
	if connectPort != 0 {
		port = connectPort
	}
	if arg, set := s.lookupString("rpcport"); set {
		p, ok := hostport.ParsePort(arg)
		if !ok || p == 0 {
			return "", 0, fmt.Errorf("Invalid port provided in -rpcport: %s", arg)
		}
		port = p
		if connectPort != 0 {
			fmt.Fprintf(c.stderr, "Warning: Port specified in both -rpcconnect and -rpcport. Using -rpcport %d\n", port)
		}
	}
	return host, port, nil
}

// cookiePath is the auth cookie's location, "" with -norpccookiefile.
// Relative paths are taken from the network's data folder.
func (c *cli) cookiePath() string {
	s := c.cfg.s
	if s.isNegated("rpccookiefile") {
		return ""
	}
	p := s.getString("rpccookiefile", "")
	if p == "" {
		p = ".cookie"
	}
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.cfg.netDir(), p)
}

// credentials returns "user:password": -rpcuser and -rpcpassword when a
// password is set, else the cookie's first line. cookieFailed reports a
// cookie that could not be read; the call is still made (without
// credentials), and a refusal then says that no credentials were found.
func (c *cli) credentials() (creds string, cookieFailed bool) {
	s := c.cfg.s
	if pw := s.getString("rpcpassword", ""); pw != "" {
		return s.getString("rpcuser", "") + ":" + pw, false
	}
	p := c.cookiePath()
	if p == "" {
		return "", true
	}
	f, err := os.Open(p)
	if err != nil {
		return "", true
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	return strings.TrimRight(line, "\r\n"), false
}

// walletEndpoint is the URI path for a wallet: "/wallet/" and the name
// with everything but unreserved characters percent-encoded, as libevent's
// evhttp_uriencode does.
func walletEndpoint(name string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	b.WriteString("/wallet/")
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || strings.IndexByte("-._~", ch) >= 0 {
			b.WriteByte(ch)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[ch>>4])
		b.WriteByte(hexDigits[ch&15])
	}
	return b.String()
}

// httpClient builds the client for one call: -rpcclienttimeout (0 or less
// waits for ever) and, with -tls, the certificate to trust.
func (c *cli) httpClient() (*http.Client, string, error) {
	s := c.cfg.s
	tr := &http.Transport{DisableKeepAlives: true, Proxy: nil}
	scheme := "http"
	if s.getBool("tls", false) {
		scheme = "https"
		tc := &tls.Config{InsecureSkipVerify: s.getBool("skipverify", false)}
		if cert := s.getString("rpccert", ""); cert != "" {
			pem, err := os.ReadFile(cert)
			if err != nil {
				return nil, "", err
			}
			pool := x509.NewCertPool()
			pool.AppendCertsFromPEM(pem)
			tc.RootCAs = pool
		}
		tr.TLSClientConfig = tc
	}
	cl := &http.Client{Transport: tr}
	if t := s.getInt("rpcclienttimeout", 900); t > 0 {
		cl.Timeout = time.Duration(t) * time.Second
	}
	return cl, scheme, nil
}

// connectionError words a failed exchange as bitcoin-cli does, with
// libevent's note for a time-out or a connection closed without a reply.
func (c *cli) connectionError(host string, port uint16, err error) error {
	detail := ""
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		detail = ` (error code 0 - "timeout reached")`
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		detail = ` (error code 1 - "EOF reached")`
	}
	return &errConnFailed{fmt.Sprintf("Could not connect to the server %s:%d%s\n\n"+
		"Make sure the bitcoind server is running and that you are connecting to the correct RPC port.\n"+
		"Use \"%s -help\" for more info.", host, port, detail, progName)}
}

// callRPC makes one HTTP exchange: the handler's request to endpoint, its
// processing of the reply.
func (c *cli) callRPC(h requestHandler, method string, args []string, endpoint string) (*jval, error) {
	host, port, err := c.hostPort()
	if err != nil {
		return nil, err
	}
	creds, cookieFailed := c.credentials()
	req, err := h.prepare(method, args)
	if err != nil {
		return nil, err
	}
	cl, scheme, err := c.httpClient()
	if err != nil {
		return nil, err
	}
	hostport := net.JoinHostPort(host, strconv.Itoa(int(port)))
	hreq, err := http.NewRequest(http.MethodPost, scheme+"://"+hostport+endpoint, bytes.NewReader([]byte(req.write(0)+"\n")))
	if err != nil {
		return nil, err
	}
	hreq.Close = true
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(creds)))
	resp, err := cl.Do(hreq)
	if err != nil {
		return nil, c.connectionError(host, port, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, c.connectionError(host, port, err)
	}
	switch st := resp.StatusCode; {
	case st == http.StatusUnauthorized && cookieFailed:
		return nil, fmt.Errorf("Could not locate RPC credentials. No authentication cookie could be found, and RPC password is not set.  See -rpcpassword and -stdinrpcpass.  Configuration file: (%s)", c.cfg.confPath)
	case st == http.StatusUnauthorized:
		return nil, errors.New("Authorization failed: Incorrect rpcuser or rpcpassword")
	case st == http.StatusServiceUnavailable:
		return nil, fmt.Errorf("Server response: %s", body)
	case st >= 400 && st != http.StatusBadRequest && st != http.StatusNotFound && st != http.StatusInternalServerError:
		return nil, fmt.Errorf("server returned HTTP error %d", st)
	case len(body) == 0:
		return nil, errors.New("no response from server")
	}
	reply, err := parseJSON(body)
	if err != nil {
		return nil, errors.New("couldn't parse reply from server")
	}
	out, err := h.process(reply)
	if err != nil {
		return nil, err
	}
	if len(out.elems()) == 0 {
		return nil, errors.New("expected reply to have result, error and id properties")
	}
	return out, nil
}

// connectAndCall is callRPC with -rpcwait's retries (once a second while
// the server cannot be reached or warms up, up to -rpcwaittimeout seconds
// when that is positive) on the endpoint of wallet (nil for none).
func (c *cli) connectAndCall(h requestHandler, method string, args []string, wallet *string) (*jval, error) {
	s := c.cfg.s
	wait := s.getBool("rpcwait", false)
	timeout := s.getInt("rpcwaittimeout", 0)
	deadline := c.now().Add(time.Duration(timeout) * time.Second)
	endpoint := "/"
	if wallet != nil {
		endpoint = walletEndpoint(*wallet)
	}
	for {
		if err := c.checkIPC(); err != nil {
			return nil, err
		}
		reply, err := c.callRPC(h, method, args, endpoint)
		if err == nil && wait {
			if code, ok := reply.get("error").get("code").int(); ok && code == rpcInWarmup {
				err = &errConnFailed{"server in warmup"}
			}
		}
		if err == nil {
			return reply, nil
		}
		var cf *errConnFailed
		if !errors.As(err, &cf) {
			return nil, err
		}
		if wait && (timeout <= 0 || c.now().Before(deadline)) {
			time.Sleep(c.retryDelay)
			continue
		}
		return nil, &errConnFailed{"timeout on transient error: " + cf.msg}
	}
}

// checkIPC applies -ipcconnect. btcctl speaks HTTP only, which is what
// bitcoin-cli falls back to with the default "auto" (and uses with
// -noipcconnect); asking for a socket is an error, as it is for a
// bitcoin-cli built without IPC.
func (c *cli) checkIPC() error {
	s := c.cfg.s
	ipc := s.getString("ipcconnect", "auto")
	if ipc == "0" {
		return nil
	}
	if s.isSet("rpcconnect") && !s.isNegated("rpcconnect") {
		if ipc == "auto" {
			return nil
		}
		return errors.New("-rpcconnect and -ipcconnect options cannot both be enabled")
	}
	if ipc != "auto" {
		return fmt.Errorf("%s was not built with IPC support", progName)
	}
	return nil
}

// rpcWalletName is -rpcwallet, nil when unset or negated.
func (c *cli) rpcWalletName() *string {
	s := c.cfg.s
	if s.isNegated("rpcwallet") {
		return nil
	}
	if name, ok := s.lookupString("rpcwallet"); ok {
		return &name
	}
	return nil
}
