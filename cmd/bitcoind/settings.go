package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// settingsWarning is the key bitcoind writes at the top of settings.json.
const settingsWarning = "_warning_"

// maxSettingsFile bounds settings.json: it holds a few options, and a
// corrupt or hostile file must not be read whole into memory.
const maxSettingsFile = 1 << 20

// settingsFile is bitcoind's settings.json: read-write settings that sit
// between the command line and bitcoin.conf in precedence. This node
// writes it only to keep the values it found (and the warning key), as
// bitcoind does at start-up.
type settingsFile struct {
	path   string
	keys   []string // in file order
	values map[string]json.RawMessage
}

// settingsPath resolves -settings (relative to the network's data
// directory); "" when -nosettings.
func settingsPath(a *args, netDir string) string {
	if a.isNegated("settings") {
		return ""
	}
	p := a.getString("settings", "settings.json")
	if p == "" {
		p = "settings.json"
	}
	p = expandHome(p)
	if !filepath.IsAbs(p) {
		p = filepath.Join(netDir, p)
	}
	return p
}

// readSettingsFile reads settings.json; a missing file is empty. Errors
// use bitcoind's wording.
func readSettingsFile(path string) (*settingsFile, error) {
	sf := &settingsFile{path: path, values: map[string]json.RawMessage{}}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return sf, nil
	}
	if err != nil {
		return nil, fmt.Errorf("Failed reading settings file %s", path)
	}
	defer f.Close()
	b := make([]byte, maxSettingsFile+1)
	n, _ := f.Read(b)
	for n < len(b) {
		m, err := f.Read(b[n:])
		n += m
		if err != nil || m == 0 {
			break
		}
	}
	if n > maxSettingsFile {
		return nil, fmt.Errorf("Settings file %s is larger than %d bytes", path, maxSettingsFile)
	}
	b = b[:n]
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, invalidSettingsJSON(path)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		var v json.RawMessage
		if json.Unmarshal(b, &v) != nil {
			return nil, invalidSettingsJSON(path)
		}
		return nil, fmt.Errorf("Found non-object value %s in settings file %s", strings.TrimSpace(string(v)), path)
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, invalidSettingsJSON(path)
		}
		key, _ := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, invalidSettingsJSON(path)
		}
		if _, dup := sf.values[key]; dup {
			return nil, fmt.Errorf("Found duplicate key %s in settings file %s", key, path)
		}
		sf.keys = append(sf.keys, key)
		sf.values[key] = raw
	}
	if _, err := dec.Token(); err != nil {
		return nil, invalidSettingsJSON(path)
	}
	if dec.More() {
		return nil, invalidSettingsJSON(path)
	}
	return sf, nil
}

func invalidSettingsJSON(path string) error {
	return fmt.Errorf("Settings file %s does not contain valid JSON. This is probably caused by disk corruption or a crash, and can be fixed by removing the file, which will reset settings to default values.", path)
}

// apply adds the file's settings for the options bitcoind knows and logs
// the rest as ignored. Values become settings as bitcoind reads them: a
// string as is, a number as its text, true as "1", false as a negation.
func (sf *settingsFile) apply(a *args) {
	for _, key := range sf.keys {
		if key == settingsWarning {
			continue
		}
		raw := sf.values[key]
		a.warnings = append(a.warnings, fmt.Sprintf("Setting file arg: %s = %s", key, compactJSON(raw)))
		o := lookupOption(key)
		if o == nil {
			a.warnings = append(a.warnings, "Ignoring unknown rw_settings value "+key)
			continue
		}
		var vals []value
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) == nil {
			for _, item := range list {
				if v, ok := settingValue(item); ok {
					vals = append(vals, v)
				}
			}
		} else if v, ok := settingValue(raw); ok {
			vals = append(vals, v)
		}
		if len(vals) > 0 {
			a.rw[key] = vals
		}
	}
}

// settingValue converts one JSON value to a setting; null is no value.
func settingValue(raw json.RawMessage) (value, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return value{Str: s}, true
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		if b {
			return value{Str: "1"}, true
		}
		return value{Negated: true}, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return value{Str: n.String()}, true
	}
	return value{}, false
}

// compactJSON prints a value as bitcoind's UniValue::write does: without
// spaces.
func compactJSON(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// write saves the file with the warning key first and the values read, in
// their order, as bitcoind rewrites settings.json at start-up.
func (sf *settingsFile) write() error {
	var b strings.Builder
	b.WriteString("{\n")
	warn, _ := json.Marshal("This file is automatically generated and updated by Bitcoin Core. Please do not edit this file while the node is running, as any changes might be ignored or overwritten.")
	entries := []string{fmt.Sprintf("    %s: %s", strconv.Quote(settingsWarning), warn)}
	for _, k := range sf.keys {
		if k == settingsWarning {
			continue
		}
		kq, _ := json.Marshal(k)
		entries = append(entries, fmt.Sprintf("    %s: %s", kq, compactJSON(sf.values[k])))
	}
	b.WriteString(strings.Join(entries, ",\n"))
	b.WriteString("\n}\n")
	tmp := sf.path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("Failed writing settings file %s", sf.path)
	}
	if err := os.Rename(tmp, sf.path); err != nil {
		return fmt.Errorf("Failed renaming settings file %s", sf.path)
	}
	return nil
}

// netDirOf is the network's data directory within datadir.
func netDirOf(datadir, chain string) string {
	return filepath.Join(datadir, chainDir[chain])
}

// loadSettingsFile reads settings.json (unless -nosettings) and adds its
// values below the command line's.
func loadSettingsFile(a *args, datadir string) error {
	path := settingsPath(a, netDirOf(datadir, a.chain))
	if path == "" {
		return nil
	}
	sf, err := readSettingsFile(path)
	if err != nil {
		return fmt.Errorf("Failed loading settings file:\n- %w", err)
	}
	sf.apply(a)
	a.settings = sf
	return nil
}

// writeSettings rewrites settings.json, once the network's data directory
// exists, as bitcoind does at start-up.
func writeSettings(a *args) error {
	if a.settings == nil {
		return nil
	}
	return a.settings.write()
}

// logArgs returns bitcoind's start-up listing of the settings given:
// "Command-line arg: name=value", "Config file arg: [section] name=value".
// Values of secret options are masked.
func logArgs(a *args) []string {
	secret := map[string]bool{"rpcpassword": true, "rpcauth": true, "rpcuser": true, "torpassword": true}
	// Values print as JSON, as bitcoind's (strings quoted, a negation
	// false).
	show := func(name string, v value) string {
		if secret[name] && !v.Negated {
			return "****"
		}
		return v.JSON()
	}
	var out []string
	for _, name := range sortedKeys(a.cmdline) {
		for _, v := range a.cmdline[name] {
			out = append(out, fmt.Sprintf("Command-line arg: %s=%s", name, show(name, v)))
		}
	}
	sections := make([]string, 0, len(a.conf))
	for sec := range a.conf {
		sections = append(sections, sec)
	}
	sort.Strings(sections)
	for _, sec := range sections {
		prefix := ""
		if sec != "" {
			prefix = "[" + sec + "] "
		}
		for _, name := range sortedKeys(a.conf[sec]) {
			for _, v := range a.conf[sec][name] {
				out = append(out, fmt.Sprintf("Config file arg: %s%s=%s", prefix, name, show(name, v)))
			}
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
