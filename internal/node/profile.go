package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	rpprof "runtime/pprof"
	"time"
)

// profileServer serves net/http/pprof for --profile. It uses its own mux:
// importing net/http/pprof also registers on http.DefaultServeMux, which
// this daemon never serves, so nothing else is exposed.
type profileServer struct {
	srv  *http.Server
	addr net.Addr
	done chan struct{}
}

// startProfileServer binds addr first so a bad or busy address fails
// start-up, then serves in the background.
func startProfileServer(addr string) (*profileServer, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--profile: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/", http.RedirectHandler("/debug/pprof/", http.StatusSeeOther))
	ps := &profileServer{
		srv: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: 10 * time.Second,
		},
		addr: l.Addr(),
		done: make(chan struct{}),
	}
	go func() {
		defer close(ps.done)
		if err := ps.srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			btcdLog.Errorf("Profile server: %v", err)
		}
	}()
	return ps, nil
}

// stop closes the server, giving in-flight requests a moment; a running
// 30-second CPU profile request is cut off rather than delaying shutdown.
func (ps *profileServer) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := ps.srv.Shutdown(ctx); err != nil {
		ps.srv.Close()
	}
	<-ps.done
}

// startCPUProfile starts --cpuprofile; the returned function stops it.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := rpprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		rpprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			btcdLog.Errorf("Unable to write CPU profile: %v", err)
		}
	}, nil
}

// writeMemProfile writes the heap profile for --memprofile. A GC first
// makes the in-use numbers reflect live data rather than garbage.
func writeMemProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	runtime.GC()
	if err := rpprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("--memprofile: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	return nil
}
