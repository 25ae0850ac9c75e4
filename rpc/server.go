package rpc

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	stdlog "log"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/btcnode/btcd/chaincfg"

	"github.com/btcsuite/btclog"
)

// Limits and defaults. MaxRequestBytes follows bitcoind, whose HTTP server
// caps bodies at MAX_SIZE (32 MiB): enough for a submitblock of a maximal
// block in hex (8 MB) several times over, or a large batch.
const (
	DefaultMaxRequestBytes = 32 << 20
	DefaultMaxClients      = 10
	DefaultMaxBatch        = 1000
	DefaultRequestTimeout  = 10 * time.Minute
	DefaultIdleTimeout     = 30 * time.Second
	DefaultAuthFailDelay   = 250 * time.Millisecond
	// cookieUser is the user name of cookie authentication, as bitcoind.
	cookieUser = "__cookie__"
	// cookieName is the cookie file's name in the data directory.
	cookieName = ".cookie"
)

// ErrorKind classifies errors returned by New and Start; test with
// errors.Is.
type ErrorKind string

// Error returns the kind's text.
func (k ErrorKind) Error() string { return string(k) }

// Server start-up failures.
const (
	// ErrUnsafeListen: a non-loopback listen address was requested but
	// neither rpcuser/rpcpass nor rpcauth is configured.
	ErrUnsafeListen = ErrorKind("refusing to listen on a non-loopback address without RPC authentication (set rpcuser/rpcpass or rpcauth)")
	// ErrInvalidConfig: a configuration value cannot be used.
	ErrInvalidConfig = ErrorKind("invalid RPC server configuration")
	// ErrListen: no listen address could be bound.
	ErrListen = ErrorKind("cannot listen for RPC connections")
	// ErrCookie: the cookie file could not be written.
	ErrCookie = ErrorKind("cannot write RPC cookie file")
	// ErrTLS: the TLS certificate could not be loaded or generated.
	ErrTLS = ErrorKind("cannot set up RPC TLS")
)

type kindError struct {
	kind ErrorKind
	msg  string
}

func (e *kindError) Error() string { return string(e.kind) + ": " + e.msg }
func (e *kindError) Unwrap() error { return e.kind }

func kindErrorf(kind ErrorKind, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

var log = btclog.Disabled

// UseLogger sets the logger the server writes to (the daemon passes its
// RPCS subsystem logger).
func UseLogger(l btclog.Logger) { log = l }

// Config configures a Server. Zero values take the documented defaults.
type Config struct {
	// Listeners are host:port addresses to serve on. Empty means
	// 127.0.0.1 and [::1] on DefaultPort (bitcoind's default: loopback
	// only; a failure to bind ::1 is tolerated).
	Listeners []string
	// DefaultPort is used for Listeners entries without a port and for
	// the default listeners (the daemon passes the network's RPC port:
	// 8332, 18332 testnet3, 48332 testnet4, 38332 signet, 18443 regtest).
	DefaultPort string

	// User and Pass enable basic authentication with one user. With an
	// empty Pass the server writes a cookie file instead (user
	// "__cookie__", 32 random bytes in hex) and removes it at Stop.
	User, Pass string
	// RestrictClients serves only loopback clients and those in AllowIPs
	// (bitcoind's -rpcallowip); others get 403 Forbidden. Without it
	// every client that authenticates is served (btcd's behaviour).
	RestrictClients bool
	AllowIPs        []netip.Prefix
	// AuthEntries are bitcoind rpcauth entries "user:salt$hmac", where
	// hmac is hex HMAC-SHA256 keyed by salt over the password.
	AuthEntries []string
	// DataDir holds the cookie and a generated TLS certificate.
	DataDir string
	// CookieFile overrides DataDir/.cookie.
	CookieFile string
	// NoCookie writes no cookie file (bitcoind's -norpccookiefile): without
	// Pass only the rpcauth entries can log in.
	NoCookie bool
	// CookiePerms is the cookie file's mode (bitcoind's -rpccookieperms;
	// 0 means 0600, owner only).
	CookiePerms os.FileMode
	// Whitelist holds bitcoind's -rpcwhitelist entries "user:method,...",
	// limiting those users to the methods listed (whitelist.go).
	Whitelist []string
	// WhitelistDefault is -rpcwhitelistdefault: refuse every call of a
	// user without a whitelist. Nil means on when Whitelist is set.
	WhitelistDefault *bool

	// TLS serves HTTPS. Without CertFile/KeyFile a self-signed ECDSA
	// P-256 certificate is generated as DataDir/rpc.cert and rpc.key (or
	// reused if present).
	TLS               bool
	CertFile, KeyFile string

	// MaxClients bounds concurrently served requests; beyond it requests
	// get HTTP 503 (bitcoind's "Work queue depth exceeded").
	MaxClients int
	// MaxRequestBytes bounds a request body (HTTP 413 beyond it).
	MaxRequestBytes int64
	// MaxBatch bounds the number of calls in a batch.
	MaxBatch int
	// IdleTimeout closes a keep-alive connection idle this long (default
	// DefaultIdleTimeout, bitcoind's -rpcservertimeout).
	IdleTimeout time.Duration
	// RequestTimeout bounds the time to answer one HTTP request (default
	// 10 minutes: gettxoutsetinfo or verifychain on mainnet are slow). A
	// handler still running then keeps its client slot until it returns;
	// the client gets -32603 "Request timed out".
	RequestTimeout time.Duration
	// AuthFailDelay is slept before answering a failed login (deters
	// brute force, as bitcoind's 250 ms).
	AuthFailDelay time.Duration

	// Net gives the address encoding of the network.
	Net NetParams
	// Backend serves the chain, mempool, mining and network methods.
	Backend Backend
	// Shutdown is called (on its own goroutine) by the "stop" method.
	Shutdown func()
	// Logging lets the "logging" method read and set subsystem levels.
	Logging *LoggingControl
	// LogPath is reported by getrpcinfo.
	LogPath string
	// StartTime is the node's start, for uptime; zero means New's time.
	StartTime time.Time
	// StopMessage is the result of "stop" (default "btcd stopping").
	StopMessage string
	// OnCall, when set, is told of every finished method call with its
	// duration and error (for metrics).
	OnCall func(method string, d time.Duration, err error)
	// REST serves bitcoind's unauthenticated REST interface under /rest/
	// on the same listeners (rest.go). When false, /rest/ paths get 404.
	REST bool
	// MaxWebsockets bounds btcd websocket clients on /ws (websocket.go;
	// 0: DefaultMaxWebsockets, negative: none).
	MaxWebsockets int
}

// activeCall is one running method for getrpcinfo.
type activeCall struct {
	method string
	start  time.Time
}

// Server is the JSON-RPC HTTP server.
type Server struct {
	cfg      Config
	methods  registry
	userPass string
	auth     []authEntry
	wl       *whitelist // nil without -rpcwhitelist/-rpcwhitelistdefault

	sem chan struct{}

	mu         sync.Mutex
	active     map[uint64]activeCall
	nextCall   uint64
	listeners  []net.Listener
	httpServer *http.Server
	cookiePath string // set when we wrote the cookie
	stopped    bool
	defaulted  bool // Listeners were the defaults
	wg         sync.WaitGroup
	// quit is closed by Stop, ending handlers that wait (waitfor*).
	quit chan struct{}
	// ws holds the websocket clients and their subscriptions.
	ws wsHub
}

// New checks cfg and returns a server ready to Start. It returns
// ErrUnsafeListen when a listener is not loopback and no authentication is
// configured.
func New(cfg Config) (*Server, error) {
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = DefaultMaxClients
	}
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = DefaultMaxBatch
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.AuthFailDelay <= 0 {
		cfg.AuthFailDelay = DefaultAuthFailDelay
	}
	if cfg.StartTime.IsZero() {
		cfg.StartTime = time.Now()
	}
	if cfg.StopMessage == "" {
		cfg.StopMessage = "btcd stopping"
	}
	if cfg.Net.Bech32HRP == "" {
		cfg.Net = NetParamsOf(&chaincfg.MainNetParams)
	}
	if cfg.DefaultPort == "" {
		cfg.DefaultPort = "8332"
	}
	defaulted := len(cfg.Listeners) == 0
	if defaulted {
		cfg.Listeners = []string{net.JoinHostPort("127.0.0.1", cfg.DefaultPort), net.JoinHostPort("::1", cfg.DefaultPort)}
	} else {
		cfg.Listeners = append([]string(nil), cfg.Listeners...)
	}
	for i, l := range cfg.Listeners {
		if _, _, err := net.SplitHostPort(l); err != nil {
			cfg.Listeners[i] = net.JoinHostPort(strings.Trim(l, "[]"), cfg.DefaultPort)
		}
	}
	s := &Server{
		cfg:       cfg,
		defaulted: defaulted,
		methods:   registry{},
		sem:       make(chan struct{}, cfg.MaxClients),
		active:    map[uint64]activeCall{},
		quit:      make(chan struct{}),
	}
	for _, e := range cfg.AuthEntries {
		a, err := parseAuthEntry(e)
		if err != nil {
			return nil, err
		}
		s.auth = append(s.auth, a)
	}
	// A non-loopback listener needs a password or rpcauth entry, or an
	// explicit allow list of client subnets (then the cookie may serve
	// those clients, as bitcoind's -rpcallowip).
	authed := cfg.Pass != "" || len(s.auth) > 0 || (cfg.RestrictClients && len(cfg.AllowIPs) > 0)
	for _, l := range cfg.Listeners {
		host, _, _ := net.SplitHostPort(l)
		if !authed && !isLoopbackHost(host) {
			return nil, kindErrorf(ErrUnsafeListen, "%s", l)
		}
	}
	if cfg.Pass != "" {
		s.userPass = cfg.User + ":" + cfg.Pass
	}
	if len(cfg.Whitelist) > 0 || cfg.WhitelistDefault != nil {
		s.wl = parseWhitelist(cfg.Whitelist, cfg.WhitelistDefault)
	}
	s.registerAll()
	return s, nil
}

// maxHeaderBytes bounds a request's line and headers, as bitcoind's
// HTTP server (MAX_HEADERS_SIZE).
const maxHeaderBytes = 8192

// headerSize is the size of the request line and headers as sent.
func headerSize(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 4
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

// clientAllowed reports whether a request from remote (host:port) may be
// served: with RestrictClients, loopback clients and those an AllowIPs
// subnet holds (bitcoind's -rpcallowip).
func (s *Server) clientAllowed(remote string) bool {
	if !s.cfg.RestrictClients {
		return true
	}
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		return false
	}
	ip := ap.Addr().Unmap()
	if ip.IsLoopback() {
		return true
	}
	for _, p := range s.cfg.AllowIPs {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// isLoopbackHost reports a literal loopback IP or "localhost". An empty
// host (all interfaces) is not loopback.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// Start binds the listeners, writes the cookie file when cookie
// authentication is in use, and serves until Stop.
func (s *Server) Start() error {
	if s.cfg.DataDir == "" && ((s.cfg.Pass == "" && s.cfg.CookieFile == "" && !s.cfg.NoCookie) ||
		(s.cfg.TLS && (s.cfg.CertFile == "" || s.cfg.KeyFile == ""))) {
		return kindErrorf(ErrInvalidConfig, "a data directory is needed for the cookie file or TLS certificate")
	}
	var tlsConf *tls.Config
	if s.cfg.TLS {
		c, err := s.loadTLS()
		if err != nil {
			return err
		}
		tlsConf = c
	}
	if s.cfg.Pass == "" && !s.cfg.NoCookie {
		up, path, err := writeCookie(s.cookieFile(), s.cfg.CookiePerms)
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.userPass, s.cookiePath = up, path
		s.mu.Unlock()
	}
	log.Infof("Starting HTTP server on %s", strings.Join(s.cfg.Listeners, ", "))
	var lns []net.Listener
	var firstErr error
	for _, addr := range s.cfg.Listeners {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			log.Warnf("RPC: cannot listen on %s: %v", addr, err)
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if tlsConf != nil {
			ln = tls.NewListener(ln, tlsConf)
		} else {
			// As bitcoind, accept HTTP/1.1 requests without a Host
			// header (net/http's tls.Conn checks need the bare
			// connection, and TLS clients send one anyway).
			ln = hostListener{ln}
		}
		lns = append(lns, ln)
	}
	if len(lns) == 0 {
		s.removeCookie()
		return kindErrorf(ErrListen, "%v", firstErr)
	}
	// Bitcoind fails when an explicitly requested address cannot be bound;
	// only the implicit [::1] default may be missing.
	if firstErr != nil && len(lns) != len(s.cfg.Listeners) && !s.onlyDefaultV6Failed(lns) {
		for _, ln := range lns {
			ln.Close()
		}
		s.removeCookie()
		return kindErrorf(ErrListen, "%v", firstErr)
	}
	srv := &http.Server{
		Handler: s,
		// net/http's own complaints (failed TLS handshakes, a client
		// speaking plain HTTP to the TLS port) go to the RPC log, not
		// to the process's stderr.
		ErrorLog: stdlog.New(httpErrorLog{}, "", 0),
		// -rpcservertimeout also bounds waiting for a request's head,
		// as libevent's timeout does for bitcoind.
		ReadHeaderTimeout: s.cfg.IdleTimeout,
		// Reading a maximal body over a slow link may take a while, but a
		// client must not hold a request slot forever.
		ReadTimeout: 5 * time.Minute,
		// bitcoind's -rpcservertimeout: how long an idle keep-alive
		// connection stays open.
		IdleTimeout: s.cfg.IdleTimeout,
		// Big enough that oversized requests reach ServeHTTP, which
		// answers them 400 as bitcoind (Go would send 431).
		MaxHeaderBytes: 4 * maxHeaderBytes,
	}
	s.mu.Lock()
	s.listeners = lns
	s.httpServer = srv
	s.mu.Unlock()
	for _, ln := range lns {
		log.Infof("RPC server listening on %s", ln.Addr())
		s.wg.Add(1)
		go func(ln net.Listener) {
			defer s.wg.Done()
			srv.Serve(ln)
		}(ln)
	}
	return nil
}

func (s *Server) onlyDefaultV6Failed(lns []net.Listener) bool {
	return s.defaulted && len(lns) == 1
}

func (s *Server) cookieFile() string {
	if s.cfg.CookieFile != "" {
		return s.cfg.CookieFile
	}
	return filepath.Join(s.cfg.DataDir, cookieName)
}

func (s *Server) removeCookie() {
	s.mu.Lock()
	p := s.cookiePath
	s.cookiePath = ""
	s.mu.Unlock()
	if p != "" {
		os.Remove(p)
	}
}

// Addrs returns the bound listener addresses.
func (s *Server) Addrs() []net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]net.Addr, len(s.listeners))
	for i, ln := range s.listeners {
		out[i] = ln.Addr()
	}
	return out
}

// Stop closes the listeners, waits up to five seconds for running requests
// (so the reply to "stop" is delivered) and removes the cookie file. It is
// safe to call more than once.
func (s *Server) Stop() error {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return nil
	}
	s.stopped = true
	close(s.quit)
	srv := s.httpServer
	s.mu.Unlock()
	// Shutdown does not see hijacked (websocket) connections.
	s.closeWebsockets()
	if srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if srv.Shutdown(ctx) != nil {
			srv.Close()
		}
		cancel()
	}
	s.wg.Wait()
	s.removeCookie()
	return nil
}

// ServeHTTP handles one HTTP request: method and authentication checks,
// the concurrency limit, body limit and time-out, then the JSON-RPC call or
// batch. Paths under /rest/ go to the unauthenticated REST interface
// (rest.go) instead.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if headerSize(r) > maxHeaderBytes {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if !s.clientAllowed(r.RemoteAddr) {
		log.Warnf("Received a request from %s, which is not allowed (-rpcallowip)", r.RemoteAddr)
		w.WriteHeader(http.StatusForbidden)
		return
	}
	if isRESTPath(r) {
		s.serveREST(w, r)
		return
	}
	if r.URL.Path == "/ws" {
		s.serveWebsocket(w, r)
		return
	}
	// As bitcoind, JSON-RPC is served at "/" and under "/wallet/"; any
	// other path is not found.
	if r.URL.Path != "/" && !strings.HasPrefix(r.URL.Path, "/wallet/") {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		io.WriteString(w, "JSONRPC server handles only POST requests")
		return
	}
	hdr := r.Header.Get("Authorization")
	if hdr == "" {
		w.Header().Set("WWW-Authenticate", `Basic realm="jsonrpc"`)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if !s.authorized(hdr) {
		log.Warnf("RPC: incorrect password attempt from %s", r.RemoteAddr)
		time.Sleep(s.cfg.AuthFailDelay)
		w.Header().Set("WWW-Authenticate", `Basic realm="jsonrpc"`)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	body, ok := s.admit(w, r, "RPC", func() {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "Work queue depth exceeded")
	})
	if !ok {
		return
	}
	type answer struct {
		status int
		body   []byte
	}
	a := answerWithin(s, func() answer {
		if !s.wl.allows(authUser(hdr), body) {
			return answer{status: http.StatusForbidden}
		}
		st, b := s.handleBodyFrom(body, authUser(hdr))
		return answer{st, b}
	}, func(p any) answer {
		// Handlers recover on their own; this guards the parsing and
		// encoding around them, since a panic on this goroutine would
		// end the process.
		log.Errorf("RPC: panic handling request: %v\n%s", p, debug.Stack())
		return answer{http.StatusInternalServerError, appendReply(nil, jsonV1, json.RawMessage("null"), nil, NewError(ErrInternal, "Internal error"))}
	}, answer{http.StatusInternalServerError, appendReply(nil, jsonV1, json.RawMessage("null"), nil, NewError(ErrInternal, "Request timed out"))})
	if a.status == http.StatusNoContent || a.status == http.StatusForbidden {
		w.WriteHeader(a.status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	w.Write(append(a.body, '\n'))
}

// admit takes one of the --rpcmaxclients request slots and reads the
// body under the size limit, for JSON-RPC and REST alike. When it reports
// false it has answered the request: busy writes the "work queue depth
// exceeded" reply in the caller's format; an oversized body gets 413 and
// an unreadable one 400. On success the slot is held until the caller's
// answerWithin releases it.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, kind string, busy func()) ([]byte, bool) {
	select {
	case s.sem <- struct{}{}:
	default:
		log.Warnf("%s: request from %s refused: %d requests in progress", kind, r.RemoteAddr, s.cfg.MaxClients)
		busy()
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxRequestBytes))
	if err != nil {
		<-s.sem
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
		} else {
			w.WriteHeader(http.StatusBadRequest)
		}
		return nil, false
	}
	return body, true
}

// answerWithin runs fn on its own goroutine, which releases the request
// slot admit took when it ends, and returns fn's result, onPanic's if fn
// panicked (a panic there would end the process), or timedOut after the
// request time-out (fn then finishes on its own, still holding its slot).
func answerWithin[T any](s *Server, fn func() T, onPanic func(p any) T, timedOut T) T {
	done := make(chan T, 1)
	go func() {
		defer func() { <-s.sem }()
		defer func() {
			if p := recover(); p != nil {
				done <- onPanic(p)
			}
		}()
		done <- fn()
	}()
	timer := time.NewTimer(s.cfg.RequestTimeout)
	defer timer.Stop()
	select {
	case v := <-done:
		return v
	case <-timer.C:
		return timedOut
	}
}

// errorStatus is bitcoind's HTTP status for a legacy (1.0) error reply.
func errorStatus(e *Error) int {
	switch e.Code {
	case ErrInvalidRequest:
		return http.StatusBadRequest
	case ErrMethodNotFound:
		return http.StatusNotFound
	}
	return http.StatusInternalServerError
}

// handleBody answers a request body and returns the HTTP status and reply.
// It follows bitcoind (v28+): a 1.0 call's error sets the HTTP status (400,
// 404 or 500); a 2.0 call's error is a 200 reply; 2.0 notifications get
// 204; a batch is always 200 (204 when it held only notifications).
func (s *Server) handleBody(body []byte) (int, []byte) { return s.handleBodyFrom(body, "") }

// handleBodyFrom is handleBody for an authenticated user, whose name the
// dispatch log line carries.
func (s *Server) handleBodyFrom(body []byte, user string) (int, []byte) {
	single, batch, isBatch, perr := parseBody(body, s.cfg.MaxBatch)
	if perr != nil {
		return errorStatus(perr), appendReply(nil, jsonV1, json.RawMessage("null"), nil, perr)
	}
	if !isBatch {
		req, rerr := parseRequest(single)
		if rerr != nil {
			return errorStatus(rerr), appendReply(nil, req.Version, req.replyID(), nil, rerr)
		}
		res, rerr := s.execute(req, user)
		if req.isNotification() {
			return http.StatusNoContent, nil
		}
		out := appendReply(nil, req.Version, req.replyID(), res, rerr)
		if rerr != nil && req.Version == jsonV1 {
			return errorStatus(rerr), out
		}
		return http.StatusOK, out
	}
	out := []byte{'['}
	n := 0
	for _, raw := range batch {
		req, rerr := parseRequest(raw)
		var res json.RawMessage
		if rerr == nil {
			res, rerr = s.execute(req, user)
		}
		if req.isNotification() {
			continue
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = appendReply(out, req.Version, req.replyID(), res, rerr)
		n++
	}
	if n == 0 && len(batch) > 0 {
		return http.StatusNoContent, nil
	}
	return http.StatusOK, append(out, ']')
}

// execute runs one parsed call and returns its marshalled result or error.
func (s *Server) execute(req *request, user string) (json.RawMessage, *Error) {
	// bitcoind's words, which Core's tests look for in debug.log; it logs
	// every parsed call, unknown methods included.
	log.Debugf("ThreadRPCServer method=%s user=%s", sanitizeLogString(req.Method), user)
	m := s.methods[req.Method]
	if m == nil || (m.Available != nil && !m.Available(s)) {
		return nil, NewError(ErrMethodNotFound, "Method not found")
	}
	p, rerr := bindParams(m, req.Params)
	if rerr != nil {
		return nil, rerr
	}
	s.mu.Lock()
	id := s.nextCall
	s.nextCall++
	s.active[id] = activeCall{method: m.Name, start: time.Now()}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.active, id)
		s.mu.Unlock()
	}()
	res, err := s.call(m, p)
	if err != nil {
		return nil, toRPCError(err)
	}
	b, err := encodeJSON(res)
	if err != nil {
		log.Errorf("RPC: cannot encode result of %s: %v", m.Name, err)
		return nil, NewError(ErrInternal, "Internal error")
	}
	return b, nil
}

// authUser returns the user name of a Basic Authorization header that
// was already accepted ("__cookie__" for cookie authentication).
func authUser(header string) string {
	_, enc, ok := strings.Cut(header, " ")
	if !ok {
		return ""
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(enc))
	if err != nil {
		return ""
	}
	user, _, _ := strings.Cut(string(raw), ":")
	return user
}

// sanitizeLogString keeps only the characters bitcoind's SanitizeString
// lets through (letters, digits and " .,;-_/:?@()"), so a method name
// cannot forge log lines.
func sanitizeLogString(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		case strings.ContainsRune(" .,;-_/:?@()", r):
			return r
		}
		return -1
	}, s)
}

// call runs a handler, turning a panic into -32603 so bad input can never
// take the node down.
func (s *Server) call(m *Method, p *Params) (res any, err error) {
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			log.Errorf("RPC: panic in %s: %v\n%s", m.Name, r, debug.Stack())
			res, err = nil, NewError(ErrInternal, "Internal error")
		}
		if s.cfg.OnCall != nil {
			s.cfg.OnCall(m.Name, time.Since(start), err)
		}
	}()
	return m.Handler(s, p)
}

// activeCalls lists running calls, oldest first, for getrpcinfo.
func (s *Server) activeCalls() []activeCall {
	s.mu.Lock()
	out := make([]activeCall, 0, len(s.active))
	for _, c := range s.active {
		out = append(out, c)
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].start.Before(out[j].start) })
	return out
}

// Method returns a registered method (for tests and the daemon's help
// output), or nil.
func (s *Server) Method(name string) *Method { return s.methods[name] }

// Register adds methods to the server (for daemon-specific extensions). It
// must be called before Start.
func (s *Server) Register(methods ...*Method) { s.methods.add(methods...) }

// httpErrorLog writes net/http's server errors to the RPC debug log.
type httpErrorLog struct{}

func (httpErrorLog) Write(p []byte) (int, error) {
	log.Debugf("RPC: %s", strings.TrimSpace(string(p)))
	return len(p), nil
}
