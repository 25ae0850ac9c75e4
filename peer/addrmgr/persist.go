package addrmgr

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/btcnode/btcd/peer/internal/atomicfile"
	"github.com/btcnode/btcd/wire"
)

// FileName is the name of the address file in the data directory, in
// Bitcoin Core's format (peersdat.go).
const FileName = "peers.dat"

// DumpInterval is how often Start saves the tables (Core's
// DUMP_PEERS_INTERVAL).
const DumpInterval = 15 * time.Minute

// maxFileSize bounds the file read at start-up; full tables take about
// 7 MB.
const maxFileSize = 64 << 20

func peersPath(dir string) string { return filepath.Join(dir, FileName) }

func unixOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

func timeOrZero(s int64) time.Time {
	if s <= 0 {
		return time.Time{}
	}
	return time.Unix(s, 0)
}

// quotePath quotes a path as C++'s std::quoted does, which is how
// bitcoind names files in its messages.
func quotePath(p string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(p) + `"`
}

// corruptFileError is an unreadable peers.dat. As bitcoind, the node
// refuses to start with it rather than silently forget the addresses;
// the text is bitcoind's start-up error.
type corruptFileError struct {
	path, reason, bugReport string
}

func (e *corruptFileError) Error() string {
	return fmt.Sprintf("Invalid or corrupt peers.dat (%s). If you believe this is a bug, please report it to %s. "+
		"As a workaround, you can move the file (%s) out of the way (rename, move, or delete) to have a new one created on the next start.",
		e.reason, e.bugReport, quotePath(e.path))
}

func (e *corruptFileError) Unwrap() error { return ErrCorruptFile }

// Save writes the tables to peers.dat.
func (m *Manager) Save() error {
	if m.path == "" {
		return nil
	}
	start := time.Now()
	m.mu.Lock()
	b := m.encodePeersDatLocked(m.cfg.Net)
	n := len(m.index)
	m.mu.Unlock()
	if err := atomicfile.Write(m.path, b); err != nil {
		return err
	}
	log.Debugf("Flushed %d addresses to peers.dat  %dms", n, time.Since(start).Milliseconds())
	return nil
}

func (m *Manager) saveLogged() {
	if err := m.Save(); err != nil {
		log.Errorf("Saving %s: %v", m.path, err)
	}
}

// load reads peers.dat as bitcoind's LoadAddrman does: a missing file is
// created, one written for a newer version is set aside as peers.dat.bak
// and replaced, and any other failure is a start-up error.
func (m *Manager) load() error {
	start := time.Now()
	log.Infof("Loading P2P addresses from %s", quotePath(m.path))
	b, err := readLimited(m.path)
	if errors.Is(err, os.ErrNotExist) {
		log.Infof("Creating peers.dat because the file was not found (%s)", quotePath(m.path))
		m.saveLogged()
		return nil
	}
	if err == nil {
		err = m.loadBytes(b)
	}
	if errors.Is(err, errVersion) {
		if err := os.Rename(m.path, m.path+".bak"); err != nil {
			return errors.New("Failed to rename invalid peers.dat file. Please move or delete it and try again.")
		}
		m.reset()
		log.Infof("Creating new peers.dat because the file version was not compatible (%s). Original backed up to peers.dat.bak", quotePath(m.path))
		m.saveLogged()
		return nil
	}
	if err != nil {
		bug := m.cfg.BugReport
		if bug == "" {
			bug = "none"
		}
		return &corruptFileError{path: m.path, reason: err.Error(), bugReport: bug}
	}
	log.Infof("Loaded %d addresses from peers.dat  %dms", m.Size(), time.Since(start).Milliseconds())
	return nil
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFileSize {
		return nil, fmt.Errorf("larger than %d bytes", maxFileSize)
	}
	return b, nil
}

// loadBytes replaces the tables with the contents of a peers.dat file.
// Entries are placed by this node's own bucketing (as bitcoind re-buckets
// a file whose placement it cannot reuse); unusable entries and ones that
// collide are dropped.
func (m *Manager) loadBytes(b []byte) error {
	f, err := decodePeersDat(b, m.cfg.Net)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.key = f.key
	// Tried entries first, so they keep their place.
	for _, e := range f.tried {
		m.place(&e, true)
	}
	for _, e := range f.new {
		m.place(&e, false)
	}
	return nil
}

// place inserts a loaded entry into its slot if the slot is free.
func (m *Manager) place(e *datEntry, tried bool) {
	k := e.key
	if !e.valid || !isRoutable(&k) || m.index[k] != nil {
		return
	}
	if tried {
		b := m.triedBucket(&k)
		pos := m.bucketPos(false, b, &k)
		if m.tried[b][pos] == 0 {
			ka := m.create(k, e.src, wire.ServiceFlag(e.services), e.time)
			m.fill(ka, e)
			m.nNew--
			m.nTried++
			ka.tried = true
			m.tried[b][pos] = ka.id
			return
		}
	}
	b := m.newBucket(&k, &e.src)
	pos := m.bucketPos(true, b, &k)
	if m.newTbl[b][pos] != 0 {
		return
	}
	ka := m.create(k, e.src, wire.ServiceFlag(e.services), e.time)
	m.fill(ka, e)
	m.newTbl[b][pos] = ka.id
	ka.refs = 1
	ka.slots = []uint32{uint32(b*bucketSize + pos)}
}

func (m *Manager) fill(ka *knownAddress, e *datEntry) {
	ka.attempts = max(int(e.attempts), 0)
	ka.lastSuccess = timeOrZero(e.lastSuccess)
}

// Start saves the tables every DumpInterval until Stop.
func (m *Manager) Start() {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(DumpInterval)
		defer t.Stop()
		for {
			select {
			case <-m.quit:
				return
			case <-t.C:
				m.saveLogged()
			}
		}
	}()
}

// Stop ends the periodic saving and saves once more.
func (m *Manager) Stop() error {
	m.once.Do(func() { close(m.quit) })
	m.wg.Wait()
	return m.Save()
}
