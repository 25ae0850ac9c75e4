package netsync

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/wire"
)

// Headers presync (Core's HeadersSyncState).
//
// A header chain whose work is below the minimum chain work is not stored:
// storing it would let a peer fill our memory with headers mined at a low
// difficulty. Instead the peer's chain is walked twice. In the first pass
// (presync) each header is checked for continuity, proof of work and a
// permitted difficulty change, its work is added up, and one bit of a
// salted hash is kept every commitPeriod headers; nothing else is kept. If
// the walk reaches the minimum work, the second pass (redownload) asks for
// the same chain again from the same start, checks every header against
// the stored bits and holds at most bufferSize headers before handing them
// to the chain; once the redownloaded chain reaches the minimum work, the
// rest goes too. A peer can feed a second chain in the second pass that
// differs from the first only with a chance of one half per commitment,
// and the bits it must match are spread over the whole buffer, so what it
// can make us store is bounded by the buffer. The bits themselves are
// bounded by the number of headers that can exist between the start and
// now (six per second under the median-time rule).

// Presync parameters: Core's mainnet HEADER_COMMITMENT_PERIOD and
// REDOWNLOAD_BUFFER_SIZE (contrib/devtools/headerssync-params.py, which
// trades the memory of the bits and of the buffer against an attacker's
// chance of passing the commitments). They are used for every network:
// the bits are bounded by time since the start, not by the network, and
// the buffer is a per-peer memory cap that holds whatever the chain.
const (
	DefaultPresyncCommitPeriod = 641
	DefaultPresyncBuffer       = 15218
)

// maxFutureBlockTime is how far ahead of now a header's time may be (Core's
// MAX_FUTURE_BLOCK_TIME); it bounds the headers possible since a start.
const maxFutureBlockTime = 2 * 60 * 60

// Errors ending a presync; all but ErrPresyncLowWork mean the peer sent a
// chain that breaks the rules or its own commitments.
var (
	// ErrPresyncLowWork: the peer's chain ended below the minimum work.
	ErrPresyncLowWork = errors.New("headers presync: chain ended below the minimum chain work")
	// ErrPresyncNonContinuous: a header does not build on the one before.
	ErrPresyncNonContinuous = errors.New("headers presync: non-continuous headers sequence")
	// ErrPresyncBadPoW: a header's hash does not meet its target.
	ErrPresyncBadPoW = errors.New("headers presync: invalid proof of work")
	// ErrPresyncBadDifficulty: a header's bits are not a permitted change
	// from its parent's.
	ErrPresyncBadDifficulty = errors.New("headers presync: difficulty change not permitted")
	// ErrPresyncTooLong: the chain has more headers than could exist since
	// its start.
	ErrPresyncTooLong = errors.New("headers presync: more headers than possible since the start")
	// ErrPresyncMismatch: a redownloaded header differs from the chain
	// committed to in presync.
	ErrPresyncMismatch = errors.New("headers presync: redownloaded header does not match commitment")
	// ErrPresyncOverrun: the redownloaded chain is longer than the
	// presynced one without reaching the minimum work.
	ErrPresyncOverrun = errors.New("headers presync: commitment overrun")
)

type presyncPhase int

const (
	phasePresync presyncPhase = iota
	phaseRedownload
	phaseFinal
)

// chainPoint is the last header of a walk: what the next one is checked
// against.
type chainPoint struct {
	hash   wire.Hash
	height int32
	bits   uint32
	time   uint32
	work   blockchain.Work
}

// headersPresync is one peer's presync state. It is owned by the manager's
// loop.
type headersPresync struct {
	params    *chaincfg.Params
	minWork   blockchain.Work
	period    int64
	bufSize   int
	k0, k1    uint64 // salt of the commitment hash, per state
	offset    int64  // height % period at which a bit is kept
	start     chainPoint
	maxCommit int64

	phase presyncPhase
	// Presync walk: its last header and the bits kept so far (a bit
	// queue, read from head in redownload).
	last    chainPoint
	bits    []uint64
	nbits   int64
	headBit int64

	// Redownload walk.
	redl       chainPoint
	buf        []wire.BlockHeader
	releaseAll bool
}

// newHeadersPresync starts presync of a peer's chain from start, whose
// median time past is startMTP; now is the current time.
func newHeadersPresync(p *chaincfg.Params, minWork blockchain.Work, period int64, bufSize int,
	start chainPoint, startMTP int64, now time.Time) *headersPresync {
	var salt [24]byte
	_, _ = rand.Read(salt[:])
	s := &headersPresync{
		params:  p,
		minWork: minWork,
		period:  period,
		bufSize: bufSize,
		k0:      binary.LittleEndian.Uint64(salt[0:]),
		k1:      binary.LittleEndian.Uint64(salt[8:]),
		offset:  int64(binary.LittleEndian.Uint64(salt[16:]) % uint64(period)),
		start:   start,
		last:    start,
	}
	// At most six headers a second can follow the start (each must be
	// later than the median of the eleven before it), up to the latest
	// time a header may carry.
	secs := now.Unix() + maxFutureBlockTime - startMTP
	s.maxCommit = max(6*secs/period, 0)
	return s
}

// presyncHeight is the height the presync walk reached (getpeerinfo's
// presynced_headers).
func (s *headersPresync) presyncHeight() int32 { return s.last.height }

// presyncResult is what one headers message did to a presync.
type presyncResult struct {
	// release are headers checked against the commitments, to be handed
	// to the chain in order.
	release []wire.BlockHeader
	// locator, when not nil, is the getheaders locator of the next
	// request to the peer.
	locator []wire.Hash
}

// process takes the next headers message from the peer. full reports that
// the message had the maximum number of headers (so the peer has more);
// startLocator is the locator of the start header. A non-nil error ends
// the presync.
func (s *headersPresync) process(headers []wire.BlockHeader, full bool, startLocator []wire.Hash) (presyncResult, error) {
	var res presyncResult
	switch s.phase {
	case phasePresync:
		for i := range headers {
			if err := s.presyncOne(&headers[i]); err != nil {
				return res, err
			}
		}
		if s.last.work.Cmp(s.minWork) >= 0 {
			s.phase = phaseRedownload
			s.redl = s.start
			res.locator = append([]wire.Hash{s.start.hash}, startLocator...)
			return res, nil
		}
		if !full {
			return res, ErrPresyncLowWork
		}
		res.locator = append([]wire.Hash{s.last.hash}, startLocator...)
	case phaseRedownload:
		for i := range headers {
			if err := s.redownloadOne(&headers[i]); err != nil {
				return res, err
			}
		}
		res.release = s.popReady()
		if s.releaseAll && len(s.buf) == 0 {
			s.phase = phaseFinal
			s.bits = nil
			return res, nil
		}
		if !full {
			return res, ErrPresyncLowWork
		}
		res.locator = append([]wire.Hash{s.redl.hash}, startLocator...)
	}
	// In the final phase there is nothing left to walk.
	return res, nil
}

// check runs the header checks both walks share against the walk's last
// header at.
func (s *headersPresync) check(h *wire.BlockHeader, hash *wire.Hash, at *chainPoint) error {
	if h.PrevBlock != at.hash {
		return ErrPresyncNonContinuous
	}
	if err := blockchain.CheckProofOfWork(hash, h.Bits, s.params.PowLimit); err != nil {
		return fmt.Errorf("%w: %v", ErrPresyncBadPoW, err)
	}
	if !permittedDifficultyTransition(s.params, at.height+1, at.bits, h.Bits) {
		return fmt.Errorf("%w: %08x to %08x at height %d", ErrPresyncBadDifficulty, at.bits, h.Bits, at.height+1)
	}
	return nil
}

func advance(at *chainPoint, h *wire.BlockHeader, hash wire.Hash) {
	at.hash = hash
	at.height++
	at.bits = h.Bits
	at.time = h.Timestamp
	at.work = at.work.Add(blockchain.CalcWork(h.Bits))
}

// commitBit is the salted one-bit commitment to a header hash.
func (s *headersPresync) commitBit(hash *wire.Hash) bool {
	return wire.SipHash24(s.k0, s.k1, hash[:])&1 == 1
}

func (s *headersPresync) presyncOne(h *wire.BlockHeader) error {
	hash := h.BlockHash()
	if err := s.check(h, &hash, &s.last); err != nil {
		return err
	}
	advance(&s.last, h, hash)
	if int64(s.last.height)%s.period == s.offset {
		if s.nbits >= s.maxCommit {
			return ErrPresyncTooLong
		}
		if s.nbits%64 == 0 {
			s.bits = append(s.bits, 0)
		}
		if s.commitBit(&hash) {
			s.bits[s.nbits/64] |= 1 << (s.nbits % 64)
		}
		s.nbits++
	}
	return nil
}

func (s *headersPresync) redownloadOne(h *wire.BlockHeader) error {
	hash := h.BlockHash()
	if err := s.check(h, &hash, &s.redl); err != nil {
		return err
	}
	advance(&s.redl, h, hash)
	if s.redl.work.Cmp(s.minWork) >= 0 {
		// Past the minimum work the chain no longer needs the
		// commitments: all of it is released.
		s.releaseAll = true
	}
	if !s.releaseAll && int64(s.redl.height)%s.period == s.offset {
		if s.headBit >= s.nbits {
			return ErrPresyncOverrun
		}
		want := s.bits[s.headBit/64]&(1<<(s.headBit%64)) != 0
		s.headBit++
		if s.commitBit(&hash) != want {
			return fmt.Errorf("%w at height %d", ErrPresyncMismatch, s.redl.height)
		}
	}
	s.buf = append(s.buf, *h)
	return nil
}

// popReady removes and returns the buffered headers that may go to the
// chain: those with more than bufSize checked headers on top, or all once
// the redownloaded chain reached the minimum work.
func (s *headersPresync) popReady() []wire.BlockHeader {
	n := len(s.buf) - s.bufSize
	if s.releaseAll {
		n = len(s.buf)
	}
	if n <= 0 {
		return nil
	}
	out := make([]wire.BlockHeader, n)
	copy(out, s.buf[:n])
	// Shift down so the backing array never holds more than the buffer
	// plus one message.
	s.buf = append(s.buf[:0], s.buf[n:]...)
	return out
}

// permittedDifficultyTransition reports whether bits at height may follow
// prevBits on a chain of p, without knowing the timestamps that set it
// (Core's PermittedDifficultyTransition): between retargets the bits must
// stay the same, at a retarget they may move by at most the retarget
// clamp, and on networks that allow minimum-difficulty blocks anything
// goes.
func permittedDifficultyTransition(p *chaincfg.Params, height int32, prevBits, bits uint32) bool {
	if p.ReduceMinDifficulty {
		return true
	}
	interval := p.DifficultyAdjustmentInterval()
	if height%interval != 0 {
		return bits == prevBits
	}
	if p.PoWNoRetargeting {
		return bits == prevBits
	}
	span := int64(p.TargetTimespan.Seconds())
	// CalcRetarget clamps the span, so the extremes of any span give the
	// easiest and the hardest target allowed, rounded to compact form as
	// a real retarget would be.
	easiest := chaincfg.CompactToBig(blockchain.CalcRetarget(p, prevBits, 0, span*1000))
	hardest := chaincfg.CompactToBig(blockchain.CalcRetarget(p, prevBits, 0, 0))
	got := chaincfg.CompactToBig(bits)
	return got.Cmp(easiest) <= 0 && got.Cmp(hardest) >= 0
}
