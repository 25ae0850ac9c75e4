package node

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/wire"
)

// BtcdMain runs the daemon with btcd's command line and returns the process
// exit code. It returns rather than exits so deferred clean-up (profiles,
// log file) always runs.
func BtcdMain(args []string, stdout, stderr io.Writer) int {
	cfg, err := loadConfig(args)
	if err != nil {
		var he *helpError
		if errors.As(err, &he) {
			fmt.Fprint(stdout, he.text)
			return 0
		}
		fmt.Fprintf(stderr, "%s: %s\n", appName, oneLine(err.Error()))
		return 1
	}
	if cfg.ShowVersion {
		fmt.Fprintln(stdout, versionLine())
		return 0
	}
	if cfg.DebugLevel == "show" {
		fmt.Fprintf(stdout, "Supported subsystems %v\n", supportedSubsystems())
		return 0
	}
	if err := Run(cfg); err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", appName, oneLine(err.Error()))
		return 1
	}
	return 0
}

// Validate checks a configuration built outside btcd's command line (the
// bitcoind front end), resolves its network and paths and fills the
// derived fields; Run requires it. The message of the error returned
// starts with the option at fault.
func (cfg *Config) Validate() error {
	if err := cfg.validate(); err != nil {
		return err
	}
	cfg.validated = true
	return nil
}

// Run starts the node cfg describes and blocks until it has shut down,
// after SIGINT, SIGTERM or the stop RPC. cfg comes from btcd's command
// line (loadConfig) or from Validate. A start-up failure is returned; it
// has been logged already when logging had started.
func Run(cfg *Config) error {
	if !cfg.validated {
		return errors.New("node: configuration not validated")
	}
	applyRuntimeLimits(cfg)

	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("--datadir: %w", err)
	}
	program := appName
	if cfg.Bitcoind.Layout {
		program = "Bitcoin Core"
	}
	// The data directory and the blocks directory (which --blocksdir may
	// put elsewhere) are each locked, as bitcoind does.
	unlock, err := lockDataDir(cfg.DataDir, program)
	if err != nil {
		return err
	}
	defer unlock()
	blocksDir := cfg.blockFilesDir
	if blocksDir == "" {
		blocksDir = filepath.Join(cfg.DataDir, "blocks")
	}
	unlockBlocks, err := lockDataDir(blocksDir, program)
	if err != nil {
		return err
	}
	defer unlockBlocks()
	logToConsole.Store(!cfg.Bitcoind.NoConsole)
	if cfg.logFile != "" {
		if cfg.Bitcoind.Layout {
			// bitcoind does not create the debug log file's directory.
			if st, err := os.Stat(filepath.Dir(cfg.logFile)); err != nil || !st.IsDir() {
				return fmt.Errorf("Could not open debug log file %s", cfg.logFile)
			}
		}
		if err := initLogFile(cfg.logFile, !cfg.Bitcoind.Layout); err != nil {
			return fmt.Errorf("Could not open debug log file %s", cfg.logFile)
		}
		defer closeLogRotator()
	}
	setLogLevels(cfg.debugLevels)
	useLoggers()

	interrupt := interruptListener()
	defer btcdLog.Info("Shutdown complete")

	btcdLog.Infof("Version %s", version())
	btcdLog.Infof("Go version %s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	btcdLog.Infof("Network: %s", cfg.netName)
	if cfg.params.IsSignet() {
		var magic [4]byte
		binary.LittleEndian.PutUint32(magic[:], uint32(cfg.params.Net))
		btcdLog.Infof("Signet derived magic (message start): %x", magic)
	}
	btcdLog.Infof("Using data directory %s", cfg.DataDir)
	if cfg.logFile != "" {
		btcdLog.Infof("Log file: %s", cfg.logFile)
	}
	for _, line := range cfg.Bitcoind.StartupLog {
		btcdLog.Info(line)
	}
	if cfg.params.Net == wire.TestNet3 {
		btcdLog.Warnf("Warning: %s", testnet3Deprecated)
	}
	if cfg.AcceptStaleFeeEstimates && !cfg.RegressionTest {
		msg := fmt.Sprintf("acceptstalefeeestimates is not supported on %s chain.", cfg.params.Name)
		btcdLog.Errorf("Error: %s", msg)
		return coreMessage(msg)
	}
	if cfg.GoGC > 0 || cfg.MemLimit > 0 {
		btcdLog.Infof("Go runtime: GOGC=%d, memory limit %d MiB (0 = none)", cfg.GoGC, cfg.MemLimit)
	}

	if cfg.CPUProfile != "" {
		stop, err := startCPUProfile(cfg.CPUProfile)
		if err != nil {
			btcdLog.Errorf("%v", err)
			return err
		}
		defer stop()
	}
	// Deferred after the CPU profile so it runs before the CPU profile
	// stops; the heap profile then sees the state at the very end.
	if cfg.MemProfile != "" {
		defer func() {
			if err := writeMemProfile(cfg.MemProfile); err != nil {
				btcdLog.Errorf("%v", err)
			} else {
				btcdLog.Infof("Wrote heap profile to %s", cfg.MemProfile)
			}
		}()
	}
	if cfg.profileAddr != "" {
		ps, err := startProfileServer(cfg.profileAddr)
		if err != nil {
			btcdLog.Errorf("%v", err)
			return err
		}
		btcdLog.Infof("Profile server listening on %s", ps.addr)
		defer ps.stop()
	}

	if interruptRequested(interrupt) {
		return nil
	}
	if cfg.MockTime != 0 {
		clock.SetMock(cfg.MockTime)
	}
	if err := writePidFile(cfg.PidFile); err != nil {
		btcdLog.Errorf("Unable to create the PID file '%s': %v", cfg.PidFile, err)
		return fmt.Errorf("Unable to create the PID file '%s': %v", cfg.PidFile, err)
	}
	if cfg.PidFile != "" {
		defer os.Remove(cfg.PidFile)
	}

	srv, err := newServer(cfg)
	if err != nil {
		btcdLog.Errorf("Unable to start server: %v", err)
		if errors.Is(err, errHTTPServer) && cfg.Bitcoind.Layout {
			return errors.New("Unable to start HTTP server. See debug log for details.")
		}
		return err
	}
	if autoMemLimitWanted(cfg.MemLimit, goMemLimitEnv) {
		srv.wg.Add(1)
		go func() {
			defer srv.wg.Done()
			srv.followMemLimit()
		}()
	}
	srv.Start()
	// Core's wording: tools wait for this line to know startup finished.
	btcdLog.Info("init message: Done loading")
	runNotifyCommand(cfg.StartupNotify, "")
	if cfg.Bitcoind.OnStarted != nil {
		cfg.Bitcoind.OnStarted()
	}
	<-interrupt
	runNotifyCommand(cfg.ShutdownNotify, "")
	srv.Stop()
	srv.WaitForShutdown()
	if msg := srv.fatal.Load(); msg != nil {
		return errFatal(*msg)
	}
	return nil
}

// applyRuntimeLimits applies --gogc and --memlimit before the node starts
// allocating. --gogc=0 leaves GOGC to the runtime; --memlimit=0 leaves
// the limit to GOMEMLIMIT or, without it, to the cache (memlimit.go).
func applyRuntimeLimits(cfg *Config) {
	if cfg.GoGC > 0 {
		debug.SetGCPercent(cfg.GoGC)
	}
	if cfg.MemLimit > 0 {
		debug.SetMemoryLimit(int64(cfg.MemLimit) << 20)
	}
}

// oneLine keeps error output to a single line whatever a library put in it.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
