package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// modulePath is this module's import path prefix.
const modulePath = "github.com/btcnode/btcd"

// thirdParty names the outside modules as docs/architecture.md writes
// them. Loggers are left out: every subsystem logs through btclog.
var thirdParty = map[string]string{
	"github.com/syndtr/goleveldb":         "goleveldb",
	"github.com/btcsuite/btcd/btcec":      "btcec",
	"github.com/go-zeromq/zmq4":           "zmq4",
	"github.com/prometheus/client_golang": "client_golang",
	"golang.org/x/crypto":                 "x/crypto",
	"github.com/btcsuite/btclog":          "",
}

// TestArchitectureTable keeps docs/architecture.md's package table true:
// each row's imports column lists exactly the project packages and outside
// modules the package (with its subpackages that have no row of their own)
// imports, and every package outside cmd/ and internal/ has a row.
func TestArchitectureTable(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	rowRe := regexp.MustCompile("^\\| (`[^`]+`|root \\(`btcd`\\)) \\| .* \\| (.*) \\|$")
	tick := regexp.MustCompile("`([^`]+)`")
	rows := map[string]string{} // package dir -> imports cell
	for _, line := range strings.Split(string(doc), "\n") {
		m := rowRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		dir := strings.Trim(m[1], "`")
		if strings.HasPrefix(m[1], "root") {
			dir = "."
		}
		rows[dir] = m[2]
	}
	if len(rows) < 10 {
		t.Fatalf("found only %d rows in the package table", len(rows))
	}
	dirs := goDirs(t)
	owner := func(d string) string {
		best := ""
		for r := range rows {
			if r == "." || strings.HasSuffix(r, "...") {
				continue
			}
			if (d == r || strings.HasPrefix(d, r+"/")) && len(r) > len(best) {
				best = r
			}
		}
		if best == "" && d == "." {
			return "."
		}
		return best
	}
	for _, d := range dirs {
		if owner(d) == "" && !strings.HasPrefix(d, "cmd/") && !strings.HasPrefix(d, "internal/") {
			t.Errorf("package %s has no row in docs/architecture.md", d)
		}
	}
	for row, cell := range rows {
		if strings.HasSuffix(row, "...") || strings.Contains(cell, "everything") {
			continue
		}
		got := map[string]bool{}
		for _, d := range dirs {
			if owner(d) != row {
				continue
			}
			for _, imp := range dirImports(t, d) {
				switch {
				case strings.HasPrefix(imp, modulePath+"/"):
					p := strings.TrimPrefix(imp, modulePath+"/")
					if owner(p) != row {
						got[p] = true
					}
				case strings.Contains(strings.SplitN(imp, "/", 2)[0], "."):
					name := imp
					for prefix, short := range thirdParty {
						if strings.HasPrefix(imp, prefix) {
							name = short
						}
					}
					if name != "" {
						got[name] = true
					}
				}
			}
		}
		want := map[string]bool{}
		rest := cell
		for _, m := range tick.FindAllStringSubmatch(cell, -1) {
			want[m[1]] = true
			rest = strings.Replace(rest, m[0], "", 1)
		}
		for _, w := range strings.Split(rest, ",") {
			if w = strings.TrimSpace(w); w != "" && w != "std only" {
				want[w] = true
			}
		}
		if g, w := keys(got), keys(want); g != w {
			t.Errorf("%s imports %s; the table says %s", row, g, w)
		}
	}
}

func keys(m map[string]bool) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "(std only)"
	}
	return strings.Join(out, ", ")
}

// goDirs lists the directories holding non-test Go files.
func goDirs(t *testing.T) []string {
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != "." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			seen[filepath.ToSlash(filepath.Dir(p))] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// dirImports returns the imports of the non-test Go files in dir.
func dirImports(t *testing.T, dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			out = append(out, strings.Trim(imp.Path.Value, `"`))
		}
	}
	return out
}
