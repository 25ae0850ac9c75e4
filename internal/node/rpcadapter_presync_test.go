package node

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/wire"
)

// getpeerinfo's presynced_headers is the height a peer's low-work header
// chain reached in presync, -1 for a peer not presynced, as bitcoind.
func TestPeerInfoPresyncedHeaders(t *testing.T) {
	// Regtest headers carry 2 units of work: far more than 2000 of them.
	n := newTestNode(t, "--minimumchainwork=0x100000")
	r := dialNetPeer(t, n)
	presynced := func() (int, bool) {
		var out []struct {
			Presynced int `json:"presynced_headers"`
		}
		if err := json.Unmarshal(n.must(t, "getpeerinfo"), &out); err != nil {
			t.Fatal(err)
		}
		if len(out) != 1 {
			return 0, false
		}
		return out[0].Presynced, true
	}
	waitFor(t, 10*time.Second, "peer listed", func() bool { _, ok := presynced(); return ok })
	if got, _ := presynced(); got != -1 {
		t.Fatalf("presynced_headers %d before any headers, want -1", got)
	}
	p := n.s.cfg.params
	hdrs := make([]wire.BlockHeader, wire.MaxBlockHeadersPerMsg)
	prev := p.GenesisHash
	for i := range hdrs {
		h := wire.BlockHeader{Version: 0x20000000, PrevBlock: prev, Timestamp: p.GenesisBlock.Header.Timestamp + uint32(i) + 1, Bits: p.PowLimitBits}
		for {
			hash := h.BlockHash()
			if blockchain.CheckProofOfWork(&hash, h.Bits, p.PowLimit) == nil {
				break
			}
			h.Nonce++
		}
		hdrs[i] = h
		prev = h.BlockHash()
	}
	r.send(t, &wire.MsgHeaders{Headers: hdrs})
	waitFor(t, 10*time.Second, "presynced_headers 2000", func() bool { got, _ := presynced(); return got == len(hdrs) })
	if _, h := n.s.chain.BestHeader(); h != 0 {
		t.Fatalf("low-work headers stored: best header %d", h)
	}
}
