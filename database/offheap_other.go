//go:build !(linux && (amd64 || arm64 || riscv64 || ppc64le || s390x || loong64 || mips64 || mips64le || ppc64))

package database

import "errors"

// Elsewhere the cache's arrays live on the Go heap: mapping is Linux-only
// because slab reuse relies on MADV_DONTNEED zeroing pages (other systems
// may keep their contents), and 32-bit systems lack the address space for
// a slab region.

const (
	hugePage  = 2 << 20
	offheapOK = false
)

func mapAligned(int) ([]byte, error) { return nil, errors.New("no off-heap memory on this platform") }

func unmap([]byte) {}

func dropPages([]byte) {}

func populate([]byte) {}
