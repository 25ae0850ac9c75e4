package main

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

func TestParseFlags(t *testing.T) {
	o, err := parseFlags([]string{"-size", "medium", "-mode", "loadblock", "-assumevalid", "tip"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.chainDir != "/tmp/cg-medium" || o.mode != "loadblock" || o.assumeValid != "tip" {
		t.Fatalf("unexpected options %+v", o)
	}
	for _, bad := range [][]string{{"-size", "huge"}, {"-mode", "rpc"}, {"-assumevalid", "x"}, {"-utxocache", "-1"}} {
		if _, err := parseFlags(bad, io.Discard); !errors.Is(err, ErrConfig) {
			t.Errorf("%v: got %v, want ErrConfig", bad, err)
		}
	}
}

func TestProcReaders(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if _, err := procCPUSeconds(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	hwm, err := procHWM(os.Getpid())
	if err != nil || hwm == 0 {
		t.Fatalf("VmHWM %d, %v", hwm, err)
	}
}

func TestScanChainRejectsGarbage(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/blk00000.dat", []byte("not a block file at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := blockFiles(dir)
	if err != nil || len(files) != 1 {
		t.Fatalf("blockFiles: %v %v", files, err)
	}
	if _, err := scanChain(files); !errors.Is(err, ErrBlockFile) {
		t.Fatalf("got %v, want ErrBlockFile", err)
	}
}

func TestNodeFlagsAndEnv(t *testing.T) {
	o, err := parseFlags([]string{"-nodeflag=--gogc=50", "-nodeflag", "--memlimit=300", "-nodeenv=GOGC=off"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.nodeFlags) != 2 || o.nodeFlags[1] != "--memlimit=300" || len(o.nodeEnv) != 1 {
		t.Fatalf("nodeFlags %q nodeEnv %q", o.nodeFlags, o.nodeEnv)
	}
	if _, err := parseFlags([]string{"-nodeenv=GOGC"}, io.Discard); !errors.Is(err, ErrConfig) {
		t.Fatalf("-nodeenv without '=': got %v, want ErrConfig", err)
	}
}

func TestParseGCMetrics(t *testing.T) {
	page := `# HELP btcd_gc_cpu_fraction x
# TYPE btcd_gc_cpu_fraction gauge
btcd_gc_cpu_fraction 0.0125
go_cpu_classes_gc_total_cpu_seconds_total 1.5
go_gc_cycles_total_gc_cycles_total 42
go_sched_pauses_total_gc_seconds_bucket{le="1e-05"} 3
go_sched_pauses_total_gc_seconds_sum 0.004
go_gc_pauses_seconds_sum 9
`
	s, err := parseGCMetrics(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if s.fraction != 0.0125 || s.cpuSeconds != 1.5 || s.cycles != 42 || s.pauseSeconds != 0.004 {
		t.Fatalf("got %+v", s)
	}
	if _, err := parseGCMetrics(strings.NewReader("go_gc_cycles_total_gc_cycles_total 1\n")); !errors.Is(err, ErrMetrics) {
		t.Fatalf("partial page: got %v, want ErrMetrics", err)
	}
}
