package netsync

import (
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/wire"
)

// mineHeaders returns n regtest headers on prev, one second apart from
// t0; tag varies the merkle root so that chains with the same tag are
// equal and others differ.
func mineHeaders(p *chaincfg.Params, prev wire.Hash, t0 uint32, n int, tag byte) []wire.BlockHeader {
	out := make([]wire.BlockHeader, n)
	for i := range out {
		h := wire.BlockHeader{
			Version:    0x20000000,
			PrevBlock:  prev,
			MerkleRoot: wire.Hash{tag, byte(i), byte(i >> 8)},
			Timestamp:  t0 + uint32(i) + 1,
			Bits:       p.PowLimitBits,
		}
		for {
			hash := h.BlockHash()
			if blockchain.CheckProofOfWork(&hash, h.Bits, p.PowLimit) == nil {
				break
			}
			h.Nonce++
		}
		out[i] = h
		prev = h.BlockHash()
	}
	return out
}

// regtestStart is the presync start at regtest's genesis.
func regtestStart(p *chaincfg.Params) chainPoint {
	g := p.GenesisBlock.Header
	return chainPoint{hash: p.GenesisHash, bits: g.Bits, time: g.Timestamp, work: blockchain.CalcWork(g.Bits)}
}

// workAfter is the work of the start plus n regtest headers.
func workAfter(p *chaincfg.Params, n int) blockchain.Work {
	w := blockchain.CalcWork(p.PowLimitBits).Big()
	return blockchain.WorkFromBig(w.Mul(w, big.NewInt(int64(n)+1)))
}

func newTestPresync(p *chaincfg.Params, minHeaders int, period int64, buf int) *headersPresync {
	start := regtestStart(p)
	return newHeadersPresync(p, workAfter(p, minHeaders), period, buf, start, int64(start.time), time.Now())
}

// TestPresyncRedownloadRelease: a chain that reaches the minimum work is
// walked twice; the second walk releases headers only with bufSize
// checked headers on top until the minimum work is reached, then all, and
// the buffer never holds more than bufSize.
func TestPresyncRedownloadRelease(t *testing.T) {
	p := &chaincfg.RegressionNetParams
	const minHeaders, buf = 300, 50
	chain := mineHeaders(p, p.GenesisHash, p.GenesisBlock.Header.Timestamp, 400, 1)
	s := newTestPresync(p, minHeaders, 7, buf)

	// Presync: nothing is released, one bit every 7 headers.
	for i := 0; i < minHeaders; i += 100 {
		res, err := s.process(chain[i:i+100], true, nil)
		if err != nil {
			t.Fatalf("presync at %d: %v", i, err)
		}
		if len(res.release) != 0 || len(s.buf) != 0 {
			t.Fatalf("presync released or buffered headers")
		}
		if res.locator == nil {
			t.Fatal("no next request")
		}
	}
	if s.phase != phaseRedownload {
		t.Fatalf("phase %d after reaching the minimum work, want redownload", s.phase)
	}
	if s.nbits < minHeaders/7-1 || s.nbits > minHeaders/7+1 {
		t.Fatalf("%d commitments for %d headers at period 7", s.nbits, minHeaders)
	}
	if got := s.presyncHeight(); got != minHeaders {
		t.Fatalf("presync height %d, want %d", got, minHeaders)
	}

	// Redownload in messages of 40.
	var released []wire.BlockHeader
	maxBuf := 0
	for i := 0; i < len(chain) && s.phase == phaseRedownload; i += 40 {
		end := min(i+40, len(chain))
		res, err := s.process(chain[i:end], end-i == 40, nil)
		if err != nil {
			t.Fatalf("redownload at %d: %v", i, err)
		}
		released = append(released, res.release...)
		maxBuf = max(maxBuf, len(s.buf))
		if end < minHeaders {
			if want := max(end-buf, 0); len(released) != want {
				t.Fatalf("after %d headers %d released, want %d", end, len(released), want)
			}
		}
	}
	if s.phase != phaseFinal {
		t.Fatalf("phase %d, want final", s.phase)
	}
	if maxBuf > buf {
		t.Fatalf("buffer held %d headers, cap %d", maxBuf, buf)
	}
	// The message that crossed the minimum work released all it had.
	if len(released) != 320 {
		t.Fatalf("%d headers released, want 320", len(released))
	}
	for i := range released {
		if released[i] != chain[i] {
			t.Fatalf("released header %d differs", i)
		}
	}
}

// TestPresyncMismatch: a redownloaded chain that differs from the
// presynced one fails its commitments.
func TestPresyncMismatch(t *testing.T) {
	p := &chaincfg.RegressionNetParams
	a := mineHeaders(p, p.GenesisHash, p.GenesisBlock.Header.Timestamp, 200, 1)
	b := mineHeaders(p, p.GenesisHash, p.GenesisBlock.Header.Timestamp, 200, 2)
	s := newTestPresync(p, 150, 1, 1000)
	if _, err := s.process(a, true, nil); err != nil || s.phase != phaseRedownload {
		t.Fatalf("presync: %v, phase %d", err, s.phase)
	}
	res, err := s.process(b, true, nil)
	if !errors.Is(err, ErrPresyncMismatch) {
		t.Fatalf("redownload of another chain: %v, want ErrPresyncMismatch", err)
	}
	if len(res.release) != 0 {
		t.Fatalf("%d headers of the other chain released", len(res.release))
	}
}

// TestPresyncRejects covers the per-header checks and the chain-ending
// outcomes.
func TestPresyncRejects(t *testing.T) {
	p := &chaincfg.RegressionNetParams
	chain := mineHeaders(p, p.GenesisHash, p.GenesisBlock.Header.Timestamp, 100, 1)

	t.Run("non-continuous", func(t *testing.T) {
		s := newTestPresync(p, 1000, 5, 100)
		bad := append([]wire.BlockHeader{}, chain[:10]...)
		bad = append(bad, chain[11:20]...)
		if _, err := s.process(bad, true, nil); !errors.Is(err, ErrPresyncNonContinuous) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("bad pow", func(t *testing.T) {
		s := newTestPresync(p, 1000, 5, 100)
		bad := append([]wire.BlockHeader{}, chain[:5]...)
		h := &bad[4]
		for {
			hash := h.BlockHash()
			if blockchain.CheckProofOfWork(&hash, h.Bits, p.PowLimit) != nil {
				break
			}
			h.Nonce++
		}
		if _, err := s.process(bad, true, nil); !errors.Is(err, ErrPresyncBadPoW) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("low work end", func(t *testing.T) {
		s := newTestPresync(p, 1000, 5, 100)
		if _, err := s.process(chain, false, nil); !errors.Is(err, ErrPresyncLowWork) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("too long", func(t *testing.T) {
		// A start whose median time is ten seconds short of the
		// future limit allows 60 headers: 60 commitments at period 1.
		start := regtestStart(p)
		now := time.Unix(int64(start.time)-maxFutureBlockTime+10, 0)
		s := newHeadersPresync(p, workAfter(p, 1000), 1, 100, start, int64(start.time), now)
		if _, err := s.process(chain, true, nil); !errors.Is(err, ErrPresyncTooLong) {
			t.Fatalf("got %v", err)
		}
		if s.nbits != 60 {
			t.Fatalf("%d commitments kept, cap 60", s.nbits)
		}
	})
	t.Run("overrun", func(t *testing.T) {
		// Presync reaches the minimum work, the redownload is a longer
		// chain whose work falls short: more commitments are needed
		// than were kept.
		s := newTestPresync(p, 50, 1, 1000)
		if _, err := s.process(chain[:50], true, nil); err != nil || s.phase != phaseRedownload {
			t.Fatalf("presync: %v", err)
		}
		s.minWork = workAfter(p, 1000)
		if _, err := s.process(chain, true, nil); !errors.Is(err, ErrPresyncOverrun) {
			t.Fatalf("got %v", err)
		}
	})
}

// TestPresyncMemoryBound: a low-work chain as long as the commitment cap
// costs one bit per period, and nothing else grows.
func TestPresyncMemoryBound(t *testing.T) {
	p := &chaincfg.RegressionNetParams
	chain := mineHeaders(p, p.GenesisHash, p.GenesisBlock.Header.Timestamp, 2000, 1)
	s := newTestPresync(p, 1<<30, 10, 100)
	for i := 0; i < len(chain); i += 500 {
		if _, err := s.process(chain[i:i+500], true, nil); err != nil {
			t.Fatal(err)
		}
	}
	if s.nbits != 200 || len(s.bits) != 4 || len(s.buf) != 0 {
		t.Fatalf("after 2000 headers: %d bits in %d words, %d buffered", s.nbits, len(s.bits), len(s.buf))
	}
}

// TestPermittedDifficultyTransition: mainnet's bits may change only at a
// retarget, by at most a factor of four; testnet allows anything.
func TestPermittedDifficultyTransition(t *testing.T) {
	main := &chaincfg.MainNetParams
	const bits = 0x1d00ffff
	easier := chaincfg.BigToCompact(chaincfg.CompactToBig(0x1c0fffff))
	cases := []struct {
		height     int32
		prev, next uint32
		ok         bool
	}{
		{1, bits, bits, true},
		{1, bits, 0x1c7fffff, false},
		{2016, 0x1c0fffff, 0x1c0fffff, true},
		{2016, 0x1c0fffff, 0x1c3ffffc, true},  // four times easier
		{2016, 0x1c0fffff, 0x1c400000, false}, // more than four times
		{2016, 0x1c0fffff, 0x1c03ffff, true},  // four times harder
		{2016, 0x1c0fffff, 0x1c03fffe, false},
		{2016, easier, bits, false},
	}
	for _, c := range cases {
		if got := permittedDifficultyTransition(main, c.height, c.prev, c.next); got != c.ok {
			t.Errorf("height %d %08x -> %08x: %v, want %v", c.height, c.prev, c.next, got, c.ok)
		}
	}
	if !permittedDifficultyTransition(&chaincfg.TestNet3Params, 1, bits, 0x1c0fffff) {
		t.Error("testnet3 refused a minimum-difficulty change")
	}
}
