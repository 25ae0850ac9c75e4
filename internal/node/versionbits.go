package node

import (
	"strings"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/wire"
)

// This file wires the chain's BIP9 "unknown new rules" check into the
// node: Bitcoin Core runs it on every tip change once out of initial block
// download, raises the warning (and -alertnotify) for a bit whose unknown
// rules activated, and appends the bits only locked in to its tip log
// line.

// watchVersionBits subscribes the unknown-rules check to tip changes.
func (s *server) watchVersionBits() {
	s.chain.Subscribe(func(n *blockchain.Notification) {
		if n.Type != blockchain.NTTipChanged || !s.chain.IsCurrent() {
			return
		}
		raised, lockedIn := s.chain.CheckUnknownRules()
		if raised != "" {
			s.alert(raised)
		}
		if len(lockedIn) > 0 {
			chanLog.Infof("UpdateTip: new best=%v height=%d warning='%s'", n.Hash, n.Height, strings.Join(lockedIn, ", "))
		}
	})
}

// warnings is the "warnings" list of getblockchaininfo, getmininginfo and
// getnetworkinfo: never null, as Core prints an empty array.
func (s *server) warnings() []string {
	w := []string{}
	if s.cfg.params.Net == wire.TestNet3 {
		w = append(w, testnet3Deprecated)
	}
	if s.chain != nil {
		w = append(w, s.chain.Warnings()...)
	}
	return w
}

// testnet3Deprecated is Core's warning on testnet3, in the log at start-up
// and in the RPC warnings.
const testnet3Deprecated = "Support for testnet3 is deprecated and will be removed in an upcoming release. Consider switching to testnet4."
