package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/internal/chaingen"
	"github.com/btcnode/btcd/wire"
)

// summary is the JSON line printed after generation.
type summary struct {
	chaingen.Stats
	Seed       uint64   `json:"seed"`
	TxPerBlock int      `json:"txperblock"`
	Workers    int      `json:"workers"`
	Files      []string `json:"files,omitempty"`
	FileBytes  int64    `json:"file_bytes"`
	Seconds    float64  `json:"seconds"`
	CPUSeconds float64  `json:"cpu_seconds,omitempty"`
	GoMaxProcs int      `json:"gomaxprocs"`
	GoVersion  string   `json:"go"`
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "chaingen:", err)
		if errors.Is(err, chaingen.ErrConfig) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("chaingen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "directory for blk?????.dat files (must not hold block files yet)")
	size := fs.String("size", "small", "preset size: small (20k txs), medium (200k), large (1M) or mainnet-scale (5M unsigned)")
	txs := fs.Int("txs", 0, "number of non-coinbase transactions (overrides -size)")
	perBlock := fs.Int("txperblock", chaingen.DefaultTxPerBlock, "transactions per full block")
	seed := fs.Uint64("seed", 1, "seed for keys and every random choice")
	workers := fs.Int("workers", 0, "signing goroutines (default GOMAXPROCS)")
	keys := fs.Int("keys", chaingen.DefaultKeys, "size of the key pool")
	maxFile := fs.Int64("maxfilesize", chaingen.DefaultMaxFileSize, "close a block file before it exceeds this many bytes")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	sigbench := fs.Bool("sigbench", false, "after generating (in memory), measure plain btcec signature verification on 1 core and all cores")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", chaingen.ErrConfig, err)
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("%w: unexpected argument %q", chaingen.ErrConfig, fs.Arg(0))
	}
	cfg, err := chaingen.ConfigForSize(*size)
	if err != nil {
		return err
	}
	if *txs != 0 {
		cfg.Txs = *txs
	}
	// A size's own block size holds unless -txperblock is given.
	explicit := false
	fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "txperblock" })
	if explicit || cfg.TxPerBlock == 0 {
		cfg.TxPerBlock = *perBlock
	}
	if *sigbench && cfg.Profile.Unsigned() {
		return fmt.Errorf("%w: -size %s has no signatures to benchmark", chaingen.ErrConfig, *size)
	}
	if *out == "" && !*sigbench {
		return fmt.Errorf("%w: -out is required (or -sigbench)", chaingen.ErrConfig)
	}
	params := &chaincfg.RegressionNetParams
	cfg.Seed, cfg.Workers, cfg.Keys, cfg.Params = *seed, *workers, *keys, params

	var fw *chaingen.FileWriter
	if *out != "" {
		var err error
		if fw, err = chaingen.NewFileWriter(*out, *maxFile, params.Net); err != nil {
			return err
		}
	}
	var col *chaingen.Collector
	if *sigbench {
		col = chaingen.NewCollector()
	}
	sink := func(h int32, b *wire.MsgBlock, raw []byte) error {
		if fw != nil {
			if err := fw.WriteBlock(raw); err != nil {
				return err
			}
		}
		if col != nil {
			return col.Add(h, b, raw)
		}
		return nil
	}

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	cpu0 := chaingen.CPUSeconds()
	start := time.Now()
	st, err := chaingen.Generate(cfg, sink)
	if err == nil && fw != nil {
		err = fw.Close()
	}
	if err != nil {
		return err
	}
	s := summary{
		Stats:      st,
		Seed:       *seed,
		TxPerBlock: cfg.TxPerBlock,
		Workers:    *workers,
		Seconds:    time.Since(start).Seconds(),
		CPUSeconds: chaingen.CPUSeconds() - cpu0,
		GoMaxProcs: runtime.GOMAXPROCS(0),
		GoVersion:  runtime.Version(),
	}
	if s.Workers == 0 {
		s.Workers = s.GoMaxProcs
	}
	if fw != nil {
		s.Files, s.FileBytes = fw.Files, fw.Bytes
	}
	enc := json.NewEncoder(stdout)
	if err := enc.Encode(s); err != nil {
		return err
	}
	if col != nil {
		r, err := chaingen.SigBench(col.Txs, *workers)
		if err != nil {
			return err
		}
		return enc.Encode(r)
	}
	return nil
}
