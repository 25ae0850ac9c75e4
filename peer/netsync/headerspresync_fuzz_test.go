package netsync

import (
	"testing"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/wire"
)

// FuzzPresync feeds a presync headers messages built from a valid regtest
// chain and mutations of it, in sizes and with "full" flags the input
// picks: whatever the peer sends, the state machine returns an error or a
// result without panicking, keeps its buffer within bufSize between
// messages and its
// commitment bits within the bound, and releases headers only in chain
// order.
func FuzzPresync(f *testing.F) {
	p := chaincfg.RegressionNetParams
	chain := mineHeaders(&p, p.GenesisHash, p.GenesisBlock.Header.Timestamp, 40, 1)
	f.Add([]byte{0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88})
	f.Add([]byte{0x85, 0x05, 0x83, 0x88, 0x04, 0x88, 0x88, 0x02})
	f.Add([]byte{0x88, 0x88, 0x48, 0x13, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 256 {
			return
		}
		const bufSize = 5
		s := newTestPresync(&p, 20, 3, bufSize)
		pos := 0 // next chain header to send
		var prevReleased *wire.BlockHeader
		for i := 0; i < len(ops); i++ {
			op := ops[i]
			n := int(op & 0x0f)
			full := op&0x80 != 0
			if op&0x40 != 0 && pos > 0 {
				pos-- // resend from one back (a redownload restarts, or a stale message)
			}
			if pos+n > len(chain) {
				n = len(chain) - pos
			}
			msg := append([]wire.BlockHeader(nil), chain[pos:pos+n]...)
			if op&0x20 != 0 && n > 0 && i+1 < len(ops) {
				// Mutate one header of the message.
				i++
				m := &msg[int(ops[i])%n]
				switch ops[i] % 4 {
				case 0:
					m.Nonce ^= uint32(ops[i]) + 1
				case 1:
					m.Timestamp += uint32(ops[i])
				case 2:
					m.Bits ^= 1 << (ops[i] % 24)
				case 3:
					m.PrevBlock[0] ^= ops[i] | 1
				}
			}
			pos += n
			res, err := s.process(msg, full, nil)
			// Within a message the buffer may take the whole message
			// before the ready headers are released (as Core's).
			if lim := bufSize + len(msg); len(s.buf) > lim || (err == nil && len(s.buf) > bufSize) {
				t.Fatalf("buffer holds %d headers after %d (error %v), bound %d", len(s.buf), len(msg), err, bufSize)
			}
			if s.nbits > s.maxCommit+1 {
				t.Fatalf("%d commitment bits, bound %d", s.nbits, s.maxCommit)
			}
			for j := range res.release {
				h := &res.release[j]
				if prevReleased != nil && h.PrevBlock != prevReleased.BlockHash() {
					t.Fatal("released headers do not connect")
				}
				prevReleased = h
			}
			if err != nil || s.phase == phaseFinal {
				return
			}
			if res.locator != nil && s.phase == phaseRedownload && pos > 0 && s.redl.hash == s.start.hash {
				pos = 0 // the node asks for the chain again from the start
			}
		}
	})
}
