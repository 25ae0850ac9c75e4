package node

import (
	"maps"
	"sync"

	"github.com/btcsuite/btclog"
)

// DebugCategories maps each of bitcoind's debug-logging categories (the
// names -debug, -debugexclude, -loglevel and the logging RPC take) to the
// node's log subsystems that carry that category's messages. Categories
// of features the node does not have map to no subsystem; they are still
// accepted and reported, as bitcoind accepts a category whatever was
// compiled in. The list is Bitcoin Core 30's.
var DebugCategories = map[string][]string{
	"net":              {"PEER", "SYNC", "CMGR", "SRVR", "BMGR"},
	"tor":              {"TOR", "CMGR"},
	"i2p":              {"I2P", "CMGR"},
	"proxy":            {"CMGR"},
	"mempool":          {"MEMP"},
	"mempoolrej":       {"MEMP"},
	"txpackages":       {"MEMP"},
	"estimatefee":      {"MEMP"},
	"http":             {"RPCS"},
	"rpc":              {"RPCS"},
	"zmq":              {"ZMQ"},
	"addrman":          {"AMGR"},
	"validation":       {"CHAN", "SCRP"},
	"bench":            {"CHAN"},
	"prune":            {"CHAN"},
	"reindex":          {"CHAN", "SRVR"},
	"blockstorage":     {"DB"},
	"coindb":           {"UTXO", "DB"},
	"leveldb":          {"DB"},
	"cmpctblock":       {"SYNC"},
	"kernel":           {"CHAN"},
	"scan":             {"INDX"},
	"txreconciliation": {"PEER"},
	"rand":             nil,
	"libevent":         nil,
	"ipc":              nil,
	"walletdb":         nil,
	"selectcoins":      nil,
	"qt":               nil,
}

// debugCategoryState is which categories have debug logging on. The
// front end knows the categories it was given, which the subsystem
// levels alone cannot tell apart (http and rpc share a subsystem), so it
// records them here before the node starts; the logging RPC then reads
// and changes this set.
var debugCategoryState struct {
	mu      sync.Mutex
	set     bool
	enabled map[string]bool
}

// SetDebugCategories records the categories debug logging was enabled for
// at start-up (after -debugexclude), for the logging RPC to report.
// Unknown names are ignored. Without a call, the node derives the set
// from the subsystem levels.
func SetDebugCategories(cats []string) {
	en := make(map[string]bool, len(cats))
	for _, c := range cats {
		if _, ok := DebugCategories[c]; ok {
			en[c] = true
		}
	}
	st := &debugCategoryState
	st.mu.Lock()
	st.enabled, st.set = en, true
	st.mu.Unlock()
}

// isDebugOrTrace reports whether a subsystem level logs debug messages.
func isDebugOrTrace(l btclog.Level) bool { return l <= btclog.LevelDebug }

// enabledCategoriesLocked returns the category set, deriving it the first
// time from the subsystem levels when the front end recorded none: a
// category counts as on when it has subsystems and all log at debug or
// finer. The caller holds debugCategoryState.mu.
func enabledCategoriesLocked(loggers map[string]btclog.Logger) map[string]bool {
	st := &debugCategoryState
	if st.set {
		return st.enabled
	}
	en := make(map[string]bool)
	for c, subs := range DebugCategories {
		on := len(subs) > 0
		for _, s := range subs {
			if l, ok := loggers[s]; !ok || !isDebugOrTrace(l.Level()) {
				on = false
			}
		}
		if on {
			en[c] = true
		}
	}
	st.enabled, st.set = en, true
	return en
}

// EnabledDebugCategories returns the categories with debug logging on, as
// the logging RPC reports them.
func EnabledDebugCategories() map[string]bool {
	st := &debugCategoryState
	st.mu.Lock()
	defer st.mu.Unlock()
	return maps.Clone(enabledCategoriesLocked(subsystemLoggers))
}
