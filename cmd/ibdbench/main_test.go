package main

import (
	"errors"
	"io"
	"os"
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
