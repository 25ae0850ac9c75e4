//go:build unix

package chaingen

import "syscall"

// CPUSeconds returns the process's user+system CPU time; with other jobs on
// the machine it is a steadier measure than wall time.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
