package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrConfig reports bad flags.
var ErrConfig = errors.New("ibdbench: bad configuration")

// ErrTimeout reports a phase that did not finish within -timeout.
var ErrTimeout = errors.New("ibdbench: timed out")

// options are the parsed flags.
type options struct {
	size, chainDir, mode, assumeValid string
	utxoCache, par, top, tail         int
	btcd, repo, workDir               string
	// server is the P2P address of a node that already holds the chain
	// (and its tail), used instead of starting one in -mode p2p.
	server                     string
	keep, sigbench, cpuProfile bool
	timeout, trace             time.Duration
	// nodeFlags and nodeEnv go to the measured node only (not the p2p
	// server), e.g. -nodeflag=--gogc=50 -nodeenv=GOGC=off.
	nodeFlags, nodeEnv listFlag
}

// result is the JSON line printed at the end.
type result struct {
	Size         string  `json:"size"`
	Mode         string  `json:"mode"`
	AssumeValid  string  `json:"assumevalid"`
	Par          int     `json:"par"`
	UtxoCacheMiB int     `json:"utxocache_mib"`
	Blocks       int     `json:"blocks"`
	Transactions int     `json:"transactions"`
	Inputs       int     `json:"inputs"`
	WallSeconds  float64 `json:"wall_s"`
	CPUSeconds   float64 `json:"cpu_s"`
	// The kernel's share of it, and the page faults behind most of that
	// (each first touch of a 4 KiB page costs ~11 us on the reference VM).
	SysCPUSeconds float64         `json:"sys_cpu_s"`
	MinorFaults   uint64          `json:"minor_faults"`
	TxPerSec      float64         `json:"tx_per_s"`
	InputsPerSec  float64         `json:"inputs_per_s"`
	PeakRSSMiB    float64         `json:"peak_rss_mib"`
	AllocBytes    uint64          `json:"alloc_bytes"`
	AllocObjects  uint64          `json:"alloc_objects"`
	BytesPerTx    float64         `json:"alloc_bytes_per_tx"`
	ObjectsPerTx  float64         `json:"alloc_objects_per_tx"`
	SigBound      json.RawMessage `json:"sig_lower_bound,omitempty"`
	WallVsBound   float64         `json:"wall_vs_bound,omitempty"`
	CPUVsBound    float64         `json:"cpu_vs_bound,omitempty"`
	IdealBound    float64         `json:"ideal_bound_s,omitempty"`
	WallVsIdeal   float64         `json:"wall_vs_ideal,omitempty"`
	// The same against the bound with the node's own verifier.
	IdealOwnBound  float64  `json:"ideal_own_bound_s,omitempty"`
	WallVsIdealOwn float64  `json:"wall_vs_ideal_own,omitempty"`
	ShutdownCPU    float64  `json:"cpu_s_with_shutdown"`
	LoadAverage    string   `json:"loadavg"`
	ServerSeconds  float64  `json:"server_import_s,omitempty"`
	TailBlocks     int      `json:"tail_blocks,omitempty"`
	TailSeconds    float64  `json:"tail_s,omitempty"`
	WorkDir        string   `json:"workdir,omitempty"`
	ChainTip       string   `json:"tip"`
	MemProfilePath string   `json:"memprofile,omitempty"`
	TipProfilePath string   `json:"tip_allocs_profile,omitempty"`
	NodeFlags      []string `json:"nodeflags,omitempty"`
	NodeEnv        []string `json:"nodeenv,omitempty"`
	GCCPUFraction  float64  `json:"gc_cpu_fraction"`
	GCCPUSeconds   float64  `json:"gc_cpu_s"`
	GCShareOfCPU   float64  `json:"gc_share_of_cpu"`
	NumGC          uint64   `json:"num_gc"`
	GCPauseTotal   float64  `json:"gc_pause_total_s"`
	// The sync at scale: the UTXO set at the tip, each tenth of the
	// transactions, the longest stall of the height, the node's storage
	// I/O (/proc/PID/io) to the tip, and the UTXO cache and chainstate
	// figures.
	Utxos              int         `json:"utxos"`
	Tenths             []tenth     `json:"tenths,omitempty"`
	LastVsFirstTenth   float64     `json:"first_over_last_tenth_tx_per_s,omitempty"`
	LongestStallS      float64     `json:"longest_stall_s"`
	LongestStallHeight int64       `json:"longest_stall_height"`
	ReadMiB            float64     `json:"read_mib"`
	WriteMiB           float64     `json:"write_mib"`
	RcharMiB           float64     `json:"rchar_mib"`
	WcharMiB           float64     `json:"wchar_mib"`
	Store              *storeStats `json:"store,omitempty"`
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "ibdbench:", err)
		if errors.Is(err, ErrConfig) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("ibdbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	fs.StringVar(&o.size, "size", "small", "chain size: small, medium, large or mainnet-scale")
	fs.StringVar(&o.chainDir, "chaindir", "", "directory of the chain's block files (default /tmp/cg-SIZE)")
	fs.StringVar(&o.mode, "mode", "p2p", "p2p or loadblock")
	fs.StringVar(&o.assumeValid, "assumevalid", "none", "tip or none")
	fs.IntVar(&o.utxoCache, "utxocache", 0, "--utxocachemaxsize in MiB (0: daemon default)")
	fs.IntVar(&o.par, "par", 0, "--par of the measured node (0: all cores)")
	fs.StringVar(&o.btcd, "btcd", "", "btcd binary (default: build it)")
	fs.StringVar(&o.repo, "repo", ".", "repository root")
	fs.StringVar(&o.workDir, "workdir", "", "working directory (default: temporary)")
	fs.StringVar(&o.server, "server", "", "-mode p2p: sync from this running node (which must hold the chain and its tail) instead of starting one")
	fs.BoolVar(&o.keep, "keep", false, "keep the working directory")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Minute, "limit for each phase")
	fs.BoolVar(&o.sigbench, "sigbench", true, "measure or reuse the signature lower bound")
	fs.BoolVar(&o.cpuProfile, "cpuprofile", false, "write the measured node's CPU profile")
	fs.DurationVar(&o.trace, "trace", 0, "record this long a Go execution trace of the measured node from its start (workdir/node.trace)")
	fs.IntVar(&o.top, "top", 0, "print the N top allocation sites to stderr")
	fs.IntVar(&o.tail, "tail", -1, "coinbase-only blocks appended after the chain (-1: 2100 with -assumevalid tip, else 0)")
	fs.Var(&o.nodeFlags, "nodeflag", "extra daemon flag for the measured node (repeatable), e.g. --gogc=50")
	fs.Var(&o.nodeEnv, "nodeenv", "extra KEY=VALUE environment for the measured node (repeatable), e.g. GOGC=off")
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	switch {
	case o.size != "small" && o.size != "medium" && o.size != "large" && o.size != "mainnet-scale":
		return nil, fmt.Errorf("%w: -size %q", ErrConfig, o.size)
	case o.mode != "p2p" && o.mode != "loadblock":
		return nil, fmt.Errorf("%w: -mode %q", ErrConfig, o.mode)
	case o.assumeValid != "tip" && o.assumeValid != "none":
		return nil, fmt.Errorf("%w: -assumevalid %q", ErrConfig, o.assumeValid)
	case o.utxoCache < 0 || o.par < 0 || o.timeout <= 0:
		return nil, fmt.Errorf("%w: negative -utxocache, -par or -timeout", ErrConfig)
	}
	for _, e := range o.nodeEnv {
		if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
			return nil, fmt.Errorf("%w: -nodeenv %q is not KEY=VALUE", ErrConfig, e)
		}
	}
	if o.tail < 0 {
		o.tail = 0
		if o.assumeValid == "tip" {
			o.tail = 2100
		}
	}
	if o.chainDir == "" {
		o.chainDir = "/tmp/cg-" + o.size
	}
	if o.size == "mainnet-scale" {
		o.sigbench = false // no signatures in that chain
	}
	return o, nil
}

func run(args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if o.workDir == "" {
		if o.workDir, err = os.MkdirTemp("", "ibdbench-"); err != nil {
			return err
		}
		if !o.keep {
			defer os.RemoveAll(o.workDir)
		}
	} else if err := os.MkdirAll(o.workDir, 0o755); err != nil {
		return err
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "ibdbench: "+format+"\n", a...) }

	if o.btcd == "" {
		o.btcd = filepath.Join(o.workDir, "btcd")
		logf("building %s", o.btcd)
		if err := goBuild(o.repo, o.btcd, ".", stderr); err != nil {
			return err
		}
	}
	chaingen := ""
	needChaingen := func() (string, error) {
		if chaingen == "" {
			chaingen = filepath.Join(o.workDir, "chaingen")
			if err := goBuild(o.repo, chaingen, "./cmd/chaingen", stderr); err != nil {
				return "", err
			}
		}
		return chaingen, nil
	}
	files, err := blockFiles(o.chainDir)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		cg, err := needChaingen()
		if err != nil {
			return err
		}
		logf("generating the %s chain into %s", o.size, o.chainDir)
		if err := os.MkdirAll(o.chainDir, 0o755); err != nil {
			return err
		}
		cmd := exec.Command(cg, "-out", o.chainDir, "-size", o.size)
		cmd.Stdout, cmd.Stderr = stderr, stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("chaingen: %w", err)
		}
		if files, err = blockFiles(o.chainDir); err != nil {
			return err
		}
	}
	ch, err := scanChain(files)
	if err != nil {
		return err
	}
	logf("chain: %d blocks, %d transactions, %d inputs, tip %s", ch.blocks, ch.txs, ch.inputs, ch.tip)

	res := &result{Size: o.size, Mode: o.mode, AssumeValid: o.assumeValid, Par: o.par,
		UtxoCacheMiB: o.utxoCache, Blocks: ch.blocks, Transactions: ch.txs, Inputs: ch.inputs,
		ChainTip: ch.tip, NodeFlags: o.nodeFlags, NodeEnv: o.nodeEnv, Utxos: ch.utxos}
	if o.keep {
		res.WorkDir = o.workDir
	}

	var bound *sigBound
	if o.sigbench {
		if bound, err = loadSigBound(o, needChaingen, logf); err != nil {
			return err
		}
		res.SigBound = bound.raw
	}

	finalTip, finalHeight := ch.tip, int64(ch.blocks)
	if o.tail > 0 {
		tailFile := filepath.Join(o.workDir, "tail.dat")
		h, err := writeTail(tailFile, &ch.last, ch.blocks, o.tail)
		if err != nil {
			return err
		}
		files = append(files, tailFile)
		finalTip, finalHeight = h.String(), finalHeight+int64(o.tail)
		res.TailBlocks = o.tail
		logf("appended %d coinbase-only blocks; tip %s", o.tail, finalTip)
	}
	loadFlags := make([]string, len(files))
	for i, f := range files {
		loadFlags[i] = "--loadblock=" + f
	}
	// --nolisten: the regtest default port would make two loadblock runs
	// (or one beside a running node) collide.
	measuredExtra := append([]string{"--nolisten"}, loadFlags...)
	if o.mode == "p2p" && o.server != "" {
		measuredExtra = []string{"--nolisten", "--connect=" + o.server}
	} else if o.mode == "p2p" {
		srv, err := startNode(o, "server", append([]string{"--assumevalid=" + finalTip}, loadFlags...), true)
		if err != nil {
			return err
		}
		defer srv.kill()
		logf("server importing the chain (pid %d)", srv.cmd.Process.Pid)
		start := time.Now()
		if err := srv.waitHeight(finalHeight, o.timeout); err != nil {
			return fmt.Errorf("server: %w", err)
		}
		res.ServerSeconds = round(time.Since(start).Seconds(), 3)
		logf("server at the tip after %.1f s", res.ServerSeconds)
		// The import ends with a chainstate flush under the chain lock;
		// a node started before it ends waits that long for its first
		// headers (1.2 s on the medium chain), which is not sync time.
		if err := srv.waitImportFlushed(o.timeout); err != nil {
			return fmt.Errorf("server: %w", err)
		}
		measuredExtra = []string{"--nolisten", "--connect=" + srv.p2pAddr}
	}
	av := "0"
	if o.assumeValid == "tip" {
		av = finalTip
	}
	extra := append([]string{"--assumevalid=" + av}, measuredExtra...)
	if o.utxoCache > 0 {
		extra = append(extra, "--utxocachemaxsize="+strconv.Itoa(o.utxoCache))
	}
	if o.par > 0 {
		extra = append(extra, "--par="+strconv.Itoa(o.par))
	}
	memProf := filepath.Join(o.workDir, "node-mem.prof")
	extra = append(extra, "--memprofile="+memProf)
	if o.cpuProfile {
		extra = append(extra, "--cpuprofile="+filepath.Join(o.workDir, "node-cpu.prof"))
	}
	extra = append(extra, o.nodeFlags...)
	start := time.Now()
	node, err := startNode(o, "node", extra, false)
	if err != nil {
		return err
	}
	defer node.kill()
	logf("measured node started (pid %d)", node.cmd.Process.Pid)
	prog := &progress{pid: node.cmd.Process.Pid, start: start}
	if o.size == "mainnet-scale" {
		// Per-tenth compaction and misses; the small chains' runs are
		// too short for the fetches not to weigh on them.
		prog.metrics = node.storeMetrics
	}
	node.onPoll = prog.record
	if o.trace > 0 {
		go node.recordTrace(filepath.Join(o.workDir, "node.trace"), o.trace, logf)
	}
	if err := node.waitHeight(int64(ch.blocks), o.timeout); err != nil {
		return fmt.Errorf("measured node: %w", err)
	}
	res.WallSeconds = round(time.Since(start).Seconds(), 3)
	pid := node.cmd.Process.Pid
	st, err := readProcStat(pid)
	if err != nil {
		return err
	}
	res.CPUSeconds, res.SysCPUSeconds, res.MinorFaults = st.user+st.sys, round(st.sys, 2), st.minorFaults
	if err := res.scale(node, prog, ch.cumTxs); err != nil {
		return err
	}
	if res.AllocBytes, res.AllocObjects, err = node.allocTotals(); err != nil {
		return err
	}
	// The allocation profile as of the tip: --memprofile is written at
	// shutdown and so also holds the final UTXO flush.
	tipProf := filepath.Join(o.workDir, "node-allocs-tip.prof")
	if err := node.saveAllocProfile(tipProf); err != nil {
		logf("allocation profile at the tip: %v", err)
		tipProf = ""
	}
	if o.tail > 0 {
		if err := node.waitHeight(finalHeight, o.timeout); err != nil {
			return fmt.Errorf("measured node: %w", err)
		}
		res.TailSeconds = round(time.Since(start).Seconds()-res.WallSeconds, 3)
	}
	hwm, err := procHWM(pid)
	if err != nil {
		return err
	}
	res.PeakRSSMiB = round(float64(hwm)/1024, 1)
	res.LoadAverage = loadAvg()
	gc, err := node.gcMetrics()
	if err != nil {
		return err
	}
	res.GCCPUFraction = round(gc.fraction, 4)
	res.GCCPUSeconds = round(gc.cpuSeconds, 3)
	res.NumGC = gc.cycles
	res.GCPauseTotal = round(gc.pauseSeconds, 4)
	if cpu, _ := procCPUSeconds(pid); cpu > 0 {
		res.GCShareOfCPU = round(gc.cpuSeconds/cpu, 4)
	}
	usage, err := node.stop(o.timeout)
	if err != nil {
		return err
	}
	res.ShutdownCPU = round(usage, 3)
	res.Store.LongestLockPauseS = node.longestLockPause()
	res.CPUSeconds = round(res.CPUSeconds, 3)
	res.TxPerSec = round(float64(ch.txs)/res.WallSeconds, 1)
	res.InputsPerSec = round(float64(ch.inputs)/res.WallSeconds, 1)
	if ch.txs > 0 {
		res.BytesPerTx = round(float64(res.AllocBytes)/float64(ch.txs), 1)
		res.ObjectsPerTx = round(float64(res.AllocObjects)/float64(ch.txs), 2)
	}
	if bound != nil && bound.wall > 0 {
		res.WallVsBound = round(res.WallSeconds/bound.wall, 2)
		res.CPUVsBound = round(res.CPUSeconds/bound.cpu, 2)
	}
	if bound != nil && bound.ideal > 0 {
		res.IdealBound = round(bound.ideal, 3)
		res.WallVsIdeal = round(res.WallSeconds/bound.ideal, 2)
		if bound.idealOwn > 0 {
			res.IdealOwnBound = round(bound.idealOwn, 3)
			res.WallVsIdealOwn = round(res.WallSeconds/bound.idealOwn, 2)
		}
	}
	if o.keep {
		res.MemProfilePath = memProf
	}
	if o.keep && tipProf != "" {
		res.TipProfilePath = tipProf
	}
	if o.top > 0 {
		for _, prof := range []string{tipProf, memProf} {
			if prof == "" {
				continue
			}
			logf("top allocation sites of %s", prof)
			cmd := exec.Command("go", "tool", "pprof", "-sample_index=alloc_space", "-top",
				"-nodecount="+strconv.Itoa(o.top), o.btcd, prof)
			cmd.Stdout, cmd.Stderr = stderr, stderr
			if err := cmd.Run(); err != nil {
				logf("pprof: %v", err)
			}
		}
	}
	return json.NewEncoder(stdout).Encode(res)
}

func round(v float64, digits int) float64 {
	p := 1.0
	for range digits {
		p *= 10
	}
	return float64(int64(v*p+0.5)) / p
}

func goBuild(repo, out, pkg string, stderr io.Writer) error {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = repo
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w", pkg, err)
	}
	return nil
}

// freePorts returns k distinct loopback addresses that were free a moment
// ago. The listeners stay open until all are chosen: closing each at once
// let the kernel hand the same port out twice (a node then failed to bind
// its metrics server to its profile server's port).
func freePorts(k int) ([]string, error) {
	addrs := make([]string, 0, k)
	for range k {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		addrs = append(addrs, l.Addr().String())
	}
	return addrs, nil
}

// node is one running btcd process.
type node struct {
	cmd      *exec.Cmd
	dir      string
	dataDir  string
	rpcAddr  string
	p2pAddr  string
	profAddr string
	// metricsAddr serves Prometheus /metrics, the source of the GC totals.
	metricsAddr string
	exited      chan struct{}
	client      *http.Client
	// onPoll, if set, is called with every height waitHeight reads.
	onPoll func(height int64)
}

func startNode(o *options, name string, extra []string, listen bool) (*node, error) {
	dir := filepath.Join(o.workDir, name)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	n := &node{dir: dir, dataDir: filepath.Join(dir, "data"), exited: make(chan struct{}),
		client: &http.Client{Timeout: 10 * time.Second}}
	ports, err := freePorts(4)
	if err != nil {
		return nil, err
	}
	n.rpcAddr, n.profAddr, n.metricsAddr = ports[0], ports[1], ports[2]
	args := []string{"--regtest", "--datadir=" + n.dataDir, "--logdir=" + filepath.Join(dir, "logs"),
		"--rpclisten=" + n.rpcAddr, "--profile=" + n.profAddr, "--metrics=" + n.metricsAddr}
	if listen {
		n.p2pAddr = ports[3]
		args = append(args, "--listen="+n.p2pAddr)
	}
	args = append(args, extra...)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	out, err := os.Create(filepath.Join(dir, "stdout.log"))
	if err != nil {
		return nil, err
	}
	n.cmd = exec.Command(o.btcd, args...)
	n.cmd.Stdout, n.cmd.Stderr = out, out
	if name == "node" && len(o.nodeEnv) > 0 {
		n.cmd.Env = append(os.Environ(), o.nodeEnv...)
	}
	if err := n.cmd.Start(); err != nil {
		out.Close()
		return nil, err
	}
	go func() {
		_ = n.cmd.Wait()
		out.Close()
		close(n.exited)
	}()
	return n, nil
}

// rpc calls method without parameters using the cookie in the data dir.
func (n *node) rpc(method string) (json.RawMessage, error) {
	cookie, err := os.ReadFile(filepath.Join(n.dataDir, "regtest", ".cookie"))
	if err != nil {
		return nil, err
	}
	user, pass, _ := strings.Cut(strings.TrimSpace(string(cookie)), ":")
	body := `{"jsonrpc":"1.0","id":1,"method":"` + method + `","params":[]}`
	req, err := http.NewRequest(http.MethodPost, "http://"+n.rpcAddr+"/", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(user, pass)
	resp, err := n.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&r); err != nil {
		return nil, err
	}
	if len(r.Error) > 0 && string(r.Error) != "null" {
		return nil, fmt.Errorf("rpc %s: %s", method, r.Error)
	}
	return r.Result, nil
}

// waitHeight polls getblockcount until it reaches h.
func (n *node) waitHeight(h int64, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	// Poll every 50 ms, and every 10 ms for the last 5% of the blocks:
	// 50 ms quantised the 1.3 s runs by 4%, while polling fast all along
	// added the RPC calls' own allocations to the node's totals.
	const slow, fast = 50 * time.Millisecond, 10 * time.Millisecond
	tick := time.NewTicker(slow)
	defer tick.Stop()
	near := false
	for {
		if raw, err := n.rpc("getblockcount"); err == nil {
			got, err := strconv.ParseInt(string(raw), 10, 64)
			if err == nil && n.onPoll != nil {
				n.onPoll(got)
			}
			if err == nil && got >= h {
				return nil
			}
			if err == nil && !near && got >= h-max(2, h/20) {
				near = true
				tick.Reset(fast)
			}
		}
		select {
		case <-n.exited:
			out, _ := os.ReadFile(filepath.Join(filepath.Dir(n.dataDir), "stdout.log"))
			if len(out) > 2000 {
				out = out[len(out)-2000:]
			}
			return fmt.Errorf("btcd exited early (%v); its output ends:\n%s", n.cmd.ProcessState, out)
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: height %d not reached in %v", ErrTimeout, h, timeout)
		}
	}
}

// waitImportFlushed waits for the --loadblock import's closing log line,
// then for an RPC that takes the chain lock (getchaintips), which returns
// once the import's final flush has released it.
func (n *node) waitImportFlushed(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	logPath := filepath.Join(n.dir, "logs", "regtest", "btcd.log")
	for {
		b, _ := os.ReadFile(logPath)
		if bytes.Contains(b, []byte("SRVR: Imported ")) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: no import line in %s", ErrTimeout, logPath)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The final flush of a large chainstate outlasts the client's
	// timeout (10 s), so keep asking until the deadline.
	for {
		_, err := n.rpc("getchaintips")
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// recordTrace saves a Go execution trace of the node's first d (from
// the moment its profile server answers) to path, for `go tool trace`;
// failures are only logged, the measurement goes on.
func (n *node) recordTrace(path string, d time.Duration, logf func(string, ...any)) {
	url := fmt.Sprintf("http://%s/debug/pprof/trace?seconds=%d", n.profAddr, max(1, int(d.Seconds())))
	c := &http.Client{Timeout: d + 30*time.Second}
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := c.Get(url)
		if err == nil {
			f, ferr := os.Create(path)
			if ferr == nil {
				_, err = io.Copy(f, resp.Body)
				f.Close()
			}
			resp.Body.Close()
			logf("trace written to %s (%v)", path, errors.Join(ferr, err))
			return
		}
		if time.Now().After(deadline) {
			logf("trace: %v", err)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// saveAllocProfile writes the node's allocation profile (pprof format)
// to path, after a collection: the profile only holds what was allocated
// up to the last completed GC cycle.
func (n *node) saveAllocProfile(path string) error {
	resp, err := n.client.Get("http://" + n.profAddr + "/debug/pprof/allocs?gc=1")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("allocs profile: HTTP %d", resp.StatusCode)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, io.LimitReader(resp.Body, 256<<20))
	return errors.Join(err, f.Close())
}

// allocTotals reads TotalAlloc and Mallocs from the runtime.MemStats
// footer of the heap profile's debug=1 form: exact process totals, unlike
// the sampled profile records.
func (n *node) allocTotals() (bytes, objects uint64, err error) {
	resp, err := n.client.Get("http://" + n.profAddr + "/debug/pprof/allocs?debug=1")
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 64<<20))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	found := 0
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "# TotalAlloc = "); ok {
			bytes, err = strconv.ParseUint(v, 10, 64)
			found++
		} else if v, ok := strings.CutPrefix(line, "# Mallocs = "); ok {
			objects, err = strconv.ParseUint(v, 10, 64)
			found++
		}
		if err != nil {
			return 0, 0, err
		}
	}
	if found != 2 {
		return 0, 0, errors.New("allocation totals not found in /debug/pprof/allocs?debug=1")
	}
	return bytes, objects, sc.Err()
}

// stop sends SIGINT, waits for the exit and returns the child's total CPU
// seconds (user+system, shutdown included).
func (n *node) stop(timeout time.Duration) (float64, error) {
	if err := n.cmd.Process.Signal(os.Interrupt); err != nil {
		return 0, err
	}
	select {
	case <-n.exited:
	case <-time.After(timeout):
		_ = n.cmd.Process.Kill()
		<-n.exited
		return 0, fmt.Errorf("%w: shutdown", ErrTimeout)
	}
	ru, ok := n.cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, nil
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime), nil
}

func (n *node) kill() {
	select {
	case <-n.exited:
	default:
		_ = n.cmd.Process.Signal(os.Interrupt)
		select {
		case <-n.exited:
		case <-time.After(30 * time.Second):
			_ = n.cmd.Process.Kill()
			<-n.exited
		}
	}
}

// sigBound is chaingen's -sigbench line for the chain.
type sigBound struct {
	raw       json.RawMessage
	wall, cpu float64
	// ideal is the one-core CPU time spread over all cores: the bound
	// on an otherwise idle machine, steadier than the measured wall time.
	ideal float64
	// idealOwn is the same with txscript's own verifier (0 in a
	// sigbench.json from before it was measured).
	idealOwn float64
}

// loadSigBound reads sigbench.json in the chain directory or runs
// chaingen -sigbench (for the same size and default seed) and stores it.
func loadSigBound(o *options, chaingen func() (string, error), logf func(string, ...any)) (*sigBound, error) {
	path := filepath.Join(o.chainDir, "sigbench.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		cg, err := chaingen()
		if err != nil {
			return nil, err
		}
		logf("measuring the signature lower bound (chaingen -sigbench -size %s)", o.size)
		ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
		defer cancel()
		out, err := exec.CommandContext(ctx, cg, "-sigbench", "-size", o.size).Output()
		if err != nil {
			return nil, fmt.Errorf("chaingen -sigbench: %w", err)
		}
		lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
		raw = lines[len(lines)-1]
		if err := os.WriteFile(path, append(raw, '\n'), 0o644); err != nil {
			return nil, err
		}
	}
	raw = bytes.TrimSpace(raw)
	var v struct {
		Cores int `json:"cores"`
		Full1 struct {
			CPUS float64 `json:"cpu_s"`
		} `json:"sighash_verify_1core"`
		FullN struct {
			S    float64 `json:"s"`
			CPUS float64 `json:"cpu_s"`
		} `json:"sighash_verify_ncore"`
		OwnFull1 struct {
			CPUS float64 `json:"cpu_s"`
		} `json:"own_sighash_verify_1core"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b := &sigBound{raw: raw, wall: v.FullN.S, cpu: v.FullN.CPUS}
	if v.Cores > 0 {
		b.ideal = v.Full1.CPUS / float64(v.Cores)
		b.idealOwn = v.OwnFull1.CPUS / float64(v.Cores)
	}
	return b, nil
}
