package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestSettingsFile: settings.json's values apply below the command line,
// unknown keys are logged, and the file is rewritten with the warning key.
func TestSettingsFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "regtest", "settings.json")
	writeFile(t, path, `{"string": "string", "dbcache": 100, "txindex": true, "list": [6, 7]}`)
	a, _, _, err := loadSettings([]string{"-datadir=" + dir, "-regtest"})
	if err != nil {
		t.Fatal(err)
	}
	if a.getInt("dbcache", 0) != 100 || !a.getBool("txindex", false) {
		t.Errorf("settings.json values not applied: dbcache %d txindex %v", a.getInt("dbcache", 0), a.getBool("txindex", false))
	}
	for _, w := range []string{"Ignoring unknown rw_settings value string", "Ignoring unknown rw_settings value list",
		`Setting file arg: string = "string"`, "Setting file arg: list = [6,7]"} {
		if !contains(a.warnings, w) {
			t.Errorf("log lacks %q: %q", w, a.warnings)
		}
	}
	b, _, _, err := loadSettings([]string{"-datadir=" + dir, "-regtest", "-dbcache=300"})
	if err != nil || b.getInt("dbcache", 0) != 300 {
		t.Errorf("command line should beat settings.json: %v %d", err, b.getInt("dbcache", 0))
	}
	if err := writeSettings(a); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	raw, _ := os.ReadFile(path)
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("rewritten file: %v\n%s", err, raw)
	}
	if _, ok := got["_warning_"]; !ok || got["string"] != "string" || len(got) != 5 {
		t.Errorf("rewritten settings %v", got)
	}
}

func TestSettingsFileErrors(t *testing.T) {
	for text, want := range map[string]string{
		"invalid json":         "does not contain valid JSON. This is probably caused by disk corruption or a crash",
		`"string"`:             `Found non-object value "string" in settings file`,
		`{"key": 1, "key": 2}`: "Found duplicate key key in settings file",
		`{"key": 1} trailing`:  "does not contain valid JSON",
	} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "regtest", "settings.json"), text)
		_, _, _, err := loadSettings([]string{"-datadir=" + dir, "-regtest"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
		if _, _, _, err := loadSettings([]string{"-datadir=" + dir, "-regtest", "-nosettings"}); err != nil {
			t.Errorf("-nosettings still reads %q: %v", text, err)
		}
	}
}

func TestLogArgs(t *testing.T) {
	a := parse(t, "-regtest", "-rpcpassword=secret", "-nosettings")
	if err := readConf(t, a, "[regtest]\nport=1\n"); err != nil {
		t.Fatal(err)
	}
	lines := logArgs(a)
	for _, w := range []string{`Command-line arg: regtest=""`, "Command-line arg: rpcpassword=****", "Command-line arg: settings=false", `Config file arg: [regtest] port="1"`} {
		if !contains(lines, w) {
			t.Errorf("logArgs lacks %q: %q", w, lines)
		}
	}
}
