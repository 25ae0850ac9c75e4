package addrmgr

import "github.com/btcnode/btcd/wire"

// AddSelfAnnounced adds na as a peer announcing itself would (Core's
// addpeeraddress test RPC): to the new table, and with tried, then on to
// the tried table as after a successful connection. Unlike Good it does
// not evict: when na's tried slot holds another address the move fails,
// as Core's Good does with test-before-evict. added reports the new-table
// insertion, moved the move to tried.
func (m *Manager) AddSelfAnnounced(na wire.NetAddressV2, tried bool) (added, moved bool) {
	if m.AddAddresses([]wire.NetAddressV2{na}, na, 0) == 0 {
		return false, false
	}
	if !tried {
		return true, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	ka := m.lookup(&na)
	if ka == nil {
		return true, false
	}
	if ka.tried {
		return true, true
	}
	b := m.triedBucket(&ka.key)
	pos := m.bucketPos(false, b, &ka.key)
	if id := m.tried[b][pos]; id != 0 && id != ka.id {
		return true, false
	}
	now := m.cfg.Now()
	ka.lastSuccess, ka.lastAttempt, ka.attempts = now, now, 0
	m.makeTried(ka)
	return true, true
}
