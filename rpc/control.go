package rpc

import (
	"encoding/json"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/btcnode/btcd/internal/clock"
)

// builtinMethods is the registry of every built-in method, built once.
var builtinMethods = sync.OnceValue(func() registry {
	r := registry{}
	r.add(controlMethods()...)
	r.add(rawTxMethods()...)
	r.add(utilMethods()...)
	r.add(chainMethods()...)
	r.add(deploymentMethods()...)
	r.add(extraMethods()...)
	r.add(mempoolMethods()...)
	r.add(miningMethods()...)
	r.add(netMethods()...)
	r.add(testMethods()...)
	r.add(regtestNetMethods()...)
	r.add(packageMethods()...)
	r.add(signMethods()...)          // signrawtx.go
	r.add(feeRawMethods()...)        // fees_raw.go
	r.add(addPeerMethods()...)       // addpeer.go
	r.add(sendMsgMethods()...)       // sendmsg.go
	r.add(addrManMethods()...)       // addrman.go
	r.add(scanBlocksMethods()...)    // scanblocks.go, descactivity.go
	r.add(blockFromPeerMethods()...) // getblockfrompeer.go
	r.add(dumpTxOutSetMethods()...)  // dumptxoutset.go
	r.add(psbtMethods()...)          // psbt.go, psbt_decode.go
	r.add(psbtProcessMethods()...)   // psbt_process.go
	r.add(btcdMethods()...)          // btcdextra.go
	r.add(importMempoolMethods()...) // importmempool.go
	r.add(zmqMethods()...)           // zmq.go
	return r
})

func (s *Server) registerAll() {
	for name, m := range builtinMethods() {
		s.methods[name] = m
	}
}

// LookupMethod returns the built-in method with the given name, or nil.
// Clients (btcctl) use its argument types to decide which command-line
// arguments are JSON and which are strings. The result must not be
// modified.
func LookupMethod(name string) *Method { return builtinMethods()[name] }

func controlMethods() []*Method {
	return []*Method{
		{
			Name: "help", Category: "control",
			Description: "List all commands, or get help for a specified command.",
			Args:        []Arg{{Name: "command", Type: ArgStr, Optional: true, Default: "all commands", Description: "The command to get help on"}},
			Result:      `"str"    (string) The help text`,
			Handler:     handleHelp,
		},
		{
			Name: "uptime", Category: "control",
			Description: "Returns the total uptime of the server.",
			Result:      "n    (numeric) The number of seconds that the server has been running",
			Handler: func(s *Server, _ *Params) (any, error) {
				// Whole seconds on both sides, as bitcoind's GetTime, so a
				// mock time set n seconds ahead adds exactly n.
				return clock.Unix() - s.cfg.StartTime.Unix(), nil
			},
		},
		{
			Name: "stop", Category: "control",
			Description: "Request a graceful shutdown of the node.",
			// wait is bitcoind's hidden argument: how long to sleep
			// before answering (test harnesses pass it, usually 0).
			Args:   []Arg{{Name: "wait", Type: ArgNum, Optional: true, Hidden: true, Description: "how long to wait in ms"}},
			Result: `"str"    (string) A string with the content 'btcd stopping'`,
			Handler: func(s *Server, p *Params) (any, error) {
				wait, err := p.Int(0, 0)
				if err != nil {
					return nil, err
				}
				if wait > 0 {
					select {
					case <-time.After(time.Duration(min(wait, 60_000)) * time.Millisecond):
					case <-s.quit:
					}
				}
				if f := s.cfg.Shutdown; f != nil {
					// The reply must go out before shutdown closes the
					// listener, so shut down from another goroutine.
					go f()
				}
				return s.cfg.StopMessage, nil
			},
			Available: func(s *Server) bool { return s.cfg.Shutdown != nil },
		},
		{
			Name: "getrpcinfo", Category: "control",
			Description: "Returns details of the RPC server.",
			Result: `{
  "active_commands" : [    (json array) All active commands
    {
      "method" : "str",    (string) The name of the RPC command
      "duration" : n       (numeric) The running time in microseconds
    },
    ...
  ],
  "logpath" : "str"        (string) The complete file path to the debug log
}`,
			Handler: handleGetRPCInfo,
		},
		{
			Name: "getmemoryinfo", Category: "control",
			Description: `Returns an object containing information about memory usage.
This node keeps no locked (mlock'd) key pool, so "locked" reports the Go
heap instead: used = live heap bytes, free = idle heap bytes not returned to
the OS, total = used + free, locked = 0, chunks_used = live heap objects,
chunks_free = free bytes in 8 KiB pages.`,
			Args: []Arg{{Name: "mode", Type: ArgStr, Optional: true, Default: `"stats"`, Description: `determines what kind of information is returned. "stats" returns general statistics; "mallocinfo" is not available in this node`}},
			Result: `{
  "locked" : {           (json object) Information about locked memory manager
    "used" : n,          (numeric) Number of bytes used
    "free" : n,          (numeric) Number of bytes available in current arenas
    "total" : n,         (numeric) Total number of bytes managed
    "locked" : n,        (numeric) Amount of bytes that succeeded locking
    "chunks_used" : n,   (numeric) Number allocated chunks
    "chunks_free" : n    (numeric) Number unused chunks
  }
}`,
			Handler: handleGetMemoryInfo,
		},
		{
			Name: "logging", Category: "control",
			Description: `Gets and sets the logging configuration.
Without arguments, returns every logging category with whether it is
debug logged. With arguments, adds the categories in include to debug
logging, then removes those in exclude (so a category in both ends up
off), and returns the same object. "all" or "1" names every category.`,
			Args: []Arg{
				{Name: "include", Type: ArgArr, Optional: true, Description: "The categories to add to debug logging"},
				{Name: "exclude", Type: ArgArr, Optional: true, Description: "The categories to remove from debug logging"},
			},
			Result:        "{                   (json object) keys are the logging categories, values their debug status\n  \"category\" : true|false,\n  ...\n}",
			Handler:       handleLogging,
			DescribeExtra: loggingCategoriesHelp,
			Available:     func(s *Server) bool { return s.cfg.Logging != nil && s.cfg.Logging.Categories != nil },
		},
	}
}

func handleHelp(s *Server, p *Params) (any, error) {
	cmd, err := p.Str(0, "")
	if err != nil {
		return nil, err
	}
	if cmd == "" {
		return s.methods.listing(), nil
	}
	m := s.methods[cmd]
	if m == nil {
		return "help: unknown command: " + cmd, nil
	}
	return m.helpTextFor(s), nil
}

// RPCInfoCommand is one getrpcinfo active command.
type RPCInfoCommand struct {
	Method   string `json:"method"`
	Duration int64  `json:"duration"`
}

// RPCInfo is the getrpcinfo result.
type RPCInfo struct {
	ActiveCommands []RPCInfoCommand `json:"active_commands"`
	LogPath        string           `json:"logpath"`
}

func handleGetRPCInfo(s *Server, _ *Params) (any, error) {
	now := time.Now()
	calls := s.activeCalls()
	out := &RPCInfo{ActiveCommands: make([]RPCInfoCommand, 0, len(calls)), LogPath: s.cfg.LogPath}
	for _, c := range calls {
		out.ActiveCommands = append(out.ActiveCommands, RPCInfoCommand{Method: c.method, Duration: int64(now.Sub(c.start) / time.Microsecond)})
	}
	return out, nil
}

// LockedMemory is the getmemoryinfo "locked" object.
type LockedMemory struct {
	Used       uint64 `json:"used"`
	Free       uint64 `json:"free"`
	Total      uint64 `json:"total"`
	Locked     uint64 `json:"locked"`
	ChunksUsed uint64 `json:"chunks_used"`
	ChunksFree uint64 `json:"chunks_free"`
}

func handleGetMemoryInfo(_ *Server, p *Params) (any, error) {
	mode, err := p.Str(0, "stats")
	if err != nil {
		return nil, err
	}
	switch mode {
	case "stats":
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		free := ms.HeapIdle - ms.HeapReleased
		return map[string]LockedMemory{"locked": {
			Used:       ms.HeapAlloc,
			Free:       free,
			Total:      ms.HeapAlloc + free,
			ChunksUsed: ms.Mallocs - ms.Frees,
			// Free heap in the runtime's 8 KiB pages.
			ChunksFree: (free + 8191) / 8192,
		}}, nil
	case "mallocinfo":
		return nil, NewError(ErrInvalidParam, "mallocinfo mode not available")
	}
	return nil, NewError(ErrInvalidParam, "unknown mode "+mode)
}

func handleLogging(s *Server, p *Params) (any, error) {
	lc := s.cfg.Logging
	cats := lc.Categories()
	names := make([]string, 0, len(cats))
	for c := range cats {
		names = append(names, c)
	}
	sort.Strings(names)
	// As bitcoind, include is applied before exclude (a category in both
	// ends up off), entries in order, and an unknown name stops there
	// with the earlier ones already applied.
	apply := func(raw json.RawMessage, on bool) error {
		if raw == nil || string(raw) == "null" {
			return nil
		}
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return NewError(ErrType, "JSON value is not an array as expected")
		}
		for _, item := range list {
			var c string
			if err := json.Unmarshal(item, &c); err != nil {
				return typeError(item, "string")
			}
			targets := []string{c}
			switch c {
			case "", "1", "all":
				targets = names
			default:
				if _, ok := cats[c]; !ok {
					return NewError(ErrInvalidParam, "unknown logging category "+c)
				}
			}
			for _, t := range targets {
				if err := lc.SetCategory(t, on); err != nil {
					return NewError(ErrInvalidParam, err.Error())
				}
			}
		}
		return nil
	}
	if err := apply(p.Raw(0), true); err != nil {
		return nil, err
	}
	if err := apply(p.Raw(1), false); err != nil {
		return nil, err
	}
	return lc.Categories(), nil
}

// MethodNames returns the names of the built-in methods, sorted (for
// metrics labels).
func MethodNames() []string {
	m := builtinMethods()
	out := make([]string, 0, len(m))
	for name := range m {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// loggingCategoriesHelp lists the daemon's categories, sorted, in the
// wording of Core's help, which tools and tests match against.
func loggingCategoriesHelp(s *Server) string {
	if s.cfg.Logging == nil || s.cfg.Logging.Categories == nil {
		return ""
	}
	cats := s.cfg.Logging.Categories()
	names := make([]string, 0, len(cats))
	for c := range cats {
		names = append(names, c)
	}
	sort.Strings(names)
	return "The valid logging categories are: " + strings.Join(names, ", ") +
		"\nIn addition, the following are available as category names with special meanings:\n" +
		"  - \"all\",  \"1\" : represent all logging categories."
}
