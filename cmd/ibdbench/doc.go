// Command ibdbench measures initial block download of a synthetic signed
// regtest chain by our btcd daemon, end to end, as separate processes.
//
// It builds btcd from the repository (or takes -btcd), generates the chain
// with cmd/chaingen (fixed seed; reused when -chaindir already holds
// blk00000.dat), and then:
//
//   - -mode p2p (default): starts a serving node that imports the chain
//     with --loadblock (assumevalid at the tip, so it is quick) and waits
//     until its tip is the chain's tip; then starts a fresh node with
//     --connect to the server over loopback and times it until its tip is
//     the chain's tip.
//   - -mode loadblock: the fresh node imports the block files itself with
//     --loadblock, no networking.
//
// Heights are read with the getblockcount RPC (cookie auth from the node's
// data directory) every 50 ms, and every 10 ms for the last 5% of the
// blocks (50 ms alone quantised the 1.3 s runs by 4%; polling fast all
// along added the calls' own allocations). Just before the measured node is stopped
// with SIGINT, ibdbench reads its peak RSS (VmHWM in /proc/PID/status),
// its CPU time, the kernel's part of it (sys_cpu_s) and its minor page
// faults (minor_faults; all from /proc/PID/stat, taken at the tip) and the
// runtime's exact allocation totals
// (TotalAlloc and Mallocs at the end of /debug/pprof/allocs?debug=1 from
// the node's --profile server). The node also writes --memprofile, whose
// top allocation sites -top prints to stderr. Every node also serves
// --metrics; the collector totals are scraped from it at the same moment:
// gc_cpu_fraction (btcd_gc_cpu_fraction, GC CPU over GOMAXPROCS x wall,
// refreshed by the runtime only at each GC, so unreliable with few cycles),
// gc_cpu_s (/cpu/classes/gc/total:cpu-seconds), gc_share_of_cpu (gc_cpu_s
// over the CPU the process actually used: the number to compare runs by),
// num_gc and gc_pause_total_s (sum of the bucketed GC pause histogram, an
// estimate).
//
// The result is one JSON line: blocks, transactions (without coinbases),
// inputs, wall and CPU seconds to the tip, tx/s, inputs/s, peak RSS,
// bytes and objects allocated in all and per transaction, the UTXO cache
// budget, and, unless -sigbench=false, the chain's signature verification
// lower bound (chaingen -sigbench, run once per chain and kept in the
// chain directory as sigbench.json) with the IBD's wall and CPU time as a
// multiple of it. Since the measured wall time of the bound depends on the
// machine's load when it was taken, ideal_bound_s (the one-core CPU time of
// sighash+verify divided by the cores) and wall_vs_ideal are given too.
// The bound uses btcec's verifier; since txscript's own is faster, the
// same bound with it is given as ideal_own_bound_s and wall_vs_ideal_own
// (delete sigbench.json to measure it for an older chain directory).
// -trace D records a Go execution trace of the node's first D.
//
// For syncs at scale (-size mainnet-scale, whose UTXO set outgrows the
// cache) the line also holds: utxos, the chain's UTXO set at the tip;
// tenths, the sync cut into ten parts of equal transaction counts (the
// first starting when the node reaches the last coinbase-only block, so
// without start-up and header download), each with its heights, seconds,
// tx/s, the highest VmRSS seen, the storage bytes the process read and
// wrote (/proc/PID/io read_bytes and write_bytes; reads the page cache
// serves are not counted), the CPU seconds the process used and that
// over the tenth's seconds (cores: near the machine's core count, the
// tenth was bound by CPU), the chainstate's compaction seconds and the
// UTXO cache's misses (from the node's metrics, fetched every 250 ms) and
// the longest time the height stood still;
// first_over_last_tenth_tx_per_s; longest_stall_s and the height that
// ended it (from the height polls, so up to a poll interval long); the
// process's read_mib/write_mib and rchar_mib/wchar_mib (all reads and
// writes, page cache included) to the tip; and store, from the node's
// metrics at the tip: the chainstate LevelDB's own read and written bytes,
// compaction and write-delay seconds, the UTXO cache's hits, misses,
// evictions, flushes and flush seconds, the blocks whose validation took
// over a second and the histogram bucket of the slowest, plus the cache's
// longest flush lock hold from the node's closing log line.
//
// Usage (from the repository root):
//
//	go run ./cmd/ibdbench [flags]
//
// Flags:
//
//	-size small|medium|large|mainnet-scale  chain to use (default small;
//	                          mainnet-scale has no signatures, so -sigbench is off for it)
//	-chaindir DIR             where the chain's block files are (default /tmp/cg-SIZE)
//	-mode p2p|loadblock       how the measured node gets the blocks (default p2p)
//	-assumevalid tip|none     skip scripts up to the tip, or check all (default none)
//	-utxocache MiB            --utxocachemaxsize of the measured node (0: daemon default)
//	-par N                    --par of the measured node (0: all cores)
//	-btcd PATH                daemon binary (default: go build the repository into -workdir)
//	-repo DIR                 repository root to build btcd and chaingen from (default .)
//	-workdir DIR              data, logs and profiles (default a new temporary directory)
//	-server ADDR              -mode p2p: sync from this running node, which must already hold
//	                          the chain and its tail (e.g. the server of an earlier -keep run,
//	                          restarted on its data directory), instead of importing it anew
//	-keep                     keep -workdir afterwards
//	-timeout D                limit for each phase (default 30m)
//	-sigbench                 measure (or reuse) the signature lower bound (default true)
//	-cpuprofile               also write the measured node's CPU profile to -workdir
//	-top N                    print the N top allocation sites (alloc_space) to stderr (default 0)
//	-nodeflag F               extra daemon flag for the measured node, repeatable
//	                          (e.g. -nodeflag=--gogc=50 -nodeflag=--memlimit=600)
//	-nodeenv K=V              extra environment for the measured node, repeatable
//	                          (e.g. -nodeenv=GOGC=off, which --gogc cannot express)
//	-tail N                   coinbase-only blocks appended after the chain (default 2100 with
//	                          -assumevalid tip, else 0; see below)
//
// Assume-valid only skips the scripts of blocks more than two weeks of
// equivalent work (2,016 regtest blocks) below the best header, as in
// Core; the generated chains are far shorter, so -assumevalid tip appends
// -tail coinbase-only blocks (in a file in -workdir, mined at regtest
// difficulty) and assumes the new tip valid. Times, CPU and allocations
// are taken when the node reaches the last signed block; tail_s is the
// extra time to the new tip. Only headers-first sync (-mode p2p) learns
// the best header before connecting blocks: with -mode loadblock every
// block is the best header when it is connected, so scripts are checked
// whatever -assumevalid says (Core's -loadblock behaves the same way).
//
// Examples:
//
//	go run ./cmd/ibdbench -size small
//	go run ./cmd/ibdbench -size medium -mode loadblock -assumevalid tip
//	go run ./cmd/ibdbench -size medium -utxocache 10 -top 15
//	go run ./cmd/ibdbench -size medium -mode loadblock -sigbench=false -nodeflag=--gogc=200
//	go run ./cmd/ibdbench -size mainnet-scale -assumevalid tip -utxocache 100 -timeout 60m
package main
