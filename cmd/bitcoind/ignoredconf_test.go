package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bitcoin.conf in the data directory that is not the file read is
// logged with -noconf and refused (or, with -allowignoredconf, warned
// about) when another file was named, as bitcoind does.
func TestIgnoredDataDirConf(t *testing.T) {
	dir := t.TempDir()
	inDir := filepath.Join(dir, "bitcoin.conf")
	if err := os.WriteFile(inDir, []byte("garbage\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, _, _, err := loadSettings([]string{"-datadir=" + dir, "-noconf"})
	if err != nil {
		t.Fatal(err)
	}
	want := `[InitConfig] Data directory "` + dir + `" contains a "bitcoin.conf" file which is explicitly ignored using -noconf.`
	if strings.Join(a.warnings, "\n") != want {
		t.Errorf("warnings %q", a.warnings)
	}
	other := filepath.Join(t.TempDir(), "other.conf")
	if err := os.WriteFile(other, []byte("datadir="+dir+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, _, err = loadSettings([]string{"-conf=" + other})
	wantErr := `Data directory "` + dir + `" contains a "bitcoin.conf" file which is ignored, because a different configuration file "` +
		other + `" from command line argument "-conf=` + other + `" is being used instead.`
	if err == nil || !strings.HasPrefix(err.Error(), wantErr) {
		t.Errorf("ignored conf: %v", err)
	}
	a, _, _, err = loadSettings([]string{"-conf=" + other, "-allowignoredconf"})
	if err != nil || len(a.warnings) != 1 || !strings.HasPrefix(a.warnings[0], "Warning: "+wantErr) {
		t.Errorf("allowignoredconf: %v %q", err, a.warnings)
	}
	// Naming the data directory's own file is no conflict.
	if err := os.WriteFile(inDir, []byte("regtest=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := loadSettings([]string{"-datadir=" + dir, "-conf=" + inDir}); err != nil {
		t.Errorf("own conf: %v", err)
	}
}

// conf= may not appear in a config file; reindex= there is taken with a
// warning, as bitcoind does.
func TestConfigFileOnlyKeys(t *testing.T) {
	if _, err := build(t, "conf=some.conf\n"); err == nil || err.Error() != "Error reading configuration file: conf cannot be set in the configuration file; use includeconf= if you want to include additional config files" {
		t.Errorf("conf in config: %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bitcoin.conf"), []byte("regtest=1\nreindex=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, _, _, err := loadSettings([]string{"-datadir=" + dir})
	if err != nil || len(a.warnings) != 1 || !strings.HasPrefix(a.warnings[0], "Warning: reindex=1 is set in the configuration file, which will significantly slow down startup.") {
		t.Errorf("reindex in config: %v %q", err, a.warnings)
	}
}

// -acceptstalefeeestimates is refused off regtest with bitcoind's words,
// once debug.log is open (Core's tests then read that log).
func TestAcceptStaleFeeEstimatesChain(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bitcoin.conf"), []byte("testnet4=1\nacceptstalefeeestimates=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	if code := run([]string{"-datadir=" + dir, "-printtoconsole=0"}, &stdout, &stderr); code == 0 {
		t.Fatal("started")
	}
	if got := stderr.String(); got != "Error: acceptstalefeeestimates is not supported on testnet4 chain.\n" {
		t.Errorf("stderr %q", got)
	}
	log, err := os.ReadFile(filepath.Join(dir, "testnet4", "debug.log"))
	if err != nil || !strings.Contains(string(log), "acceptstalefeeestimates is not supported on testnet4 chain.") {
		t.Errorf("debug.log: %v %q", err, log)
	}
}
