package node

import (
	"bufio"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// configOptions walks the go-flags struct tags of config (through the
// embedded option groups) and returns every long option name with whether
// it may appear in a config file.
func configOptions(t reflect.Type) map[string]bool {
	opts := make(map[string]bool)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Tag.Get("group") != "" && f.Type.Kind() == reflect.Struct {
			for k, v := range configOptions(f.Type) {
				opts[k] = v
			}
			continue
		}
		if long := f.Tag.Get("long"); long != "" {
			opts[long] = f.Tag.Get("no-ini") == ""
		}
	}
	return opts
}

func TestSampleConfDocumentsEveryOption(t *testing.T) {
	b, err := os.ReadFile("../../sample.conf")
	if err != nil {
		t.Fatal(err)
	}
	sample := string(b)
	opts := configOptions(reflect.TypeOf(Config{}))
	if len(opts) < 45 {
		t.Fatalf("found only %d options; reflection walk broken?", len(opts))
	}
	for long, ini := range opts {
		if ini {
			if !regexp.MustCompile(`(?m)^; ` + regexp.QuoteMeta(long) + `=`).MatchString(sample) {
				t.Errorf("sample.conf lacks a commented-out %q line", "; "+long+"=")
			}
		} else if !strings.Contains(sample, "--"+long) {
			t.Errorf("sample.conf does not mention command-line-only --%s", long)
		}
	}
}

// TestSampleConfParses checks that the sample loads as is and that every
// example line in it, uncommented on its own, is a valid configuration.
func TestSampleConfParses(t *testing.T) {
	if _, err := loadConfig([]string{"--configfile=../../sample.conf", "--appdata=" + t.TempDir()}); err != nil {
		t.Fatalf("sample.conf as shipped: %v", err)
	}
	f, err := os.Open("../../sample.conf")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	example := regexp.MustCompile(`^; ([a-z0-9]+)=(.*)$`)
	opts := configOptions(reflect.TypeOf(Config{}))
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		m := example.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		key := m[1]
		if _, ok := opts[key]; !ok {
			t.Errorf("sample.conf documents unknown option %q", key)
			continue
		}
		lines := []string{key + "=" + m[2]}
		switch key {
		case "loadblock":
			continue // names a file that does not exist here
		case "testactivationheight", "vbparams", "test":
			lines = append(lines, "regtest=1")
		}
		conf := writeConf(t, lines...)
		if _, err := loadConfig([]string{"--configfile=" + conf, "--appdata=" + t.TempDir()}); err != nil {
			t.Errorf("sample line %q: %v", lines[0], err)
		}
		n++
	}
	if n < 40 {
		t.Errorf("only %d example lines checked", n)
	}
}
