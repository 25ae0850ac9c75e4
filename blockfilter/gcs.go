package blockfilter

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"

	"github.com/btcnode/btcd/wire"
)

// Params are a GCS filter's Golomb-Rice parameter P (bits of each value
// coded verbatim) and its false-positive rate parameter M (1/M is the
// rate).
type Params struct {
	P uint8
	M uint64
}

// BasicParams are the BIP158 basic filter's parameters.
var BasicParams = Params{P: 19, M: 784931}

// maxN is the largest element count: Core rejects N >= 2^32, and it keeps
// N*M within 64 bits for every M below 2^32.
const maxN = math.MaxUint32

func (p Params) valid() bool {
	return p.P >= 1 && p.P <= 32 && p.M >= 1 && p.M <= math.MaxUint32
}

// Key is the SipHash key of a filter: the first 16 bytes of the block hash
// (in its internal byte order).
type Key [16]byte

// KeyFromHash returns the filter key of the block with hash h.
func KeyFromHash(h *wire.Hash) Key { return Key(h[:16]) }

func (k *Key) halves() (uint64, uint64) {
	return binary.LittleEndian.Uint64(k[:8]), binary.LittleEndian.Uint64(k[8:])
}

// hashToRange maps a 64-bit hash uniformly into [0, f) with a multiply
// instead of a division. It is monotonic in h, so sorting hashes sorts the
// mapped values too.
func hashToRange(h, f uint64) uint64 {
	hi, _ := bits.Mul64(h, f)
	return hi
}

// Filter is a parsed GCS filter. Its serialized bytes (CompactSize N, then
// the coded values) were validated by FromBytes or produced by NewFilter,
// so queries cannot fail.
type Filter struct {
	p      Params
	k0, k1 uint64
	n      uint64
	raw    []byte
	data   []byte
}

// N is the number of elements in the filter.
func (f *Filter) N() uint32 { return uint32(f.n) }

// Params returns the filter's parameters.
func (f *Filter) Params() Params { return f.p }

// Bytes returns the serialized filter (CompactSize N || coded values). It
// must not be modified.
func (f *Filter) Bytes() []byte { return f.raw }

// Hash returns sha256d of the serialized filter, the value a cfheaders
// message carries.
func (f *Filter) Hash() wire.Hash { return wire.DoubleHashH(f.raw) }

// Header returns the filter header chained to the previous block's header.
func (f *Filter) Header(prev *wire.Hash) wire.Hash { return FilterHeader(f.raw, prev) }

// FilterHeader returns sha256d(sha256d(filter) || prev), BIP157's filter
// header of a serialized filter given the previous block's filter header
// (zero for the genesis block).
func FilterHeader(filter []byte, prev *wire.Hash) wire.Hash {
	return HeaderFromHash(wire.DoubleHashH(filter), prev)
}

// HeaderFromHash returns sha256d(filterHash || prev), for a filter known
// only by its hash (as in a cfheaders message).
func HeaderFromHash(filterHash wire.Hash, prev *wire.Hash) wire.Hash {
	var buf [2 * wire.HashSize]byte
	copy(buf[:], filterHash[:])
	copy(buf[wire.HashSize:], prev[:])
	return wire.DoubleHashH(buf[:])
}

// FromBytes parses a serialized filter with parameters p and key k. N is
// checked against the bytes present before any work proportional to it,
// and, as Core does, every one of the N values must decode and no whole
// byte may follow the last. raw is retained and must not be modified.
func FromBytes(p Params, k Key, raw []byte) (*Filter, error) {
	if !p.valid() {
		return nil, kinds.New(ErrInvalidArg, "filter parameters P=%d M=%d", p.P, p.M)
	}
	n, used, err := wire.ReadVarInt(raw)
	if err != nil {
		return nil, kinds.Wrap(ErrMalformedFilter, err, "element count")
	}
	data := raw[used:]
	// Every element takes at least P+1 bits (a 0 quotient bit and P bits).
	if n > maxN || n > uint64(len(data))*8/(uint64(p.P)+1) {
		return nil, kinds.New(ErrMalformedFilter, "%d elements cannot fit in %d bytes", n, len(data))
	}
	r := bitReader{data: data}
	for i := range n {
		if _, ok := r.golombRice(uint(p.P)); !ok {
			return nil, kinds.New(ErrMalformedFilter, "data ends in element %d of %d", i, n)
		}
	}
	if r.bytesUsed() != len(data) {
		return nil, kinds.New(ErrMalformedFilter, "%d bytes of excess data", len(data)-r.bytesUsed())
	}
	return newFilter(p, k, n, raw, used), nil
}

func newFilter(p Params, k Key, n uint64, raw []byte, prefix int) *Filter {
	f := &Filter{p: p, n: n, raw: raw, data: raw[prefix:]}
	f.k0, f.k1 = k.halves()
	return f
}

// NewFilter builds the filter of items (duplicates are counted once).
func NewFilter(p Params, k Key, items [][]byte) (*Filter, error) {
	var b Builder
	raw, err := b.AppendFilter(nil, p, k, items)
	if err != nil {
		return nil, err
	}
	n, used, _ := wire.ReadVarInt(raw)
	return newFilter(p, k, n, raw, used), nil
}

// Match reports whether item is (probably) in the filter. False positives
// happen at a rate of about 1/M; false negatives never.
func (f *Filter) Match(item []byte) bool {
	if f.n == 0 {
		return false
	}
	target := hashToRange(wire.SipHash24(f.k0, f.k1, item), f.n*f.p.M)
	r := bitReader{data: f.data}
	var v uint64
	for range f.n {
		d, ok := r.golombRice(uint(f.p.P))
		if !ok {
			return false
		}
		v += d
		if v >= target {
			return v == target
		}
	}
	return false
}

// matchStack is how many query values MatchAny sorts without allocating.
const matchStack = 128

// MatchAny reports whether any of items is (probably) in the filter, in
// one pass over it.
func (f *Filter) MatchAny(items [][]byte) bool {
	if f.n == 0 || len(items) == 0 {
		return false
	}
	var stack [matchStack]uint64
	targets := stack[:0]
	if len(items) > matchStack {
		targets = make([]uint64, 0, len(items))
	}
	fr := f.n * f.p.M
	for _, it := range items {
		targets = append(targets, hashToRange(wire.SipHash24(f.k0, f.k1, it), fr))
	}
	slices.Sort(targets)
	r := bitReader{data: f.data}
	var v uint64
	j := 0
	for range f.n {
		d, ok := r.golombRice(uint(f.p.P))
		if !ok {
			return false
		}
		v += d
		for targets[j] < v {
			j++
			if j == len(targets) {
				return false
			}
		}
		if targets[j] == v {
			return true
		}
	}
	return false
}

// Builder builds filters, reusing its scratch memory from one call to the
// next. The zero value is ready; a Builder must not be used concurrently.
type Builder struct {
	hashes []uint64 // full SipHash of each item, by item index
	keys   []uint64 // sort keys: hash top bits, item index in the low bits
	vals   []uint64 // mapped values of the distinct items, ascending
	tmp    []uint64 // radix sort scratch
	items  [][]byte
	w      bitWriter
}

// AppendFilter appends the serialized filter of items to dst. Identical
// items are counted once; different items whose values collide are both
// kept, as BIP158 requires.
func (b *Builder) AppendFilter(dst []byte, p Params, k Key, items [][]byte) ([]byte, error) {
	if !p.valid() {
		return dst, kinds.New(ErrInvalidArg, "filter parameters P=%d M=%d", p.P, p.M)
	}
	if uint64(len(items)) > 1<<32-1 {
		return dst, kinds.New(ErrInvalidArg, "%d filter elements", len(items))
	}
	k0, k1 := k.halves()
	// Sorting plain uint64s is several times faster than sorting
	// (hash, index) pairs with a comparison function, so the item index
	// replaces the hash's low bits. Equal items still have equal keys
	// above those bits and end up adjacent.
	ib := uint(bits.Len(uint(len(items))))
	hashes, keys := b.hashes[:0], b.keys[:0]
	for i, it := range items {
		h := wire.SipHash24(k0, k1, it)
		hashes = append(hashes, h)
		keys = append(keys, h>>ib<<ib|uint64(i))
	}
	if cap(b.tmp) < len(keys) {
		b.tmp = make([]uint64, len(keys))
	}
	sorted := radixSort(keys, b.tmp[:len(keys)], ib)
	if len(sorted) > 0 && &sorted[0] != &keys[0] {
		// The result landed in the scratch array: swap the roles.
		b.tmp = keys[:cap(keys)]
	}
	keys = sorted
	n := distinct(keys, items, ib)
	fr := uint64(n) * p.M
	vals := b.vals[:0]
	mask := uint64(1)<<ib - 1
	for _, key := range keys {
		if key != dropped {
			vals = append(vals, hashToRange(hashes[key&mask], fr))
		}
	}
	// Hashes that agree above the index bits were ordered by index, so
	// their mapped values (which differ by at most one) may be out of
	// order; insertion sort fixes such rare pairs in linear time.
	insertionSort(vals)

	// Golomb-Rice codes average about P+1.5 bits; grow once up front.
	dst = slices.Grow(dst, 9+n*(int(p.P)+2)/8+8)
	dst = wire.AppendVarInt(dst, uint64(n))
	b.w = bitWriter{buf: dst}
	var last uint64
	for _, v := range vals {
		b.w.golombRice(v-last, uint(p.P))
		last = v
	}
	dst = b.w.flush()
	b.w.buf = nil
	b.hashes, b.keys, b.vals = hashes[:0], keys[:0], vals[:0]
	return dst, nil
}

// dropped marks a key whose item repeats an earlier one. No real key has
// this value: index bits all set would mean an index of 2^ib-1 >= len.
const dropped = ^uint64(0)

// distinct marks keys of repeated items as dropped and returns how many
// remain. Only runs of keys equal above the index bits (almost always a
// repeated script) need their bytes compared.
func distinct(keys []uint64, items [][]byte, ib uint) int {
	mask := uint64(1)<<ib - 1
	n := 0
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j]>>ib == keys[i]>>ib {
			j++
		}
		for a := i; a < j; a++ {
			for c := i; c < a; c++ {
				if keys[c] != dropped && bytes.Equal(items[keys[c]&mask], items[keys[a]&mask]) {
					keys[a] = dropped
					break
				}
			}
			if keys[a] != dropped {
				n++
			}
		}
		i = j
	}
	return n
}

// radixThreshold is the key count below which comparison sorting wins.
const radixThreshold = 256

// radixSort sorts keys by their bits from low up (lower bits are left in
// any order) with an LSD radix sort of 8-bit digits, in time linear in
// len(keys) whatever the keys (SipHash keyed by a block hash a miner
// chooses, so a comparison sort's input is not trusted to be random, and
// radix sorting is also several times faster here). tmp must be as long
// as keys; the result is keys or tmp.
func radixSort(keys, tmp []uint64, low uint) []uint64 {
	if len(keys) < radixThreshold {
		slices.Sort(keys)
		return keys
	}
	const passes = 8
	var counts [passes][256]uint32
	for _, k := range keys {
		k >>= low
		for p := range passes {
			counts[p][byte(k>>(8*p))]++
		}
	}
	src, dst := keys, tmp
	for p := range passes {
		shift := low + uint(8*p)
		if shift >= 64 {
			break
		}
		c := &counts[p]
		if c[byte(src[0]>>shift)] == uint32(len(src)) {
			continue // every key has the same digit
		}
		var sum uint32
		for d := range c {
			c[d], sum = sum, sum+c[d]
		}
		for _, k := range src {
			d := byte(k >> shift)
			dst[c[d]] = k
			c[d]++
		}
		src, dst = dst, src
	}
	return src
}

func insertionSort(v []uint64) {
	for i := 1; i < len(v); i++ {
		x := v[i]
		j := i
		for j > 0 && v[j-1] > x {
			v[j] = v[j-1]
			j--
		}
		v[j] = x
	}
}

// opReturn is OP_RETURN; outputs starting with it are provably unspendable
// and left out of the basic filter.
const opReturn = 0x6a

// basicItem reports whether a script belongs in the basic filter.
func basicItem(script []byte) bool {
	return len(script) > 0 && script[0] != opReturn
}

// AppendBasic appends the serialized basic filter of block to dst.
// prevScripts are the output scripts spent by the block's non-coinbase
// inputs (order does not matter). The scripts are not retained.
func (b *Builder) AppendBasic(dst []byte, block *wire.MsgBlock, prevScripts [][]byte) []byte {
	items := b.items[:0]
	if b.items == nil {
		// First use: size the scratch once instead of growing it.
		n := len(prevScripts)
		for _, tx := range block.Transactions {
			n += len(tx.TxOut)
		}
		items = make([][]byte, 0, n)
		b.hashes = make([]uint64, 0, n)
		b.keys = make([]uint64, 0, n)
		b.vals = make([]uint64, 0, n)
		b.tmp = make([]uint64, n)
	}
	for _, tx := range block.Transactions {
		for i := range tx.TxOut {
			if s := tx.TxOut[i].PkScript; basicItem(s) {
				items = append(items, s)
			}
		}
	}
	for _, s := range prevScripts {
		if basicItem(s) {
			items = append(items, s)
		}
	}
	hash := block.BlockHash()
	// Cannot fail: BasicParams are valid and a block holds far fewer than
	// 2^32 scripts.
	dst, _ = b.AppendFilter(dst, BasicParams, KeyFromHash(&hash), items)
	clear(items)
	b.items = items[:0]
	return dst
}

// BuildBasic returns the basic filter of block given the scripts its
// inputs spend (see Builder.AppendBasic).
func BuildBasic(block *wire.MsgBlock, prevScripts [][]byte) *Filter {
	var b Builder
	raw := b.AppendBasic(nil, block, prevScripts)
	hash := block.BlockHash()
	n, used, _ := wire.ReadVarInt(raw)
	return newFilter(BasicParams, KeyFromHash(&hash), n, raw, used)
}
