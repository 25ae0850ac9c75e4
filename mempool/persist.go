package mempool

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/btcnode/btcd/wire"
)

// This file is the pool's side of mempool.dat (savemempool,
// -persistmempool, importmempool): taking a snapshot in Core's format
// (persist_core.go) and entering a file's transactions as Core's
// LoadMempool does.

// ErrCorruptFile is the kind of every persistence decoding error.
const ErrCorruptFile = ErrorKind("corrupt file")

// MaxMempoolFileBytes bounds the mempool.dat read into memory: a full
// default-size (300 MB) mempool's dump fits several times over.
const MaxMempoolFileBytes = 1 << 30

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorruptFile}, args...)...)
}

// Snapshot returns the pool as a mempool.dat of the configured version
// (Config.PersistV1) with a fresh random key: the transactions parents
// first with their entry times and fee deltas, the deltas of transactions
// not in the pool and the unbroadcast set, all taken under one lock so
// they agree.
func (p *Pool) Snapshot() *MempoolFile {
	f := &MempoolFile{Version: MempoolFileV2}
	if p.cfg.PersistV1 {
		f.Version = MempoolFileV1
	} else {
		rand.Read(f.Key[:]) // never fails: Go aborts instead
	}
	p.mu.RLock()
	entries := make([]*Entry, 0, len(p.byTxID))
	for _, e := range p.byTxID {
		entries = append(entries, e)
	}
	// Sorted under the lock: ancestor counts change as the pool does.
	sortTopological(entries)
	f.Txs = make([]FileTx, len(entries))
	for i, e := range entries {
		f.Txs[i] = FileTx{Tx: e.Tx, Time: e.Time.Unix(), FeeDelta: p.deltas[e.TxID]}
	}
	for id, d := range p.deltas {
		if _, inPool := p.byTxID[id]; !inPool {
			f.Deltas = append(f.Deltas, FeeDelta{TxID: id, Delta: d})
		}
	}
	for id := range p.unbroadcast {
		f.Unbroadcast = append(f.Unbroadcast, id)
	}
	p.mu.RUnlock()
	// In txid byte order, as Core's map and set serialize: the same pool
	// always gives the same file but for the key.
	sort.Slice(f.Deltas, func(i, j int) bool { return bytes.Compare(f.Deltas[i].TxID[:], f.Deltas[j].TxID[:]) < 0 })
	sort.Slice(f.Unbroadcast, func(i, j int) bool { return bytes.Compare(f.Unbroadcast[i][:], f.Unbroadcast[j][:]) < 0 })
	return f
}

// Save writes the pool to w as a mempool.dat (Snapshot).
func (p *Pool) Save(w io.Writer) error {
	b, err := EncodeMempoolFile(p.Snapshot())
	if err != nil {
		return err
	}
	_, err = w.Write(b)
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

// LoadStats reports what a load did, in the terms of Core's log line.
type LoadStats struct {
	Accepted, Failed, Expired, Known int
	// Unbroadcast is the size of the file's unbroadcast set when it was
	// applied.
	Unbroadcast int
}

// LoadOptions choose what of a file a load takes over (importmempool's
// options).
type LoadOptions struct {
	// UseCurrentTime enters the transactions now instead of at the
	// file's entry times.
	UseCurrentTime bool
	// ApplyFeeDeltas adds the file's fee deltas to the pool's.
	ApplyFeeDeltas bool
	// ApplyUnbroadcast puts the file's unbroadcast transactions that
	// entered the pool in its unbroadcast set.
	ApplyUnbroadcast bool
}

// StartupLoadOptions are those of loading mempool.dat at start-up: the
// file is taken over whole.
var StartupLoadOptions = LoadOptions{ApplyFeeDeltas: true, ApplyUnbroadcast: true}

// LoadMempoolFile enters f's transactions as Core's LoadMempool does:
// each transaction's fee delta first (so that it counts towards its
// acceptance, and is kept even when the transaction is refused), the
// transaction itself unless its entry time is past the expiry, then the
// deltas of transactions not in the file's pool and the unbroadcast set.
// Loaded transactions are not announced.
func (p *Pool) LoadMempoolFile(f *MempoolFile, opts LoadOptions) LoadStats {
	var st LoadStats
	now := p.now()
	cutoff := now.Add(-p.cfg.Expiry)
	for _, e := range f.Txs {
		t := now
		if !opts.UseCurrentTime {
			t = unixTime(e.Time)
		}
		txid := e.Tx.TxHash()
		if e.FeeDelta != 0 && opts.ApplyFeeDeltas {
			p.prioritiseLoaded(txid, e.FeeDelta)
		}
		if !t.After(cutoff) {
			st.Expired++
			continue
		}
		p.mu.Lock()
		_, err := p.acceptLocked(e.Tx, AcceptOptions{Time: t})
		p.mu.Unlock()
		switch {
		case err == nil:
			st.Accepted++
		case p.Has(txid):
			st.Known++
		default:
			st.Failed++
		}
	}
	if opts.ApplyFeeDeltas {
		// A txid listed twice counts once, the first time, as Core reads
		// the list into a map.
		seen := make(map[wire.Hash]bool, len(f.Deltas))
		for _, d := range f.Deltas {
			if !seen[d.TxID] {
				seen[d.TxID] = true
				p.prioritiseLoaded(d.TxID, d.Delta)
			}
		}
	}
	if opts.ApplyUnbroadcast {
		st.Unbroadcast = len(f.Unbroadcast)
		for _, txid := range f.Unbroadcast {
			p.AddUnbroadcast(txid) // only a pool transaction joins
		}
	}
	return st
}

// prioritiseLoaded applies a fee delta from a file; one the pool refuses
// is skipped, as the rest of the file still loads.
func (p *Pool) prioritiseLoaded(txid wire.Hash, delta int64) {
	if err := p.PrioritiseTransaction(txid, delta); err != nil {
		log.Debugf("Fee delta of %s from mempool file not applied: %v", txid, err)
	}
}

// unixTime converts a file's entry time, clamping what time.Unix cannot
// represent sensibly.
func unixTime(sec int64) time.Time {
	const maxSec = 1 << 40
	return time.Unix(min(max(sec, 0), maxSec), 0)
}

// ReadMempoolFile reads and decodes the mempool.dat at path.
func ReadMempoolFile(path string) (*MempoolFile, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := readBounded(fh, MaxMempoolFileBytes)
	if err != nil {
		return nil, err
	}
	return DecodeMempoolFile(b)
}

// readBounded reads all of r, refusing more than max bytes.
func readBounded(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("mempool file larger than %d bytes", max)
	}
	return b, nil
}

// SaveFile writes the pool to path atomically: to a temporary name that
// is then renamed, so a crash leaves either the old or the new file.
func (p *Pool) SaveFile(path string) error {
	var buf bytes.Buffer
	if err := p.Save(&buf); err != nil {
		return err
	}
	return writeFileAtomic(path, buf.Bytes())
}

// LoadFile loads path with StartupLoadOptions; a missing file is not an
// error.
func (p *Pool) LoadFile(path string) (LoadStats, error) {
	f, err := ReadMempoolFile(path)
	if os.IsNotExist(err) {
		return LoadStats{}, nil
	}
	if err != nil {
		return LoadStats{}, err
	}
	return p.LoadMempoolFile(f, StartupLoadOptions), nil
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
