package main

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
)

// listFlag is a repeatable string flag (-nodeflag=--gogc=50 -nodeflag=...).
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, " ") }

// Set appends one value; flag calls it once per occurrence.
func (l *listFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// gcStats are the measured node's collector totals, scraped from its
// Prometheus endpoint just before it is stopped.
type gcStats struct {
	// fraction is btcd_gc_cpu_fraction: GC CPU over the CPU *available*
	// (GOMAXPROCS x wall time), as runtime/metrics defines it.
	fraction float64
	// cpuSeconds is /cpu/classes/gc/total:cpu-seconds, which lets the
	// caller also express GC as a share of the CPU actually used.
	cpuSeconds float64
	// cycles is /gc/cycles/total:gc-cycles (NumGC).
	cycles uint64
	// pauseSeconds is the sum of the stop-the-world pause histogram; the
	// runtime keeps pauses in buckets, so this is an estimate.
	pauseSeconds float64
}

// ErrMetrics reports a metrics page without the GC series ibdbench needs.
var ErrMetrics = errors.New("ibdbench: GC metrics not found")

// gcMetrics fetches http://ADDR/metrics and picks the GC series.
func (n *node) gcMetrics() (*gcStats, error) {
	resp, err := n.client.Get("http://" + n.metricsAddr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return parseGCMetrics(io.LimitReader(resp.Body, 64<<20))
}

// parseGCMetrics reads Prometheus text exposition. Pause sums are taken
// from whichever pause histogram the runtime collector exports (the name
// changed across Go releases), preferring the newer scheduler series.
func parseGCMetrics(r io.Reader) (*gcStats, error) {
	s := &gcStats{}
	var haveFrac, haveCPU, haveCycles bool
	pause := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, val, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			continue
		}
		switch name {
		case "btcd_gc_cpu_fraction":
			s.fraction, haveFrac = v, true
		case "go_cpu_classes_gc_total_cpu_seconds_total":
			s.cpuSeconds, haveCPU = v, true
		case "go_gc_cycles_total_gc_cycles_total":
			s.cycles, haveCycles = uint64(v), true
		case "go_sched_pauses_total_gc_seconds_sum", "go_gc_pauses_seconds_sum":
			pause[name] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !haveFrac || !haveCPU || !haveCycles {
		return nil, ErrMetrics
	}
	if v, ok := pause["go_sched_pauses_total_gc_seconds_sum"]; ok {
		s.pauseSeconds = v
	} else {
		s.pauseSeconds = pause["go_gc_pauses_seconds_sum"]
	}
	return s, nil
}
