package addrmgr

import (
	"errors"

	"github.com/btcnode/btcd/wire"
)

// checkInvariants verifies the table bookkeeping (-checkaddrman, and
// tests).
func (m *Manager) checkInvariants() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	refs := make(map[int32]int)
	for b := range m.newTbl {
		for pos, id := range m.newTbl[b] {
			if id == 0 {
				continue
			}
			ka := m.byID[id]
			if ka == nil || ka.tried {
				return errors.New("new slot holds a missing or tried entry")
			}
			if m.bucketPos(true, b, &ka.key) != pos {
				return errors.New("new entry in the wrong position")
			}
			refs[id]++
		}
	}
	nTried := 0
	for b := range m.tried {
		for pos, id := range m.tried[b] {
			if id == 0 {
				continue
			}
			ka := m.byID[id]
			if ka == nil || !ka.tried || m.triedBucket(&ka.key) != b || m.bucketPos(false, b, &ka.key) != pos {
				return errors.New("tried slot inconsistent")
			}
			nTried++
		}
	}
	nNew := 0
	for id, ka := range m.byID {
		if ka.tried {
			continue
		}
		nNew++
		if refs[id] != ka.refs || len(ka.slots) != ka.refs || ka.refs == 0 {
			return errors.New("reference count mismatch")
		}
	}
	if nNew != m.nNew || nTried != m.nTried || len(m.index) != len(m.byID) || len(m.index) != nNew+nTried {
		return errors.New("counts mismatch")
	}
	return nil
}

// maybeCheck runs the consistency check on every Config.CheckRatio-th
// operation, logging as Core's -checkaddrman does. A failure is logged
// as an error: the tables are repaired by nothing but a restart.
func (m *Manager) maybeCheck() {
	if m.cfg.CheckRatio <= 0 || m.ops.Add(1)%uint64(m.cfg.CheckRatio) != 0 {
		return
	}
	nNew, nTried := m.Counts()
	log.Debugf("CheckAddrman: new %d, tried %d, total %d started", nNew, nTried, nNew+nTried)
	if err := m.checkInvariants(); err != nil {
		log.Errorf("ADDRMAN CONSISTENCY CHECK FAILED!!! err=%v", err)
		return
	}
	log.Debugf("CheckAddrman: completed")
}

// Slot is one occupied table position, as getrawaddrman lists them.
type Slot struct {
	Tried            bool
	Bucket, Position int
	Addr             wire.NetAddressV2 // with services and last-seen time
	Source           wire.NetAddressV2
}

// Slots lists every occupied position of the new and tried tables; an
// address in several new buckets appears once per bucket.
func (m *Manager) Slots() []Slot {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Slot
	add := func(tried bool, b, pos int, id int32) {
		ka := m.byID[id]
		if ka == nil {
			return
		}
		na := ka.key.netAddress()
		na.Services, na.Timestamp = ka.services, ka.timestamp
		out = append(out, Slot{Tried: tried, Bucket: b, Position: pos, Addr: na, Source: ka.src.netAddress()})
	}
	for b := range m.newTbl {
		for pos, id := range m.newTbl[b] {
			if id != 0 {
				add(false, b, pos, id)
			}
		}
	}
	for b := range m.tried {
		for pos, id := range m.tried[b] {
			if id != 0 {
				add(true, b, pos, id)
			}
		}
	}
	return out
}
