package addrmgr

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/btcnode/btcd/peer/internal/atomicfile"
	"github.com/btcnode/btcd/wire"
)

// FileName is the name of the address file in the data directory.
const FileName = "peers.json"

// DumpInterval is how often Start saves the tables (Core's
// DUMP_PEERS_INTERVAL).
const DumpInterval = 15 * time.Minute

const (
	fileVersion = 1
	// maxFileSize bounds peers.json; a full table is about 20 MB.
	maxFileSize = 64 << 20
	maxEntries  = newBucketCount*bucketSize + triedBucketCount*bucketSize
)

func peersPath(dir string) string { return filepath.Join(dir, FileName) }

type fileAddr struct {
	Net         uint8  `json:"net"`
	Addr        string `json:"addr"` // hex of the raw address bytes
	Port        uint16 `json:"port"`
	Services    uint64 `json:"services"`
	Time        uint32 `json:"time"`
	SrcNet      uint8  `json:"src_net"`
	SrcAddr     string `json:"src_addr"`
	Attempts    int    `json:"attempts,omitempty"`
	LastAttempt int64  `json:"last_attempt,omitempty"`
	LastSuccess int64  `json:"last_success,omitempty"`
	Tried       bool   `json:"tried,omitempty"`
}

type fileContents struct {
	Version   int        `json:"version"`
	Key       string     `json:"key"`
	Addresses []fileAddr `json:"addresses"`
}

func encodeKey(k *addrKey) (uint8, string) {
	return uint8(k.net), hex.EncodeToString(k.addr[:k.addrLen()])
}

func decodeKey(netID uint8, s string, port uint16) (addrKey, bool) {
	k := addrKey{net: wire.NetworkID(netID), port: port}
	n := k.addrLen()
	if n == 0 || hex.DecodedLen(len(s)) != n {
		return k, false
	}
	if _, err := hex.Decode(k.addr[:n], []byte(s)); err != nil {
		return k, false
	}
	return k, true
}

func unixOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

func timeOrZero(s int64) time.Time {
	if s == 0 {
		return time.Time{}
	}
	return time.Unix(s, 0)
}

// Save writes the tables to peers.json.
func (m *Manager) Save() error {
	if m.path == "" {
		return nil
	}
	m.mu.Lock()
	fc := fileContents{Version: fileVersion, Key: hex.EncodeToString(m.key[:]),
		Addresses: make([]fileAddr, 0, len(m.index))}
	for _, ka := range m.index {
		fa := fileAddr{Port: ka.key.port, Services: uint64(ka.services), Time: ka.timestamp,
			Attempts: ka.attempts, LastAttempt: unixOrZero(ka.lastAttempt),
			LastSuccess: unixOrZero(ka.lastSuccess), Tried: ka.tried}
		fa.Net, fa.Addr = encodeKey(&ka.key)
		fa.SrcNet, fa.SrcAddr = encodeKey(&ka.src)
		fc.Addresses = append(fc.Addresses, fa)
	}
	m.mu.Unlock()
	b, err := json.Marshal(&fc)
	if err != nil {
		return err
	}
	return atomicfile.Write(m.path, b)
}

func (m *Manager) load() error {
	f, err := os.Open(m.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return err
	}
	return m.loadBytes(b)
}

// loadBytes replaces the tables with the contents of a peers.json file.
// Entries are placed by recomputing their buckets, so a file from an older
// table geometry still loads; entries that collide are dropped.
func (m *Manager) loadBytes(b []byte) error {
	if len(b) > maxFileSize {
		return fmt.Errorf("%w: larger than %d bytes", ErrCorruptFile, maxFileSize)
	}
	var fc fileContents
	if err := json.Unmarshal(b, &fc); err != nil {
		return fmt.Errorf("%w: %v", ErrCorruptFile, err)
	}
	if fc.Version != fileVersion {
		return fmt.Errorf("%w: version %d", ErrCorruptFile, fc.Version)
	}
	key, err := hex.DecodeString(fc.Key)
	if err != nil || len(key) != len(m.key) {
		return fmt.Errorf("%w: bad key", ErrCorruptFile)
	}
	if len(fc.Addresses) > maxEntries {
		return fmt.Errorf("%w: %d entries", ErrCorruptFile, len(fc.Addresses))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	copy(m.key[:], key)
	// Tried entries first, so they keep their place.
	for pass := range 2 {
		for i := range fc.Addresses {
			fa := &fc.Addresses[i]
			if fa.Tried != (pass == 0) {
				continue
			}
			k, ok := decodeKey(fa.Net, fa.Addr, fa.Port)
			src, ok2 := decodeKey(fa.SrcNet, fa.SrcAddr, 0)
			if !ok || !ok2 || !isRoutable(&k) || m.index[k] != nil {
				continue
			}
			m.place(k, src, fa)
		}
	}
	log.Infof("Loaded %d addresses (%d new, %d tried) from %s", len(m.index), m.nNew, m.nTried, m.path)
	return nil
}

// place inserts a loaded entry into its slot if the slot is free.
func (m *Manager) place(k, src addrKey, fa *fileAddr) {
	if fa.Tried {
		b := m.triedBucket(&k)
		pos := m.bucketPos(false, b, &k)
		if m.tried[b][pos] == 0 {
			ka := m.create(k, src, wire.ServiceFlag(fa.Services), fa.Time)
			m.fill(ka, fa)
			m.nNew--
			m.nTried++
			ka.tried = true
			m.tried[b][pos] = ka.id
			return
		}
	}
	b := m.newBucket(&k, &src)
	pos := m.bucketPos(true, b, &k)
	if m.newTbl[b][pos] != 0 {
		return
	}
	ka := m.create(k, src, wire.ServiceFlag(fa.Services), fa.Time)
	m.fill(ka, fa)
	m.newTbl[b][pos] = ka.id
	ka.refs = 1
	ka.slots = []uint32{uint32(b*bucketSize + pos)}
}

func (m *Manager) fill(ka *knownAddress, fa *fileAddr) {
	ka.attempts = max(fa.Attempts, 0)
	ka.lastAttempt = timeOrZero(fa.LastAttempt)
	ka.lastSuccess = timeOrZero(fa.LastSuccess)
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
				if err := m.Save(); err != nil {
					log.Errorf("Saving %s: %v", m.path, err)
				}
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
