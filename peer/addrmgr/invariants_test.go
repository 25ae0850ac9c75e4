package addrmgr

import "errors"

// checkInvariants verifies the table bookkeeping; tests call it.
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
