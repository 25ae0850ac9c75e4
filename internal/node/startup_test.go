package node

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btclog"
)

// startupArgs run a regtest node with the three optional indexes and no
// P2P listener on dir, with no RPC server unless extra asks for one.
func startupArgs(dir string, extra ...string) []string {
	if len(extra) == 0 {
		extra = []string{"--norpc"}
	}
	return append([]string{"--regtest", "--appdata=" + dir, "--datadir=" + dir, "--nolisten",
		"--txindex", "--blockfilterindex", "--coinstatsindex"}, extra...)
}

// startupChain makes a data directory holding a few blocks and every
// index, and returns the server's configuration's data directory.
func startupChain(t *testing.T, dir string) string {
	t.Helper()
	s := startServer(t, startupArgs(dir)...)
	n := &testNode{s: s}
	n.mine(t, 5)
	waitFor(t, 10*time.Second, "txindex synced", s.chain.TxIndexSynced)
	netDir := s.cfg.DataDir
	s.Stop()
	// LevelDB moves what its journal holds into tables when it opens.
	startServer(t, startupArgs(dir)...).Stop()
	return netDir
}

// The lines bitcoind logs as start-up reaches each step, which Core's
// feature_init.py waits for before it interrupts the node.
func TestStartupLogLines(t *testing.T) {
	logged := captureLog(t)
	for _, l := range []btclog.Logger{btcdLog, chanLog, indxLog, bmgrLog, rpcsLog, syncLog, dbLog} {
		l.SetLevel(btclog.LevelInfo)
		t.Cleanup(func() { l.SetLevel(btclog.LevelOff) })
	}
	useLoggers()
	dir := t.TempDir()
	startupChain(t, dir)
	// The RPC server this time, for its line.
	s := startServer(t, startupArgs(dir, "--rpclisten=127.0.0.1:0", "--rpcuser=u", "--rpcpass=p")...)
	defer s.Stop()
	for _, want := range []string{
		"Validating signatures for all blocks.",
		"scheduler thread start",
		"Starting HTTP server",
		"Loading P2P addresses",
		"Loading banlist",
		"Loading block index",
		"Checking all blk files are present",
		"Loaded best chain: hashBestChain=",
		"init message: Verifying blocks",
		"init message: Starting network threads",
		"net thread start",
		"addcon thread start",
		"initload thread start",
		"txindex thread start",
		"basic block filter index thread start",
		"coinstatsindex thread start",
		"msghand thread start",
	} {
		waitFor(t, 10*time.Second, want, func() bool { return strings.Contains(logged(), want) })
	}
}

// moveAside renames the files matching pattern under dir to NAME.bak and
// returns how to put them back.
func moveAside(t *testing.T, dir, pattern string) func() {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(pattern)))
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s in %s (%v)", pattern, dir, err)
	}
	for _, f := range files {
		if err := os.Rename(f, f+".bak"); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		for _, f := range files {
			if err := os.Rename(f+".bak", f); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A data directory missing one of its databases' files, or a block file,
// stops start-up with bitcoind's message; put back, the node starts.
func TestStartupMissingFiles(t *testing.T) {
	dir := t.TempDir()
	netDir := startupChain(t, dir)
	for _, c := range []struct{ pattern, want string }{
		{"blocks/index/*.ldb", "Error opening block database."},
		{"chainstate/*.ldb", "Error opening coins database."},
		{"blocks/blk*.dat", "Error loading block database."},
		{"indexes/txindex/MANIFEST*", "LevelDB error: Corruption: CURRENT points to a non-existent file"},
	} {
		restore := moveAside(t, netDir, c.pattern)
		cfg, err := loadConfig(startupArgs(dir))
		if err != nil {
			t.Fatal(err)
		}
		s, err := newServer(cfg)
		if err == nil {
			s.Stop()
			t.Fatalf("%s missing: the node started", c.pattern)
		}
		if line := ErrorLine(err); !strings.Contains(line, c.want) {
			t.Errorf("%s missing: %q, want %q in it", c.pattern, line, c.want)
		}
		restore()
	}
	s := startServer(t, startupArgs(dir)...)
	defer s.Stop()
	if h := s.chain.BestSnapshot().Height; h != 5 {
		t.Fatalf("height %d after the files came back, want 5", h)
	}
}

// A refusal of the block store that is not damage keeps its own words:
// turning obfuscation off over a stored random key is not reported as a
// database to rebuild.
func TestStartupKeepsBlockStoreRefusal(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--regtest", "--appdata=" + dir, "--datadir=" + dir, "--nolisten", "--norpc"}
	startServer(t, append(args, "--blocksxor")...).Stop()
	cfg, err := loadConfig(args)
	if err != nil {
		t.Fatal(err)
	}
	s, err := newServer(cfg)
	if err == nil {
		s.Stop()
		t.Fatal("the node started with obfuscation off over a stored key")
	}
	if line := ErrorLine(err); !strings.Contains(line, "The blocksdir XOR-key can not be disabled when a random key was already stored!") || strings.Contains(line, "reindex") {
		t.Fatalf("error line %q", line)
	}
}
