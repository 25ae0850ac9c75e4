package addrmgr

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/btcnode/btcd/wire"
)

// peers.dat is Bitcoin Core's address file: the network magic, the
// serialized tables, and a double SHA-256 of both. This file reads and
// writes that format, so a data directory moves between this node and
// bitcoind, and Core's tests (feature_addrman.py) can plant crafted files.

// Format versions of the tables (Core's AddrMan::Format). A file says
// which format it is written in and the oldest reader that understands
// it (plus incompatibilityBase, so that readers from before this scheme
// refuse it).
const (
	formatDeterministic = 1 // nUBuckets is xored with 1<<30
	formatAsmap         = 2 // an asmap checksum follows the buckets
	formatBIP155        = 3 // addresses in BIP155 (addrv2) encoding
	formatMultiport     = 4 // one host may appear with several ports
	fileFormat          = formatMultiport
	lowestCompatible    = formatMultiport
	incompatibilityBase = 32
)

// CAddress disk encoding: a version word whose low bits are ignored and
// whose bit 29 selects the BIP155 encoding.
const (
	diskVersionInit       = 220000
	diskVersionAddrV2     = 1 << 29
	diskVersionIgnoreMask = 1<<19 - 1
)

// maxCompactSize is Core's MAX_SIZE, the largest length a range-checked
// compact size may give.
const maxCompactSize = 0x02000000

// IPv6 prefixes under which Core's legacy (16-byte) encoding carries
// other networks.
var (
	ipv4InIPv6Prefix     = []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}
	torV2InIPv6Prefix    = []byte{0xfd, 0x87, 0xd8, 0x7e, 0xeb, 0x43}
	internalInIPv6Prefix = []byte{0xfd, 0x6b, 0x88, 0xc0, 0x87, 0x24}
)

// streamFailure is a decoding failure worded as Core's: its stream
// exceptions read "<what>: iostream error", which Core's tests match.
func streamFailure(format string, args ...any) error {
	return errors.New(fmt.Sprintf(format, args...) + ": iostream error")
}

// errVersion marks a file written for a newer reader: it is set aside
// and replaced, not reported as corrupt.
var errVersion = errors.New("unsupported peers.dat format")

// datReader reads the file's fields, keeping the first failure; once
// failed, every read returns zero, so decoding checks err only where a
// value decides what follows.
type datReader struct {
	b   []byte
	off int
	err error
}

func (r *datReader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || len(r.b)-r.off < n {
		r.err = streamFailure("AutoFile::read: end of file")
		r.off = len(r.b)
		return nil
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

func (r *datReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *datReader) u8() uint8 {
	if p := r.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (r *datReader) u16be() uint16 {
	if p := r.take(2); p != nil {
		return binary.BigEndian.Uint16(p)
	}
	return 0
}

func (r *datReader) u32() uint32 {
	if p := r.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (r *datReader) u64() uint64 {
	if p := r.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

// compactSize reads Core's variable-length integer, refusing
// non-minimal encodings and, with rangeCheck, lengths above MAX_SIZE.
func (r *datReader) compactSize(rangeCheck bool) uint64 {
	var v, least uint64
	switch tag := r.u8(); tag {
	case 0xfd:
		v, least = uint64(r.u16le()), 0xfd
	case 0xfe:
		v, least = uint64(r.u32()), 0x10000
	case 0xff:
		v, least = r.u64(), 0x100000000
	default:
		return uint64(tag)
	}
	if r.err != nil {
		return 0
	}
	if v < least {
		r.fail(streamFailure("non-canonical ReadCompactSize()"))
		return 0
	}
	if rangeCheck && v > maxCompactSize {
		r.fail(streamFailure("ReadCompactSize(): size too large"))
		return 0
	}
	return v
}

func (r *datReader) u16le() uint16 {
	if p := r.take(2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

// datEntry is one table entry as stored.
type datEntry struct {
	key         addrKey
	valid       bool
	time        uint32
	services    uint64
	src         addrKey
	lastSuccess int64
	attempts    int32
}

// datFile is a decoded peers.dat.
type datFile struct {
	key   [32]byte
	new   []datEntry
	tried []datEntry
}

// bip155Sizes are the address lengths of the BIP155 networks Core reads,
// with the names its error messages use.
var bip155Sizes = map[wire.NetworkID]struct {
	size int
	name string
}{
	wire.NetIPv4:  {4, "IPv4"},
	wire.NetIPv6:  {16, "IPv6"},
	wire.NetTorV3: {32, "TORv3"},
	wire.NetI2P:   {32, "I2P"},
	wire.NetCJDNS: {16, "CJDNS"},
}

// netAddr reads an address without port, in BIP155 form when v2, else
// as 16 legacy bytes. valid is false for what Core reads as the unusable
// all-zero IPv6 address: unknown networks, and IPv4 or Tor v2 disguised
// as IPv6.
func (r *datReader) netAddr(v2 bool) (k addrKey, valid bool) {
	if !v2 {
		return legacyKey(r.take(16))
	}
	id := wire.NetworkID(r.u8())
	size := r.compactSize(true)
	if r.err != nil {
		return k, false
	}
	if size > wire.MaxAddrV2Size {
		r.fail(streamFailure("Address too long: %d > %d", size, wire.MaxAddrV2Size))
		return k, false
	}
	known, ok := bip155Sizes[id]
	if !ok {
		r.take(int(size))
		return k, false
	}
	if int(size) != known.size {
		r.fail(streamFailure("BIP155 %s address with length %d (should be %d)", known.name, size, known.size))
		return k, false
	}
	b := r.take(known.size)
	if b == nil {
		return k, false
	}
	if id == wire.NetIPv6 {
		switch {
		case bytes.HasPrefix(b, internalInIPv6Prefix):
			k.net = netInternal
		case bytes.HasPrefix(b, ipv4InIPv6Prefix), bytes.HasPrefix(b, torV2InIPv6Prefix):
			return addrKey{net: wire.NetIPv6}, false
		default:
			k.net = id
		}
	} else {
		k.net = id
	}
	copy(k.addr[:], b)
	return k, true
}

// legacyKey decodes Core's 16-byte address encoding.
func legacyKey(b []byte) (k addrKey, valid bool) {
	if b == nil {
		return k, false
	}
	switch {
	case bytes.HasPrefix(b, ipv4InIPv6Prefix):
		k.net = wire.NetIPv4
		copy(k.addr[:], b[12:])
	case bytes.HasPrefix(b, torV2InIPv6Prefix):
		return addrKey{net: wire.NetIPv6}, false
	case bytes.HasPrefix(b, internalInIPv6Prefix):
		k.net = netInternal
		copy(k.addr[:], b)
	default:
		k.net = wire.NetIPv6
		copy(k.addr[:], b)
	}
	return k, true
}

// entry reads one AddrInfo: the CAddress (disk form), the source address,
// the last success and the attempt count.
func (r *datReader) entry(format uint8) datEntry {
	var e datEntry
	stored := r.u32() &^ diskVersionIgnoreMask
	v2 := false
	switch {
	case r.err != nil:
		return e
	case stored == 0:
	case stored == diskVersionAddrV2 && format >= formatBIP155:
		v2 = true
	default:
		r.fail(streamFailure("Unsupported CAddress disk format version"))
		return e
	}
	e.time = r.u32()
	if v2 {
		e.services = r.compactSize(false)
	} else {
		e.services = r.u64()
	}
	e.key, e.valid = r.netAddr(v2)
	e.key.port = r.u16be()
	e.src, _ = r.netAddr(format >= formatBIP155)
	e.lastSuccess = int64(r.u64())
	e.attempts = int32(r.u32())
	return e
}

// decodePeersDat parses a peers.dat of network magic. Errors carry Core's
// wording; errVersion marks a file for a newer reader.
func decodePeersDat(b []byte, magic wire.BitcoinNet) (*datFile, error) {
	r := &datReader{b: b}
	if m := r.u32(); r.err != nil {
		return nil, r.err
	} else if wire.BitcoinNet(m) != magic {
		return nil, errors.New("Invalid network magic number")
	}
	format := r.u8()
	compat := r.u8()
	if r.err != nil {
		return nil, r.err
	}
	if compat < incompatibilityBase {
		return nil, streamFailure("Corrupted addrman database: The compat value (%d) is lower than the expected minimum value %d.", compat, incompatibilityBase)
	}
	if lowest := compat - incompatibilityBase; lowest > fileFormat {
		return nil, fmt.Errorf("%w: %d, compatible with formats >=%d, this node reads up to %d", errVersion, format, lowest, fileFormat)
	}
	f := &datFile{}
	copy(f.key[:], r.take(32))
	nNew := int32(r.u32())
	nTried := int32(r.u32())
	nBuckets := int32(r.u32())
	if format >= formatDeterministic {
		nBuckets ^= 1 << 30
	}
	if r.err != nil {
		return nil, r.err
	}
	if nNew < 0 || nNew > newBucketCount*bucketSize {
		return nil, streamFailure("Corrupt AddrMan serialization: nNew=%d, should be in [0, %d]", nNew, newBucketCount*bucketSize)
	}
	if nTried < 0 || nTried > triedBucketCount*bucketSize {
		return nil, streamFailure("Corrupt AddrMan serialization: nTried=%d, should be in [0, %d]", nTried, triedBucketCount*bucketSize)
	}
	for i := int32(0); i < nNew && r.err == nil; i++ {
		f.new = append(f.new, r.entry(format))
	}
	for i := int32(0); i < nTried && r.err == nil; i++ {
		f.tried = append(f.tried, r.entry(format))
	}
	// Bucket positions are recomputed with this node's placement, so the
	// stored ones are read past.
	for i := int32(0); i < nBuckets && r.err == nil; i++ {
		n := int32(r.u32())
		for j := int32(0); j < n && r.err == nil; j++ {
			r.u32()
		}
	}
	if format >= formatAsmap {
		r.take(32)
	}
	if r.err != nil {
		return nil, r.err
	}
	// Core runs its consistency check on every load; of its checks only
	// the key's can fail for tables rebuilt by this node.
	if f.key == ([32]byte{}) {
		return nil, streamFailure("Corrupt data. Consistency check failed with code -16")
	}
	sum := wire.DoubleHashB(b[:r.off])
	if got := r.take(32); r.err != nil {
		return nil, r.err
	} else if !bytes.Equal(got, sum) {
		return nil, errors.New("Checksum mismatch, data corrupted")
	}
	return f, nil
}

// datWriter appends the file's fields.
type datWriter struct{ b []byte }

func (w *datWriter) u8(v uint8)   { w.b = append(w.b, v) }
func (w *datWriter) u32(v uint32) { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *datWriter) u64(v uint64) { w.b = binary.LittleEndian.AppendUint64(w.b, v) }

// netAddr writes k in BIP155 form; internal addresses go as the IPv6
// addresses that embed them, as Core writes them.
func (w *datWriter) netAddr(k *addrKey) {
	id := k.net
	if id == netInternal {
		id = wire.NetIPv6
	}
	n := k.addrLen()
	w.u8(uint8(id))
	w.b = wire.AppendVarInt(w.b, uint64(n))
	w.b = append(w.b, k.addr[:n]...)
}

func (w *datWriter) entry(ka *knownAddress) {
	w.u32(diskVersionInit | diskVersionAddrV2)
	w.u32(ka.timestamp)
	w.b = wire.AppendVarInt(w.b, uint64(ka.services))
	w.netAddr(&ka.key)
	w.b = binary.BigEndian.AppendUint16(w.b, ka.key.port)
	w.netAddr(&ka.src)
	w.u64(uint64(unixOrZero(ka.lastSuccess)))
	w.u32(uint32(int32(ka.attempts)))
}

// encodePeersDatLocked serializes the tables in the current format. The
// caller holds m.mu.
func (m *Manager) encodePeersDatLocked(magic wire.BitcoinNet) []byte {
	w := &datWriter{b: make([]byte, 0, 64+len(m.index)*80+newBucketCount*4)}
	w.u32(uint32(magic))
	w.u8(fileFormat)
	w.u8(incompatibilityBase + lowestCompatible)
	w.b = append(w.b, m.key[:]...)
	w.u32(uint32(m.nNew))
	w.u32(uint32(m.nTried))
	w.u32(newBucketCount ^ 1<<30)
	// New entries are numbered in the order written; the bucket lists
	// below refer to them by that number.
	pos := make(map[int32]uint32, m.nNew)
	for _, ka := range m.byID {
		if !ka.tried {
			pos[ka.id] = uint32(len(pos))
			w.entry(ka)
		}
	}
	for _, ka := range m.byID {
		if ka.tried {
			w.entry(ka)
		}
	}
	for b := range m.newTbl {
		n := 0
		for _, id := range m.newTbl[b] {
			if id != 0 {
				n++
			}
		}
		w.u32(uint32(n))
		for _, id := range m.newTbl[b] {
			if id != 0 {
				w.u32(pos[id])
			}
		}
	}
	// No asmap: its checksum is all zeros.
	w.b = append(w.b, make([]byte, 32)...)
	return append(w.b, wire.DoubleHashB(w.b)...)
}
