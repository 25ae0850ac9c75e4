package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/btcnode/btcd/internal/chaingen"
)

func TestRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "blocks")
	var out, errOut bytes.Buffer
	if err := run([]string{"-out", dir, "-txs", "300", "-txperblock", "150", "-keys", "16", "-sigbench"}, &out, &errOut); err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	dec := json.NewDecoder(&out)
	var s summary
	if err := dec.Decode(&s); err != nil {
		t.Fatal(err)
	}
	var r chaingen.SigBenchResult
	if err := dec.Decode(&r); err != nil {
		t.Fatal(err)
	}
	if s.Transactions != 300 || s.Blocks != 102 || len(s.Files) != 1 || len(s.Tip) != 64 {
		t.Fatalf("summary %+v", s)
	}
	if r.Signatures != s.Signatures || r.Verify1.CPUSeconds < 0 {
		t.Fatalf("sigbench %+v", r)
	}
	st, err := os.Stat(filepath.Join(dir, "blk00000.dat"))
	if err != nil || st.Size() != s.FileBytes {
		t.Fatalf("block file: %v, %d bytes, summary says %d", err, st.Size(), s.FileBytes)
	}
}

func TestRunBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-size", "huge", "-out", t.TempDir()},
		{"-txs", "10"},
		{"-nosuchflag"},
		{"-out", t.TempDir(), "extra"},
	} {
		var out, errOut bytes.Buffer
		if err := run(args, &out, &errOut); !errors.Is(err, chaingen.ErrConfig) {
			t.Errorf("%v: %v", args, err)
		}
	}
}
