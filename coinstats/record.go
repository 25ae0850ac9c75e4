package coinstats

import (
	"encoding/binary"

	"github.com/btcnode/btcd/wire"
)

// MaxMoney bounds every amount a record holds: no sum of outputs, spent
// coins or subsidies can exceed the 21 million BTC that will ever exist.
const MaxMoney = 21_000_000 * 100_000_000

// bogoPerCoin is Core's GetBogoSize without the script (txid 32, index 4,
// height and coinbase flag 4, amount 8, script length 2).
const bogoPerCoin = 32 + 4 + 4 + 8 + 2

// maxScriptBogo is the largest script a UTXO can hold (longer ones are
// unspendable and never enter the set).
const maxScriptBogo = 10000

// Unspendables splits the amounts that left circulation for good by cause.
type Unspendables struct {
	// GenesisBlock is the genesis coinbase, which was never spendable.
	GenesisBlock int64
	// BIP30 is the subsidy of the two mainnet coinbases a later duplicate
	// overwrote (blocks 91722 and 91812).
	BIP30 int64
	// Scripts is the value sent to provably unspendable scripts (OP_RETURN
	// or longer than 10,000 bytes).
	Scripts int64
	// UnclaimedRewards is subsidy and fees a miner did not claim.
	UnclaimedRewards int64
}

// Total is the sum of all causes.
func (u Unspendables) Total() int64 {
	return u.GenesisBlock + u.BIP30 + u.Scripts + u.UnclaimedRewards
}

func (u Unspendables) add(o Unspendables) Unspendables {
	return Unspendables{u.GenesisBlock + o.GenesisBlock, u.BIP30 + o.BIP30,
		u.Scripts + o.Scripts, u.UnclaimedRewards + o.UnclaimedRewards}
}

// BlockStats is what one block changed.
type BlockStats struct {
	// PrevoutSpent is the value of the coins the block's inputs spent.
	PrevoutSpent int64
	// Coinbase is the value of the coinbase's spendable outputs.
	Coinbase int64
	// NewOutputsExCoinbase is the value of the other transactions'
	// spendable outputs.
	NewOutputsExCoinbase int64
	// Unspendables is what the block took out of circulation.
	Unspendables Unspendables
}

// Stats is the index's record of a block: the UTXO set after it and what
// the block itself changed (gettxoutsetinfo's block_info).
type Stats struct {
	Hash   wire.Hash
	Height int32
	// MuHash is the MuHash3072 digest of the UTXO set, in the byte order
	// muhash.Finalize returns (String prints it as Core does).
	MuHash wire.Hash
	// TxOuts is the number of unspent outputs.
	TxOuts uint64
	// BogoSize is Core's database-independent size metric.
	BogoSize uint64
	// TotalAmount is the value of the unspent outputs.
	TotalAmount int64
	// TotalSubsidy is the subsidy of every block up to this one.
	TotalSubsidy int64
	// Unspendables are the totals up to and including this block.
	Unspendables Unspendables
	// Block is this block's own contribution.
	Block BlockStats
}

// numAmounts is the number of amount fields in a record.
const numAmounts = 13

// recordLen is the size of an encoded Stats: hash, height, digest, two
// counters and the amounts.
const recordLen = 32 + 4 + 32 + 2*8 + numAmounts*8

// maxTxOuts keeps the bogosize bounds below from overflowing; no UTXO set
// comes near it.
const maxTxOuts = 1 << 48

// encodeRecord appends the fixed-size record of st. Every field has a
// fixed width, so a value of the wrong size is detected before any field
// is read.
func encodeRecord(dst []byte, st *Stats) []byte {
	dst = append(dst, st.Hash[:]...)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(st.Height))
	dst = append(dst, st.MuHash[:]...)
	dst = binary.LittleEndian.AppendUint64(dst, st.TxOuts)
	dst = binary.LittleEndian.AppendUint64(dst, st.BogoSize)
	for _, v := range st.amounts() {
		dst = binary.LittleEndian.AppendUint64(dst, uint64(*v))
	}
	return dst
}

// amounts lists the amount fields in their encoded order.
func (st *Stats) amounts() [numAmounts]*int64 {
	return [numAmounts]*int64{
		&st.TotalAmount, &st.TotalSubsidy,
		&st.Unspendables.GenesisBlock, &st.Unspendables.BIP30,
		&st.Unspendables.Scripts, &st.Unspendables.UnclaimedRewards,
		&st.Block.PrevoutSpent, &st.Block.Coinbase, &st.Block.NewOutputsExCoinbase,
		&st.Block.Unspendables.GenesisBlock, &st.Block.Unspendables.BIP30,
		&st.Block.Unspendables.Scripts, &st.Block.Unspendables.UnclaimedRewards,
	}
}

// DecodeRecord parses a stored record. The value comes from disk and is
// not trusted: its size must be exact, the height non-negative, every
// amount within MaxMoney, the output count and bogosize consistent with
// each other and the block's unspendables within the totals. Failures are
// ErrCorrupt.
func DecodeRecord(v []byte) (Stats, error) {
	var st Stats
	if len(v) != recordLen {
		return st, kinds.New(ErrCorrupt, "record of %d bytes, want %d", len(v), recordLen)
	}
	copy(st.Hash[:], v[:32])
	h := binary.LittleEndian.Uint32(v[32:])
	if h > 1<<31-1 {
		return st, kinds.New(ErrCorrupt, "record of block %v: height %d", st.Hash, h)
	}
	st.Height = int32(h)
	copy(st.MuHash[:], v[36:68])
	st.TxOuts = binary.LittleEndian.Uint64(v[68:])
	st.BogoSize = binary.LittleEndian.Uint64(v[76:])
	off := 84
	for _, p := range st.amounts() {
		a := binary.LittleEndian.Uint64(v[off:])
		if a > MaxMoney {
			return st, kinds.New(ErrCorrupt, "record of block %v: amount %d out of range", st.Hash, a)
		}
		*p = int64(a)
		off += 8
	}
	if st.TxOuts > maxTxOuts ||
		st.BogoSize < bogoPerCoin*st.TxOuts || st.BogoSize > (bogoPerCoin+maxScriptBogo)*st.TxOuts {
		return st, kinds.New(ErrCorrupt, "record of block %v: bogosize %d for %d outputs", st.Hash, st.BogoSize, st.TxOuts)
	}
	u, b := st.Unspendables, st.Block.Unspendables
	if b.GenesisBlock > u.GenesisBlock || b.BIP30 > u.BIP30 || b.Scripts > u.Scripts ||
		b.UnclaimedRewards > u.UnclaimedRewards || u.Total() > MaxMoney {
		return st, kinds.New(ErrCorrupt, "record of block %v: unspendable amounts inconsistent", st.Hash)
	}
	return st, nil
}
