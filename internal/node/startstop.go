package node

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/btcnode/btcd/blockchain"
)

// This file holds what happens around start and stop besides the
// subsystems themselves: the pid file, the notification commands
// (--startupnotify, --shutdownnotify, --blocknotify, --alertnotify) and
// the conditions that end a run by themselves (--stopatheight,
// --stopafterblockimport).

// writePidFile writes the process id, as bitcoind's -pid.
func writePidFile(path string) error {
	if path == "" {
		return nil
	}
	return os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
}

// runNotifyCommand runs a notification command through the shell without
// waiting for it, as bitcoind does; %s in cmd is replaced by arg (which
// the caller has made safe for a shell).
func runNotifyCommand(cmd, arg string) {
	if cmd == "" {
		return
	}
	cmd = strings.ReplaceAll(cmd, "%s", arg)
	c := exec.Command("/bin/sh", "-c", cmd)
	if err := c.Start(); err != nil {
		srvrLog.Warnf("runCommand error: %v: %s", err, cmd)
		return
	}
	go func() {
		if err := c.Wait(); err != nil {
			srvrLog.Warnf("runCommand error: system(%s) returned %v", cmd, err)
		}
	}()
}

// shellSafe keeps only the characters bitcoind lets into an -alertnotify
// message (SAFE_CHARS_DEFAULT), quoted for the shell.
func shellSafe(msg string) string {
	const safe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 .,;-_/:?@()"
	var sb strings.Builder
	for _, r := range msg {
		if strings.ContainsRune(safe, r) {
			sb.WriteRune(r)
		}
	}
	return "'" + sb.String() + "'"
}

// watchChain installs the chain subscribers behind --blocknotify and
// --stopatheight.
func (s *server) watchChain() {
	cfg := s.cfg
	if cfg.BlockNotify == "" && cfg.StopAtHeight <= 0 {
		return
	}
	s.chain.Subscribe(func(n *blockchain.Notification) {
		if n.Type != blockchain.NTTipChanged {
			return
		}
		tip := s.chain.BestSnapshot()
		// bitcoind notifies only once the node is out of initial
		// download, so an initial sync does not run thousands of
		// commands.
		if cfg.BlockNotify != "" && s.chain.IsCurrent() {
			runNotifyCommand(cfg.BlockNotify, tip.Hash.String())
		}
		if cfg.StopAtHeight > 0 && tip.Height >= cfg.StopAtHeight {
			btcdLog.Infof("Reached --stopatheight %d: shutting down", cfg.StopAtHeight)
			requestShutdown()
		}
	})
}

// abort is Core's AbortNode: the chain met an error it cannot go on from,
// so the node shuts down, and Run returns the error for the front end to
// print ("A fatal internal error occurred, see debug.log for details").
func (s *server) abort(msg string, err error) {
	if !s.fatal.CompareAndSwap(nil, &msg) {
		return
	}
	btcdLog.Errorf("*** %s: %v", msg, err)
	requestShutdown()
}

// errFatal is what Run returns after abort.
func errFatal(msg string) error {
	return fmt.Errorf("A fatal internal error occurred, see debug.log for details: %s", msg)
}

// verifyAtStartup checks the last --checkblocks blocks at --checklevel
// before the node does anything else, as Core's VerifyDB at start-up, so
// missing or corrupt block or undo files stop start-up instead of
// surfacing at the next reorganisation.
func (s *server) verifyAtStartup() error {
	cfg := s.cfg
	tip := s.chain.BestSnapshot()
	if tip.Height == 0 {
		return nil
	}
	n := cfg.CheckBlocks
	if n <= 0 || n > tip.Height {
		n = tip.Height
	}
	btcdLog.Info("init message: Verifying blocks…")
	btcdLog.Infof("Verifying last %d blocks at level %d", n, cfg.CheckLevel)
	if bad, _ := s.chain.VerifyChain(cfg.CheckLevel, n, s.cfg.scriptThreads); bad != "" {
		btcdLog.Errorf("Verification failed: %s", bad)
		return rebuildMessage("Corrupted block database detected")
	}
	btcdLog.Info("Verification: No coin database inconsistencies in last blocks")
	return nil
}

// alert logs a warning and runs --alertnotify with it.
func (s *server) alert(msg string) {
	btcdLog.Warn(msg)
	runNotifyCommand(s.cfg.AlertNotify, shellSafe(msg))
}
