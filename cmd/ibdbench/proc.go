package main

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
)

// procCPUSeconds is utime+stime of /proc/PID/stat.
func procCPUSeconds(pid int) (float64, error) {
	st, err := readProcStat(pid)
	return st.user + st.sys, err
}

// procStat is the part of /proc/PID/stat the benchmark reports.
type procStat struct {
	user, sys   float64 // CPU seconds
	minorFaults uint64
}

func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	// Fields after the parenthesised command name; minflt, utime and
	// stime are fields 10, 14 and 15 of the whole line.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errors.New("malformed /proc/PID/stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return procStat{}, errors.New("short /proc/PID/stat")
	}
	mf, err0 := strconv.ParseUint(f[7], 10, 64)
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err0 != nil || err1 != nil || err2 != nil {
		return procStat{}, errors.New("malformed /proc/PID/stat fields")
	}
	const hz = 100 // USER_HZ on Linux
	return procStat{user: float64(ut) / hz, sys: float64(st) / hz, minorFaults: mf}, nil
}

// procHWM is VmHWM of /proc/PID/status in KiB.
func procHWM(pid int) (uint64, error) { return procStatusKiB(pid, "VmHWM:") }

// procStatusKiB reads one "Key:  N kB" line of /proc/PID/status.
func procStatusKiB(pid int, key string) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			return strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	return 0, errors.New(key + " not in /proc/PID/status")
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
