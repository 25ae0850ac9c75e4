package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// ErrorKind classifies this package's errors for errors.Is.
type ErrorKind string

// Error returns the kind's name.
func (k ErrorKind) Error() string { return string(k) }

// Error kinds.
const (
	// ErrBadAddress means the --metrics value is not host:port or a port.
	ErrBadAddress = ErrorKind("bad metrics address")
	// ErrNoMetrics means Serve was given a nil *Metrics.
	ErrNoMetrics = ErrorKind("metrics not enabled")
)

// Path is where the exposition is served.
const Path = "/metrics"

// Server timeouts. A scrape is small and local; the limits keep a stuck or
// malicious client from holding a connection open.
const (
	readHeaderTimeout = 5 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 60 * time.Second
	scrapeTimeout     = 20 * time.Second
	maxInFlight       = 4
	closeTimeout      = 5 * time.Second
)

// NormalizeAddr turns a --metrics value into a listen address. A bare port
// ("9332") and an empty host (":9332") mean loopback (127.0.0.1), so that
// exposing the endpoint beyond the machine always takes an explicit host
// such as 0.0.0.0 or [::].
func NormalizeAddr(s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("%w: empty", ErrBadAddress)
	}
	if _, err := strconv.ParseUint(s, 10, 16); err == nil {
		return net.JoinHostPort("127.0.0.1", s), nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrBadAddress, s, err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", fmt.Errorf("%w: %q: port must be a number from 0 to 65535", ErrBadAddress, s)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// Server is the running metrics endpoint.
type Server struct {
	ln   net.Listener
	srv  *http.Server
	done chan error
}

// Serve normalizes addr, listens on it and serves m's registry at Path on
// its own mux (nothing else, in particular no pprof, is exposed there).
func Serve(addr string, m *Metrics) (*Server, error) {
	if m == nil {
		return nil, ErrNoMetrics
	}
	a, err := NormalizeAddr(addr)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", a)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on %s: %w", a, err)
	}
	mux := http.NewServeMux()
	mux.Handle(Path, promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		// A failing source (a closed database during shutdown) drops
		// its own series; the rest of the scrape still succeeds.
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: maxInFlight,
		Timeout:             scrapeTimeout,
	}))
	s := &Server{
		ln: ln,
		srv: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: readHeaderTimeout,
			WriteTimeout:      writeTimeout,
			IdleTimeout:       idleTimeout,
			MaxHeaderBytes:    8 << 10,
		},
		done: make(chan error, 1),
	}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr returns the address the endpoint listens on (useful with port 0).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Close stops accepting scrapes, waits briefly for running ones and
// returns once the server goroutine has exited.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, s.srv.Close())
	}
	if serveErr := <-s.done; serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	return err
}
