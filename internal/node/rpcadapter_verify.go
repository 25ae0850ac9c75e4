package node

import (
	"time"
)

// verifyChain answers verifychain for the last nblocks main-chain blocks
// (0: all) with blockchain.VerifyChain; false means a check failed, and
// the reason is logged.
func (s *server) verifyChain(level, nblocks int32) (bool, error) {
	start := time.Now()
	bad, checked := s.chain.VerifyChain(level, nblocks, s.cfg.scriptThreads)
	if bad != "" {
		rpcsLog.Errorf("verifychain: %s", bad)
		return false, nil
	}
	rpcsLog.Infof("verifychain: level %d, %d blocks verified in %v", level, checked, time.Since(start).Round(time.Millisecond))
	return true, nil
}
