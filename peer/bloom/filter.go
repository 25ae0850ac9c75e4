// Package bloom holds BIP37 bloom filters as a node keeps them for a peer
// that loaded one: the filter itself (insert, match, the update rules that
// add matched outputs) and the filtered block (merkleblock) built from it.
package bloom

import (
	"encoding/binary"
	"math"
	"sync"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

const (
	// seedStep separates the seeds of the filter's hash functions
	// (BIP37: seed of function i is i * 0xFBA4C795 + tweak).
	seedStep = 0xFBA4C795
	// updateMask selects the update mode bits of the flags byte.
	updateMask = 3

	ln2        = 0.6931471805599453094172321214581765680755001343602552
	ln2Squared = ln2 * ln2
)

// Filter is one peer's BIP37 filter. All methods are safe for concurrent
// use: relay (other goroutines) matches and, with an update mode, inserts
// outpoints while the peer's reader may add elements.
type Filter struct {
	mu        sync.Mutex
	data      []byte
	hashFuncs uint32
	tweak     uint32
	flags     wire.BloomUpdateType
}

// Load returns the filter a filterload message installs. The message
// should have passed WithinSizeConstraints: Load copies the bit field
// whatever its size.
func Load(m *wire.MsgFilterLoad) *Filter {
	return &Filter{
		data:      append([]byte(nil), m.Filter...),
		hashFuncs: m.HashFuncs,
		tweak:     m.Tweak,
		flags:     m.Flags,
	}
}

// New returns an empty filter sized, with BIP37's formulas, for elements
// entries at the false positive rate fpRate, capped at the protocol's
// limits. It is what a light client would load.
func New(elements uint32, fpRate float64, tweak uint32, flags wire.BloomUpdateType) *Filter {
	elements = max(elements, 1)
	bitsWanted := -1 / ln2Squared * float64(elements) * math.Log(fpRate)
	nbits := uint64(wire.MaxFilterLoadFilterSize * 8)
	if bitsWanted >= 0 && bitsWanted < float64(nbits) {
		nbits = uint64(bitsWanted)
	}
	size := nbits / 8
	// BIP37 divides the bit count by the element count before scaling.
	funcs := min(uint64(float64(size*8/uint64(elements))*ln2), wire.MaxFilterLoadHashFuncs)
	return &Filter{data: make([]byte, size), hashFuncs: uint32(funcs), tweak: tweak, flags: flags}
}

// MsgFilterLoad returns the filterload message that installs a copy of f.
func (f *Filter) MsgFilterLoad() *wire.MsgFilterLoad {
	f.mu.Lock()
	defer f.mu.Unlock()
	return &wire.MsgFilterLoad{
		Filter:    append([]byte(nil), f.data...),
		HashFuncs: f.hashFuncs,
		Tweak:     f.tweak,
		Flags:     f.flags,
	}
}

// bit returns the position function i gives data.
func (f *Filter) bit(i uint32, data []byte) uint32 {
	return murmur3(i*seedStep+f.tweak, data) % uint32(len(f.data)*8)
}

func (f *Filter) insertLocked(data []byte) {
	// An empty bit field matches everything and takes nothing; guarding
	// it also avoids the division by zero of CVE-2013-5700.
	if len(f.data) == 0 {
		return
	}
	for i := range f.hashFuncs {
		n := f.bit(i, data)
		f.data[n>>3] |= 1 << (n & 7)
	}
}

func (f *Filter) containsLocked(data []byte) bool {
	if len(f.data) == 0 {
		return true
	}
	for i := range f.hashFuncs {
		n := f.bit(i, data)
		if f.data[n>>3]&(1<<(n&7)) == 0 {
			return false
		}
	}
	return true
}

// outPointKey is an outpoint as the filter hashes it: the txid then the
// output index, little-endian.
func outPointKey(op *wire.OutPoint) [wire.HashSize + 4]byte {
	var k [wire.HashSize + 4]byte
	copy(k[:], op.Hash[:])
	binary.LittleEndian.PutUint32(k[wire.HashSize:], op.Index)
	return k
}

// Add inserts an element (a filteradd).
func (f *Filter) Add(data []byte) {
	f.mu.Lock()
	f.insertLocked(data)
	f.mu.Unlock()
}

// AddOutPoint inserts an outpoint.
func (f *Filter) AddOutPoint(op *wire.OutPoint) {
	k := outPointKey(op)
	f.Add(k[:])
}

// Matches reports whether data may be in the filter.
func (f *Filter) Matches(data []byte) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.containsLocked(data)
}

// MatchesOutPoint reports whether op may be in the filter.
func (f *Filter) MatchesOutPoint(op *wire.OutPoint) bool {
	k := outPointKey(op)
	return f.Matches(k[:])
}

// MatchTxAndUpdate reports whether tx is relevant to the filter, with
// BIP37's rules: its txid, a data push of an output script, a spent
// outpoint or a data push of an input script matches. An output that
// matches is inserted as an outpoint when the filter's update mode asks
// for it (all outputs, or only pay-to-pubkey and bare multisig ones), so
// the filter also catches the transactions that later spend it.
func (f *Filter) MatchTxAndUpdate(tx *wire.MsgTx) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	txid := tx.TxHash()
	found := f.containsLocked(txid[:])
	for i := range tx.TxOut {
		script := tx.TxOut[i].PkScript
		t := txscript.MakeScriptTokenizer(script)
		for t.Next() {
			d := t.Data()
			if len(d) == 0 || !f.containsLocked(d) {
				continue
			}
			found = true
			switch f.flags & updateMask {
			case wire.BloomUpdateAll:
				k := outPointKey(&wire.OutPoint{Hash: txid, Index: uint32(i)})
				f.insertLocked(k[:])
			case wire.BloomUpdateP2PubkeyOnly:
				if c := txscript.GetScriptClass(script); c == txscript.PubKeyTy || c == txscript.MultiSigTy {
					k := outPointKey(&wire.OutPoint{Hash: txid, Index: uint32(i)})
					f.insertLocked(k[:])
				}
			}
			// One matching push per output is enough.
			break
		}
	}
	if found {
		return true
	}
	for i := range tx.TxIn {
		in := &tx.TxIn[i]
		k := outPointKey(&in.PreviousOutPoint)
		if f.containsLocked(k[:]) {
			return true
		}
		t := txscript.MakeScriptTokenizer(in.SignatureScript)
		for t.Next() {
			if d := t.Data(); len(d) != 0 && f.containsLocked(d) {
				return true
			}
		}
	}
	return false
}
