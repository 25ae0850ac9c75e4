//go:build linux && (amd64 || arm64 || riscv64 || ppc64le || s390x || loong64 || mips64 || mips64le || ppc64)

package database

import (
	"syscall"
	"unsafe"
)

// This file maps the UTXO cache's two big arrays (entry slabs, table
// slots) outside the Go heap, on transparent huge pages where the kernel
// allows them (THP "madvise" mode is the common default).
//
// Why: on a fresh node every 4 KiB page of the cache is faulted in once,
// and on the reference VM a fault costs about 11 us, against 0.24-7 us
// per 4 KiB for a huge page (the high end while the host still backs the
// memory); page faults were 20-25% of the CPU of a scripts-skipped sync. Random probes into tens of MiB of slabs and
// slots also miss the TLB on every access with small pages. Memory outside
// the heap is neither scanned nor counted in the collector's heap goal, so
// GOGC does not let a full 450 MiB cache double the process's footprint.
// The budget still counts every byte (memUsage).

const (
	hugePage  = 2 << 20
	madvHuge  = 14 // MADV_HUGEPAGE
	madvDrop  = 4  // MADV_DONTNEED: private anonymous pages read as zero again
	madvFault = 23 // MADV_POPULATE_WRITE (Linux 5.14): fault in, contents unchanged
	offheapOK = true
)

// mapAligned maps n bytes (a multiple of hugePage) of anonymous memory
// aligned to hugePage and asks for huge pages. MAP_NORESERVE: a slab
// region reserves address space for the worst case, most of which is
// never touched.
func mapAligned(n int) ([]byte, error) {
	raw, err := syscall.Mmap(-1, 0, n+hugePage, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil, err
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	skip := int((hugePage - base%hugePage) % hugePage)
	// Unmap the unaligned head and the tail beyond n. These and unmap use
	// the raw system call: syscall.Munmap unmaps only a whole slice that
	// syscall.Mmap returned and fails (EINVAL) on any part of one, so the
	// trimmed ends and every table array replaced by a resize stayed
	// mapped, and the arrays resident.
	if skip > 0 {
		unmap(raw[:skip])
	}
	if tail := raw[skip+n:]; len(tail) > 0 {
		unmap(tail)
	}
	mem := raw[skip : skip+n : skip+n]
	// Without THP (or with it disabled) this fails; small pages still work.
	_ = syscall.Madvise(mem, madvHuge)
	return mem, nil
}

func munmap(addr, n uintptr) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_MUNMAP, addr, n, 0); errno != 0 {
		return errno
	}
	return nil
}

func unmap(mem []byte) {
	if len(mem) > 0 {
		_ = munmap(uintptr(unsafe.Pointer(unsafe.SliceData(mem))), uintptr(len(mem)))
	}
}

// dropPages returns mem's pages to the kernel; mem stays mapped and reads
// as zeros afterwards (the Linux semantics of MADV_DONTNEED on private
// anonymous memory, which slabs.grow relies on).
func dropPages(mem []byte) {
	if len(mem) > 0 {
		_ = syscall.Madvise(mem, madvDrop)
	}
}

// populate faults mem's pages in without changing their contents, so that
// a later first write finds them present. Slabs call it on a background
// goroutine for the region just ahead of the chunks in use: zeroing fresh
// (huge) pages was 9% of the connecting goroutine's samples in a
// scripts-skipped sync. Older kernels refuse it; the pages then fault on
// use as before.
func populate(mem []byte) {
	if len(mem) > 0 {
		_ = syscall.Madvise(mem, madvFault)
	}
}
