package main

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// server is the daemon's network front: for now it opens the P2P listeners
// and holds inbound connections until shutdown, and reports where the RPC
// server will listen. The peer, sync and RPC packages replace the bodies of
// Start and Stop as they land.
type server struct {
	cfg       *config
	listeners []net.Listener

	quit chan struct{}
	wg   sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]struct{}

	startOnce sync.Once
	stopOnce  sync.Once
}

// newServer binds every P2P listen address, so a port already in use fails
// start-up instead of surfacing later.
func newServer(cfg *config) (*server, error) {
	s := &server{
		cfg:   cfg,
		quit:  make(chan struct{}),
		conns: make(map[net.Conn]struct{}),
	}
	for _, addr := range cfg.Listeners {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			for _, prev := range s.listeners {
				prev.Close()
			}
			return nil, err
		}
		s.listeners = append(s.listeners, l)
	}
	return s, nil
}

// Start begins accepting connections.
func (s *server) Start() {
	s.startOnce.Do(func() {
		srvrLog.Trace("Starting server")
		if len(s.listeners) == 0 {
			srvrLog.Info("Not listening for inbound connections (--nolisten, --connect or --proxy)")
		}
		for _, l := range s.listeners {
			srvrLog.Infof("Server listening on %s", l.Addr())
			s.wg.Add(1)
			go s.acceptLoop(l)
		}
		if s.cfg.DisableRPC {
			srvrLog.Info("RPC server disabled (--norpc)")
		}
		for _, addr := range s.cfg.RPCListeners {
			host, _, _ := net.SplitHostPort(addr)
			srvrLog.Infof("RPC listen address %s (RPC server not started yet)", addr)
			if !isLoopbackHost(host) {
				srvrLog.Warnf("RPC address %s is not loopback; the RPC server uses plain HTTP", addr)
			}
		}
		for _, p := range s.cfg.ConnectPeers {
			srvrLog.Infof("Configured --connect peer %s (outbound connections not implemented yet)", p)
		}
		for _, p := range s.cfg.AddPeers {
			srvrLog.Infof("Configured --addpeer peer %s (outbound connections not implemented yet)", p)
		}
	})
}

// acceptLoop holds each inbound connection open (reading and discarding
// what the peer sends) until shutdown or until the peer hangs up. Beyond
// --maxpeers held connections new ones are closed at once.
func (s *server) acceptLoop(l net.Listener) {
	defer s.wg.Done()
	var backoff time.Duration
	for {
		conn, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Usually EMFILE: pause so the loop does not spin, then retry.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			srvrLog.Warnf("Accept on %s failed: %v", l.Addr(), err)
			select {
			case <-time.After(backoff):
				continue
			case <-s.quit:
				return
			}
		}
		backoff = 0
		if !s.addConn(conn) {
			srvrLog.Debugf("Rejecting inbound connection from %s: max peers (%d) reached",
				conn.RemoteAddr(), s.cfg.MaxPeers)
			conn.Close()
			continue
		}
		srvrLog.Infof("Inbound connection from %s held until shutdown (peer protocol not wired yet)",
			conn.RemoteAddr())
		s.wg.Add(1)
		go s.holdConn(conn)
	}
}

func (s *server) addConn(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.quit:
		return false
	default:
	}
	if len(s.conns) >= s.cfg.MaxPeers {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *server) holdConn(c net.Conn) {
	defer s.wg.Done()
	io.Copy(io.Discard, c)
	c.Close()
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	select {
	case <-s.quit:
	default:
		srvrLog.Debugf("Inbound peer %s disconnected", c.RemoteAddr())
	}
}

// Stop closes the listeners and every held connection. It is safe to call
// more than once.
func (s *server) Stop() {
	s.stopOnce.Do(func() {
		srvrLog.Info("Server shutting down")
		s.mu.Lock()
		close(s.quit)
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		for _, l := range s.listeners {
			l.Close()
		}
	})
}

// WaitForShutdown blocks until every goroutine started by Start has exited.
func (s *server) WaitForShutdown() {
	s.wg.Wait()
}
