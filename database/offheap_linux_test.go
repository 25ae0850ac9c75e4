//go:build linux && (amd64 || arm64 || riscv64 || ppc64le || s390x || loong64 || mips64 || mips64le || ppc64)

package database

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// mapped reports whether addr lies in one of the process's mappings.
func mapped(t *testing.T, addr uintptr) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		var lo, hi uintptr
		if _, err := fmt.Sscanf(l, "%x-%x", &lo, &hi); err == nil && addr >= lo && addr < hi {
			return true
		}
	}
	return false
}

// TestTableResizeUnmaps: the table array a resize replaces is unmapped
// (it stayed mapped and resident while syscall.Munmap was used on the
// aligned part of a mapping, growing a node's RSS by every resize), and
// the cache's mappings go when it is released.
func TestTableResizeUnmaps(t *testing.T) {
	cs, err := OpenChainState(t.TempDir(), ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	c := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: 100 << 20})
	if c.table.mem == nil {
		t.Skip("no off-heap memory")
	}
	c.table.resize(1 << 21)
	old := uintptr(unsafe.Pointer(unsafe.SliceData(c.table.mem.slots)))
	if !mapped(t, old) {
		t.Fatal("table array not mapped")
	}
	c.table.resize(1 << 20)
	if mapped(t, old) {
		t.Fatal("the replaced table array is still mapped")
	}
	region := uintptr(unsafe.Pointer(unsafe.SliceData(c.table.mem.region)))
	slots := uintptr(unsafe.Pointer(unsafe.SliceData(c.table.mem.slots)))
	c.table.mem.free()
	if mapped(t, region) || mapped(t, slots) {
		t.Fatal("the cache's mappings outlive free")
	}
}
