package node

import (
	"fmt"

	"github.com/btcnode/btcd/rpc"
	"github.com/btcsuite/btclog"
)

// loggingControl gives the logging RPC bitcoind's view of debug logging:
// a set of categories, each switched on or off, carried out over the
// subsystem loggers the categories map to (DebugCategories).
func loggingControl(loggers map[string]btclog.Logger) *rpc.LoggingControl {
	return &rpc.LoggingControl{
		Categories: func() map[string]bool {
			st := &debugCategoryState
			st.mu.Lock()
			defer st.mu.Unlock()
			en := enabledCategoriesLocked(loggers)
			out := make(map[string]bool, len(DebugCategories))
			for c := range DebugCategories {
				out[c] = en[c]
			}
			return out
		},
		SetCategory: func(name string, on bool) error {
			subs, ok := DebugCategories[name]
			if !ok {
				return fmt.Errorf("unknown logging category %s", name)
			}
			st := &debugCategoryState
			st.mu.Lock()
			defer st.mu.Unlock()
			en := enabledCategoriesLocked(loggers)
			if on {
				en[name] = true
			} else {
				delete(en, name)
			}
			for _, s := range subs {
				l, ok := loggers[s]
				if !ok {
					continue
				}
				switch {
				case on && !isDebugOrTrace(l.Level()):
					// Trace stays trace: -loglevel may have asked for it.
					l.SetLevel(btclog.LevelDebug)
				case !on && isDebugOrTrace(l.Level()) && !subsystemWanted(en, s):
					// A subsystem shared with a category still on keeps
					// logging, as each bitcoind category is independent.
					l.SetLevel(btclog.LevelInfo)
				}
			}
			return nil
		},
	}
}

// subsystemWanted reports whether an enabled category logs through sub.
func subsystemWanted(enabled map[string]bool, sub string) bool {
	for c := range enabled {
		for _, s := range DebugCategories[c] {
			if s == sub {
				return true
			}
		}
	}
	return false
}
