//go:build !unix

package chaingen

// CPUSeconds is not measured on this platform.
func CPUSeconds() float64 { return 0 }
