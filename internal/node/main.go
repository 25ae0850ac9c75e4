package node

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
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

	applyRuntimeLimits(cfg)

	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		fmt.Fprintf(stderr, "%s: --datadir: %s\n", appName, oneLine(err.Error()))
		return 1
	}
	if err := initLogRotator(filepath.Join(cfg.LogDir, defaultLogFilename)); err != nil {
		fmt.Fprintf(stderr, "%s: --logdir: %s\n", appName, oneLine(err.Error()))
		return 1
	}
	defer closeLogRotator()
	setLogLevels(cfg.debugLevels)
	useLoggers()

	interrupt := interruptListener()
	defer btcdLog.Info("Shutdown complete")

	btcdLog.Infof("Version %s", version())
	btcdLog.Infof("Go version %s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	btcdLog.Infof("Network: %s", cfg.netName)
	btcdLog.Infof("Data directory: %s", cfg.DataDir)
	btcdLog.Infof("Log directory: %s", cfg.LogDir)
	if cfg.GoGC > 0 || cfg.MemLimit > 0 {
		btcdLog.Infof("Go runtime: GOGC=%d, memory limit %d MiB (0 = none)", cfg.GoGC, cfg.MemLimit)
	}

	if cfg.CPUProfile != "" {
		stop, err := startCPUProfile(cfg.CPUProfile)
		if err != nil {
			btcdLog.Errorf("%v", err)
			return 1
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
			return 1
		}
		btcdLog.Infof("Profile server listening on %s", ps.addr)
		defer ps.stop()
	}

	if interruptRequested(interrupt) {
		return 0
	}

	srv, err := newServer(cfg)
	if err != nil {
		btcdLog.Errorf("Unable to start server: %v", err)
		return 1
	}
	srv.Start()
	<-interrupt
	srv.Stop()
	srv.WaitForShutdown()
	return 0
}

// applyRuntimeLimits applies --gogc and --memlimit before the node starts
// allocating; zero leaves the Go runtime (and GOGC/GOMEMLIMIT) untouched.
func applyRuntimeLimits(cfg *config) {
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
