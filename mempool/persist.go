package mempool

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/btcnode/btcd/wire"
)

// ErrCorruptFile is the kind of every persistence decoding error.
const ErrCorruptFile = ErrorKind("corrupt file")

// mempool.dat format (our own, version 2), all integers little-endian:
//
//	magic   "BNMP"            4 bytes
//	version 0x02              1 byte
//	saved   int64             Unix time of the save
//	count   varint            number of transactions
//	count × { time int64 (Unix entry time), flags byte, size varint, tx (BIP144 serialization, size bytes) }
//
// flags bit 0 marks a transaction of the unbroadcast set; other bits must
// be zero. Version 1 files (records without the flags byte) still load.
// The file is written to a temporary name and renamed, so a crash leaves
// either the old or the new file.
const (
	mempoolMagic     = "BNMP"
	mempoolVersion   = 2
	maxMempoolTxSize = wire.MaxBlockSerializedSize
	// savedUnbroadcast is the record flag of an unbroadcast transaction.
	savedUnbroadcast = 1
)

// SavedTx is one transaction of a mempool.dat file.
type SavedTx struct {
	Tx   *wire.MsgTx
	Time time.Time
	// Unbroadcast marks a locally submitted transaction no peer had
	// requested when the file was written.
	Unbroadcast bool
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorruptFile}, args...)...)
}

// EncodeMempool serializes txs in the mempool.dat format.
func EncodeMempool(txs []SavedTx, saved time.Time) []byte {
	b := append([]byte(mempoolMagic), mempoolVersion)
	b = binary.LittleEndian.AppendUint64(b, uint64(saved.Unix()))
	b = wire.AppendVarInt(b, uint64(len(txs)))
	for _, s := range txs {
		b = binary.LittleEndian.AppendUint64(b, uint64(s.Time.Unix()))
		var flags byte
		if s.Unbroadcast {
			flags |= savedUnbroadcast
		}
		b = append(b, flags)
		b = wire.AppendVarInt(b, uint64(s.Tx.SerializeSize()))
		b = s.Tx.AppendTo(b, true)
	}
	return b
}

// DecodeMempool parses a mempool.dat file. Every count is checked against
// the bytes left before anything is allocated.
func DecodeMempool(b []byte) ([]SavedTx, time.Time, error) {
	if len(b) < len(mempoolMagic)+1+8 || string(b[:4]) != mempoolMagic {
		return nil, time.Time{}, corrupt("bad mempool file header")
	}
	version := b[4]
	if version != 1 && version != mempoolVersion {
		return nil, time.Time{}, corrupt("unknown mempool file version %d", version)
	}
	saved := time.Unix(int64(binary.LittleEndian.Uint64(b[5:13])), 0)
	b = b[13:]
	count, n, err := wire.ReadVarInt(b)
	if err != nil {
		return nil, saved, corrupt("count: %v", err)
	}
	b = b[n:]
	const minRecord = 8 + 1 + wire.MinTxSize
	if count > uint64(len(b)/minRecord) {
		return nil, saved, corrupt("count %d exceeds file size", count)
	}
	out := make([]SavedTx, 0, count)
	for i := uint64(0); i < count; i++ {
		if len(b) < 8 {
			return nil, saved, corrupt("truncated record %d", i)
		}
		t := time.Unix(int64(binary.LittleEndian.Uint64(b)), 0)
		b = b[8:]
		var flags byte
		if version >= 2 {
			if len(b) < 1 {
				return nil, saved, corrupt("truncated record %d", i)
			}
			flags, b = b[0], b[1:]
			if flags&^savedUnbroadcast != 0 {
				return nil, saved, corrupt("record %d: unknown flags %#x", i, flags)
			}
		}
		size, n, err := wire.ReadVarInt(b)
		if err != nil {
			return nil, saved, corrupt("record %d size: %v", i, err)
		}
		b = b[n:]
		if size > maxMempoolTxSize || size > uint64(len(b)) {
			return nil, saved, corrupt("record %d size %d out of range", i, size)
		}
		tx := new(wire.MsgTx)
		used, err := tx.Decode(b[:size])
		if err != nil {
			return nil, saved, corrupt("record %d: %v", i, err)
		}
		if uint64(used) != size {
			return nil, saved, corrupt("record %d: %d trailing bytes", i, size-uint64(used))
		}
		b = b[size:]
		out = append(out, SavedTx{Tx: tx, Time: t, Unbroadcast: flags&savedUnbroadcast != 0})
	}
	if len(b) != 0 {
		return nil, saved, corrupt("%d trailing bytes", len(b))
	}
	return out, saved, nil
}

// Save writes the pool to w, parents before children.
func (p *Pool) Save(w io.Writer) error {
	p.mu.RLock()
	entries := make([]*Entry, 0, len(p.byTxID))
	for _, e := range p.byTxID {
		entries = append(entries, e)
	}
	p.mu.RUnlock()
	sortTopological(entries)
	unbroadcast := make(map[wire.Hash]bool)
	for _, txid := range p.unbroadcastIDs() {
		unbroadcast[txid] = true
	}
	txs := make([]SavedTx, len(entries))
	for i, e := range entries {
		txs[i] = SavedTx{Tx: e.Tx, Time: e.Time, Unbroadcast: unbroadcast[e.TxID]}
	}
	_, err := w.Write(EncodeMempool(txs, p.now()))
	return err
}

// sortTopological orders entries by ancestor count, which puts every
// parent before its children.
func sortTopological(es []*Entry) {
	sort.Slice(es, func(i, j int) bool {
		if es[i].AncCount != es[j].AncCount {
			return es[i].AncCount < es[j].AncCount
		}
		return es[i].Time.Before(es[j].Time)
	})
}

// LoadStats reports what Load did.
type LoadStats struct {
	Accepted, Failed, Expired, Known int
}

// Load reads a mempool.dat stream and submits each transaction with its
// original entry time; transactions older than the expiry are skipped.
func (p *Pool) Load(r io.Reader) (LoadStats, error) {
	var st LoadStats
	b, err := io.ReadAll(r)
	if err != nil {
		return st, err
	}
	txs, _, err := DecodeMempool(b)
	if err != nil {
		return st, err
	}
	cutoff := p.now().Add(-p.cfg.Expiry)
	var accepted []*Entry
	for _, s := range txs {
		if s.Time.Before(cutoff) {
			st.Expired++
			continue
		}
		p.mu.Lock()
		res, err := p.acceptLocked(s.Tx, AcceptOptions{Time: s.Time})
		p.mu.Unlock()
		switch {
		case err == nil:
			st.Accepted++
			accepted = append(accepted, res.Entry)
		case isAlreadyHave(err):
			st.Known++
		default:
			st.Failed++
		}
		if s.Unbroadcast {
			p.AddUnbroadcast(s.Tx.TxHash())
		}
	}
	_ = accepted // loaded transactions are not announced, as in Core
	return st, nil
}

func isAlreadyHave(err error) bool {
	re, ok := err.(*RejectError)
	return ok && (re.Reason == ReasonAlreadyInMempool || re.Reason == ReasonSameNonWitness)
}

// SaveFile writes the pool to path atomically.
func (p *Pool) SaveFile(path string) error {
	var buf bytes.Buffer
	if err := p.Save(&buf); err != nil {
		return err
	}
	return writeFileAtomic(path, buf.Bytes())
}

// LoadFile loads path; a missing file is not an error.
func (p *Pool) LoadFile(path string) (LoadStats, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return LoadStats{}, nil
	}
	if err != nil {
		return LoadStats{}, err
	}
	defer f.Close()
	return p.Load(f)
}

func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".new"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
