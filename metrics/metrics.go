package metrics

import (
	"regexp"
	rtmetrics "runtime/metrics"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Namespace prefixes every metric this package defines.
const Namespace = "btcd"

// DefaultMaxRPCMethods bounds the distinct RPC method labels admitted when
// Options.RPCMethods is empty.
const DefaultMaxRPCMethods = 256

// Histogram buckets, in seconds.
var (
	// BlockValidationBuckets spans an empty regtest block (~1 ms) to a
	// full mainnet block on a slow disk with a cold cache (~60 s).
	BlockValidationBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
	// FlushBuckets spans a small periodic flush to a multi-GB cache
	// written at shutdown or at the end of IBD.
	FlushBuckets = []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}
	// RPCBuckets spans a cached getblockcount to a slow
	// gettxoutsetinfo/rescan.
	RPCBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
)

// PeerCommands are the P2P message commands that get their own label
// value; anything else a peer sends is counted as OtherLabel. The list
// mirrors the wire package's Cmd constants (kept here as strings so this
// package stays free of protocol dependencies).
var PeerCommands = []string{
	"version", "verack", "ping", "pong", "addr", "addrv2", "getaddr",
	"sendaddrv2", "inv", "getdata", "notfound", "getblocks", "getheaders",
	"headers", "block", "tx", "mempool", "sendheaders", "feefilter",
	"wtxidrelay", "sendcmpct", "cmpctblock", "getblocktxn", "blocktxn",
	"getcfilters", "cfilter", "getcfheaders", "cfheaders", "getcfcheckpt",
	"cfcheckpt", "reject", "filterload", "filteradd", "filterclear",
	"merkleblock",
}

// RejectReasons are the label values of btcd_mempool_txs_rejected_total:
// the mempool's rejection kinds in snake case. TxRejected also accepts the
// kinds' own spelling ("not standard", as mempool.ErrorKind renders).
var RejectReasons = []string{
	"consensus", "not_standard", "inputs_not_standard", "missing_inputs",
	"premature_spend", "conflict", "mempool_policy", "reconsiderable",
}

// Options configures New.
type Options struct {
	// Sources supplies the values read at scrape time; it may also be set
	// later with SetSources.
	Sources Sources
	// RPCMethods, when set, is the complete list of RPC method names that
	// get their own label value; others are counted as OtherLabel. When
	// empty, the first DefaultMaxRPCMethods distinct names are admitted.
	RPCMethods []string
	// NoRuntimeCollectors leaves out the Go runtime and process
	// collectors (tests that compare whole expositions use it).
	NoRuntimeCollectors bool
}

// peerCmd holds the four counters of one message command.
type peerCmd struct {
	bytesIn, bytesOut prometheus.Counter
	msgsIn, msgsOut   prometheus.Counter
}

// rpcMethod holds the instruments of one RPC method.
type rpcMethod struct {
	calls, errors prometheus.Counter
	latency       prometheus.Observer
}

// Metrics holds the node's instruments and its registry. Create it with
// New; a nil *Metrics is valid and records nothing.
type Metrics struct {
	reg *prometheus.Registry

	blocksConnected prometheus.Counter
	txsConnected    prometheus.Counter
	blockValidation prometheus.Histogram
	scriptChecks    prometheus.Counter
	reorgs          prometheus.Counter
	disconnected    prometheus.Counter

	utxoFlush prometheus.Histogram

	peerCmds *children[peerCmd]
	bans     prometheus.Counter

	txAccepted prometheus.Counter
	txRejected *children[prometheus.Counter]

	rpc *children[rpcMethod]

	sources *sourceCollector
}

// New creates the instruments and registers them, the scrape-time sources
// and (unless disabled) the Go runtime and process collectors in a private
// registry.
func New(o Options) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	f := func(c prometheus.Collector) { m.reg.MustRegister(c) }

	counter := func(sub, name, help string) prometheus.Counter {
		c := prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Subsystem: sub, Name: name, Help: help})
		f(c)
		return c
	}
	m.blocksConnected = counter("chain", "blocks_connected_total", "Blocks connected to the main chain.")
	m.txsConnected = counter("chain", "transactions_connected_total", "Transactions in blocks connected to the main chain.")
	m.scriptChecks = counter("chain", "script_checks_total", "Transaction inputs whose scripts were verified.")
	m.reorgs = counter("chain", "reorgs_total", "Chain reorganisations (the tip moved to a branch that is not a descendant of it).")
	m.disconnected = counter("chain", "blocks_disconnected_total", "Blocks disconnected from the main chain by reorganisations or invalidateblock.")
	m.bans = counter("peers", "bans_total", "Peers banned (misbehaviour or setban).")
	m.txAccepted = counter("mempool", "txs_accepted_total", "Transactions accepted into the mempool.")

	m.blockValidation = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: Namespace, Subsystem: "chain", Name: "block_validation_duration_seconds",
		Help:    "Time to validate and connect one block.",
		Buckets: BlockValidationBuckets,
	})
	f(m.blockValidation)
	m.utxoFlush = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: Namespace, Subsystem: "utxo_cache", Name: "flush_duration_seconds",
		Help:    "Duration of UTXO cache flushes to the chainstate database.",
		Buckets: FlushBuckets,
	})
	// Not registered on its own: the source collector collects it right
	// after feeding it, so a scrape includes its own observations.

	counterVec := func(sub, name, help string, labels ...string) *prometheus.CounterVec {
		v := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: sub, Name: name, Help: help}, labels)
		f(v)
		return v
	}
	bytesVec := counterVec("peers", "bytes_total", "P2P message bytes (header and payload) by command and direction.", "command", "direction")
	msgsVec := counterVec("peers", "messages_total", "P2P messages by command and direction.", "command", "direction")
	m.peerCmds = newChildren(newFixedLabels(PeerCommands, nil), func(cmd string) *peerCmd {
		return &peerCmd{
			bytesIn:  bytesVec.WithLabelValues(cmd, "in"),
			bytesOut: bytesVec.WithLabelValues(cmd, "out"),
			msgsIn:   msgsVec.WithLabelValues(cmd, "in"),
			msgsOut:  msgsVec.WithLabelValues(cmd, "out"),
		}
	})

	rejVec := counterVec("mempool", "txs_rejected_total", "Transactions refused by the mempool, by rejection kind.", "reason")
	aliases := make(map[string]string, len(RejectReasons))
	for _, r := range RejectReasons {
		aliases[spaced(r)] = r
	}
	m.txRejected = newChildren(newFixedLabels(RejectReasons, aliases), func(r string) *prometheus.Counter {
		c := rejVec.WithLabelValues(r)
		return &c
	})

	rpcCalls := counterVec("rpc", "calls_total", "RPC calls by method.", "method")
	rpcErrs := counterVec("rpc", "errors_total", "RPC calls that returned an error, by method.", "method")
	rpcLat := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: Namespace, Subsystem: "rpc", Name: "call_duration_seconds",
		Help:    "RPC call latency by method.",
		Buckets: RPCBuckets,
	}, []string{"method"})
	f(rpcLat)
	rpcLabels := newGrowingLabels(DefaultMaxRPCMethods)
	if len(o.RPCMethods) > 0 {
		rpcLabels = newFixedLabels(o.RPCMethods, nil)
	}
	m.rpc = newChildren(rpcLabels, func(method string) *rpcMethod {
		return &rpcMethod{
			calls:   rpcCalls.WithLabelValues(method),
			errors:  rpcErrs.WithLabelValues(method),
			latency: rpcLat.WithLabelValues(method),
		}
	})

	m.sources = newSourceCollector(o.Sources, m.utxoFlush)
	f(m.sources)

	if !o.NoRuntimeCollectors {
		f(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(
			collectors.MetricsGC,
			collectors.MetricsScheduler,
			collectors.MetricsMemory,
			// GC CPU time lives under /cpu/classes, which MetricsGC
			// does not match.
			collectors.GoRuntimeMetricsRule{Matcher: regexp.MustCompile(`^/cpu/classes/.*`)},
		)))
		f(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		f(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "gc_cpu_fraction",
			Help: "Fraction of the process's available CPU time spent in the garbage collector since it started (runtime/metrics CPU classes, which the runtime estimates at each GC).",
		}, gcCPUFraction))
	}
	return m
}

// spaced turns "not_standard" into "not standard".
func spaced(s string) string {
	b := []byte(s)
	for i := range b {
		if b[i] == '_' {
			b[i] = ' '
		}
	}
	return string(b)
}

// gcSamples is reused across scrapes; the mutex covers concurrent scrapes.
var (
	gcMu      sync.Mutex
	gcSamples = []rtmetrics.Sample{
		{Name: "/cpu/classes/gc/total:cpu-seconds"},
		{Name: "/cpu/classes/total:cpu-seconds"},
	}
)

func gcCPUFraction() float64 {
	gcMu.Lock()
	defer gcMu.Unlock()
	rtmetrics.Read(gcSamples)
	if gcSamples[0].Value.Kind() != rtmetrics.KindFloat64 || gcSamples[1].Value.Kind() != rtmetrics.KindFloat64 {
		return 0
	}
	total := gcSamples[1].Value.Float64()
	if total <= 0 {
		return 0
	}
	return gcSamples[0].Value.Float64() / total
}

// Registry returns the registry holding every metric, for tests and for
// callers that want to add their own collectors. Nil for a nil *Metrics.
func (m *Metrics) Registry() *prometheus.Registry {
	if m == nil {
		return nil
	}
	return m.reg
}

// SetSources replaces the scrape-time sources. The daemon calls it once
// the chain, cache, mempool and peer manager exist (they are usually
// created after the Metrics they are handed).
func (m *Metrics) SetSources(s Sources) {
	if m == nil {
		return
	}
	m.sources.set(s)
}

// BlockConnected records one block connected to the main chain with txs
// transactions. A positive dur (the time to validate and connect it) is
// also observed in the validation histogram; pass 0 when the caller only
// sees the connection (a chain notification) and times validation
// elsewhere with BlockValidated.
func (m *Metrics) BlockConnected(txs int, dur time.Duration) {
	if m == nil {
		return
	}
	m.blocksConnected.Inc()
	m.txsConnected.Add(float64(txs))
	if dur > 0 {
		m.blockValidation.Observe(dur.Seconds())
	}
}

// BlockValidated observes the time taken to validate and connect one
// block, for callers that count connections separately.
func (m *Metrics) BlockValidated(dur time.Duration) {
	if m == nil {
		return
	}
	m.blockValidation.Observe(dur.Seconds())
}

// BlockDisconnected records one block disconnected from the main chain.
func (m *Metrics) BlockDisconnected() {
	if m == nil {
		return
	}
	m.disconnected.Inc()
}

// Reorg records one chain reorganisation.
func (m *Metrics) Reorg() {
	if m == nil {
		return
	}
	m.reorgs.Inc()
}

// ScriptChecks adds n verified transaction inputs (call once per block or
// per batch, not per input, to keep the counter off the workers' path).
func (m *Metrics) ScriptChecks(n int) {
	if m == nil {
		return
	}
	m.scriptChecks.Add(float64(n))
}

// UtxoFlushed observes the duration of one UTXO cache flush. Calling it is
// optional: without it the flush histogram is derived at each scrape from
// Sources.UtxoCache (exact unless several flushes fall between two
// scrapes). Once it has been called, the derivation stops so that no
// flush is counted twice.
func (m *Metrics) UtxoFlushed(dur time.Duration) {
	if m == nil {
		return
	}
	if !m.sources.pushed.Load() {
		m.sources.pushed.Store(true)
	}
	m.utxoFlush.Observe(dur.Seconds())
}

// PeerMessage records one P2P message of n bytes (header and payload)
// received (in) or sent. Unknown commands count as OtherLabel.
func (m *Metrics) PeerMessage(cmd string, in bool, n int) {
	if m == nil {
		return
	}
	c := m.peerCmds.get(cmd)
	if in {
		c.msgsIn.Inc()
		c.bytesIn.Add(float64(n))
	} else {
		c.msgsOut.Inc()
		c.bytesOut.Add(float64(n))
	}
}

// PeerBanned records one ban.
func (m *Metrics) PeerBanned() {
	if m == nil {
		return
	}
	m.bans.Inc()
}

// TxAccepted records one transaction accepted into the mempool.
func (m *Metrics) TxAccepted() {
	if m == nil {
		return
	}
	m.txAccepted.Inc()
}

// TxRejected records one transaction refused by the mempool. reason is the
// rejection kind (mempool.ErrorKind's string, spaced or snake case); any
// other value counts as OtherLabel.
func (m *Metrics) TxRejected(reason string) {
	if m == nil {
		return
	}
	(*m.txRejected.get(reason)).Inc()
}

// RPCCall records one RPC call of method that took dur and failed or not.
func (m *Metrics) RPCCall(method string, dur time.Duration, failed bool) {
	if m == nil {
		return
	}
	r := m.rpc.get(method)
	r.calls.Inc()
	if failed {
		r.errors.Inc()
	}
	r.latency.Observe(dur.Seconds())
}
