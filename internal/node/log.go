package node

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/btcsuite/btclog"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/blockfilter"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/internal/logrotate"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/peer/addrmgr"
	"github.com/btcnode/btcd/peer/banmgr"
	"github.com/btcnode/btcd/peer/connmgr"
	"github.com/btcnode/btcd/peer/i2p"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/zmq"
)

// logWriter sends every log line to stdout and, once initLogFile has run,
// to the rotating log file. Errors writing the file are ignored so a full
// disk degrades logging instead of stopping the node.
type logWriter struct{}

var (
	logRotator atomic.Pointer[logrotate.Writer]
	// logToConsole is false under bitcoind's -printtoconsole=0.
	logToConsole atomic.Bool
)

func init() { logToConsole.Store(true) }

func (logWriter) Write(p []byte) (int, error) {
	if logToConsole.Load() {
		os.Stdout.Write(p)
	}
	if r := logRotator.Load(); r != nil {
		r.Write(p)
	}
	return len(p), nil
}

// backendLog is the single btclog backend all subsystem loggers share, so
// lines from different subsystems never interleave mid-line.
var backendLog = btclog.NewBackend(logWriter{})

// One logger per subsystem. Each package that logs exposes
// UseLogger(btclog.Logger); useLoggers hands these out. Where each tag
// goes (packages marked * do not have a UseLogger yet and are plugged in
// as they gain one):
//
//	BTCD  internal/node (daemon start-up and shutdown)
//	SRVR  internal/node server (wiring, connections, import, mining)
//	CHAN  blockchain.UseLogger
//	UTXO  * UTXO cache (database chain state)
//	SCRP  txscript.UseLogger
//	DB    database.UseLogger
//	INDX  blockfilter.UseLogger (BIP158 filter index; * transaction index)
//	PEER  peer.UseLogger
//	SYNC  peer/netsync (passed in netsync.Config.Log)
//	AMGR  addrmgr.UseLogger
//	CMGR  connmgr.UseLogger
//	BMGR  banmgr.UseLogger
//	I2P   i2p.UseLogger (SAM sessions and streams)
//	TOR   * Tor control port (--listenonion)
//	MEMP  mempool.UseLogger
//	RPCS  rpc.UseLogger
//	ZMQ   zmq.UseLogger
var (
	btcdLog = backendLog.Logger("BTCD")
	srvrLog = backendLog.Logger("SRVR")
	chanLog = backendLog.Logger("CHAN")
	utxoLog = backendLog.Logger("UTXO")
	scrpLog = backendLog.Logger("SCRP")
	dbLog   = backendLog.Logger("DB")
	indxLog = backendLog.Logger("INDX")
	peerLog = backendLog.Logger("PEER")
	syncLog = backendLog.Logger("SYNC")
	amgrLog = backendLog.Logger("AMGR")
	cmgrLog = backendLog.Logger("CMGR")
	bmgrLog = backendLog.Logger("BMGR")
	i2pLog  = backendLog.Logger("I2P")
	torLog  = backendLog.Logger("TOR")
	mempLog = backendLog.Logger("MEMP")
	rpcsLog = backendLog.Logger("RPCS")
	zmqLog  = backendLog.Logger("ZMQ")
)

// subsystemLoggers maps each subsystem tag to its logger; --debuglevel
// names subsystems by these tags.
var subsystemLoggers = map[string]btclog.Logger{
	"BTCD": btcdLog,
	"SRVR": srvrLog,
	"CHAN": chanLog,
	"UTXO": utxoLog,
	"SCRP": scrpLog,
	"DB":   dbLog,
	"INDX": indxLog,
	"PEER": peerLog,
	"SYNC": syncLog,
	"AMGR": amgrLog,
	"CMGR": cmgrLog,
	"BMGR": bmgrLog,
	"I2P":  i2pLog,
	"TOR":  torLog,
	"MEMP": mempLog,
	"RPCS": rpcsLog,
	"ZMQ":  zmqLog,
}

// useLoggers gives each package its subsystem logger. It runs once at
// start-up, before any package goroutine exists. Packages are added here as
// they gain a UseLogger function (see the table above).
func useLoggers() {
	blockchain.UseLogger(chanLog)
	database.UseLogger(dbLog)
	txscript.UseLogger(scrpLog)
	peer.UseLogger(peerLog)
	addrmgr.UseLogger(amgrLog)
	connmgr.UseLogger(cmgrLog)
	banmgr.UseLogger(bmgrLog)
	i2p.UseLogger(i2pLog)
	rpc.UseLogger(rpcsLog)
	zmq.UseLogger(zmqLog)
	blockfilter.UseLogger(indxLog)
	mempool.UseLogger(mempLog)
}

// initLogFile starts writing log lines to logFile in addition to stdout.
// With rotate the file is rotated by size (btcd's btcd.log); without, it
// only grows, as bitcoind's debug.log, so readers that remember an offset
// in it (Core's test framework) keep their place.
func initLogFile(logFile string, rotate bool) error {
	maxSize := int64(logrotate.DefaultMaxSize)
	if !rotate {
		maxSize = 1 << 62
	}
	r, err := logrotate.New(logFile, maxSize, logrotate.DefaultMaxFiles)
	if err != nil {
		return fmt.Errorf("failed to create log file: %w", err)
	}
	if old := logRotator.Swap(r); old != nil {
		old.Close()
	}
	return nil
}

// closeLogRotator stops file logging; later lines still reach stdout.
func closeLogRotator() {
	if r := logRotator.Swap(nil); r != nil {
		r.Close()
	}
}

// debugLevels is a parsed --debuglevel: a level for every subsystem plus
// per-subsystem overrides.
type debugLevels struct {
	global btclog.Level
	subsys map[string]btclog.Level
}

// parseDebugLevels parses --debuglevel. It accepts a single level
// ("debug"), a list of SUBSYS=level pairs ("PEER=trace,SYNC=debug"), or a
// mix where a bare level sets the default for the others
// ("info,PEER=trace"). Subsystem tags are case-insensitive.
func parseDebugLevels(s string) (debugLevels, error) {
	lv := debugLevels{global: btclog.LevelInfo}
	if strings.TrimSpace(s) == "" {
		return lv, invalidf("--debuglevel: empty (want a level such as info, or SUBSYS=level,...)")
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		tag, lvl, hasTag := strings.Cut(part, "=")
		if !hasTag {
			l, ok := btclog.LevelFromString(part)
			if !ok {
				return lv, invalidf("--debuglevel: %q is not a log level (%s)", part, levelNames)
			}
			lv.global = l
			continue
		}
		tag = strings.ToUpper(strings.TrimSpace(tag))
		lvl = strings.TrimSpace(lvl)
		if _, ok := subsystemLoggers[tag]; !ok {
			return lv, invalidf("--debuglevel: unknown subsystem %q (known: %s)", tag,
				strings.Join(supportedSubsystems(), ", "))
		}
		l, ok := btclog.LevelFromString(lvl)
		if !ok {
			return lv, invalidf("--debuglevel: %q is not a log level for %s (%s)", lvl, tag, levelNames)
		}
		if lv.subsys == nil {
			lv.subsys = make(map[string]btclog.Level)
		}
		lv.subsys[tag] = l
	}
	return lv, nil
}

const levelNames = "trace, debug, info, warn, error, critical, off"

// setLogLevels applies parsed levels to every subsystem logger.
func setLogLevels(lv debugLevels) {
	for tag, l := range subsystemLoggers {
		level := lv.global
		if o, ok := lv.subsys[tag]; ok {
			level = o
		}
		l.SetLevel(level)
	}
}

// supportedSubsystems returns the subsystem tags in sorted order.
func supportedSubsystems() []string {
	tags := make([]string, 0, len(subsystemLoggers))
	for tag := range subsystemLoggers {
		tags = append(tags, tag)
	}
	sort.Strings(tags)
	return tags
}
