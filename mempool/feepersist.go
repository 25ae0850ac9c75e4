package mempool

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"time"
)

// Fee estimates file format (our own, version 2), little-endian:
//
//	magic   "BNFE"     4 bytes
//	version 0x02       1 byte
//	best, histFirst, histBest  uint32 each
//	nb      uint32     number of buckets, then nb float64 bucket bounds
//	3 × stats (short, medium, long):
//	    periods uint32, scale uint32, decay float64,
//	    feeAvg[nb], txCtAvg[nb] float64,
//	    confAvg[periods][nb], failAvg[periods][nb] float64
//
// Version 1 also held the Unix time of the save (an int64 after the
// version byte); it is still read. Version 2 dropped it so that, as in
// Core, saving an estimator that has not changed rewrites the same bytes,
// and a file's age is its modification time, which is what operators
// (and Core's tests) see and set.
//
// Unconfirmed-transaction tracking is not saved (the pool reloads
// separately). A file whose bucket layout or horizons differ from ours is
// rejected as corrupt, and the estimator then starts empty.
const (
	feeMagic     = "BNFE"
	feeVersion   = 2
	feeVersionV1 = 1
	// MaxFeeEstimatesAge is how old a saved file may be and still be used
	// (Core's MAX_FILE_AGE, 60 hours).
	MaxFeeEstimatesAge = 60 * time.Hour
)

// ErrStaleFile reports a fee estimates file older than MaxFeeEstimatesAge.
const ErrStaleFile = ErrorKind("stale file")

// Encode serializes the estimator.
func (f *FeeEstimator) Encode() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	first, best := f.historicalFirst, f.historicalBest
	if f.blockSpan() > f.historicalSpan()/2 {
		first, best = f.firstRecorded, f.bestSeen
	}
	le := binary.LittleEndian
	b := append([]byte(feeMagic), feeVersion)
	b = le.AppendUint32(b, uint32(f.bestSeen))
	b = le.AppendUint32(b, uint32(first))
	b = le.AppendUint32(b, uint32(best))
	b = le.AppendUint32(b, uint32(len(f.buckets)))
	b = appendFloats(b, f.buckets)
	for _, s := range []*confirmStats{f.short, f.med, f.long} {
		b = le.AppendUint32(b, uint32(s.maxPeriods))
		b = le.AppendUint32(b, uint32(s.scale))
		b = le.AppendUint64(b, math.Float64bits(s.decay))
		b = appendFloats(b, s.feeAvg)
		b = appendFloats(b, s.txCtAvg)
		for _, row := range s.confAvg {
			b = appendFloats(b, row)
		}
		for _, row := range s.failAvg {
			b = appendFloats(b, row)
		}
	}
	return b
}

func appendFloats(b []byte, v []float64) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

type floatReader struct {
	b   []byte
	err error
}

func (r *floatReader) u32() uint32 {
	if r.err != nil || len(r.b) < 4 {
		r.fail()
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

func (r *floatReader) u64() uint64 {
	if r.err != nil || len(r.b) < 8 {
		r.fail()
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *floatReader) fail() {
	if r.err == nil {
		r.err = corrupt("truncated fee estimates")
	}
}

// floats fills dst, requiring finite non-negative values.
func (r *floatReader) floats(dst []float64) {
	if r.err != nil {
		return
	}
	if len(r.b) < 8*len(dst) {
		r.fail()
		return
	}
	for i := range dst {
		v := math.Float64frombits(binary.LittleEndian.Uint64(r.b[8*i:]))
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			r.err = corrupt("invalid value in fee estimates")
			return
		}
		dst[i] = v
	}
	r.b = r.b[8*len(dst):]
}

// DecodeFeeEstimates parses a fee estimates file (version 1 or 2) into a
// new estimator. The bucket layout and horizons must be exactly ours.
func DecodeFeeEstimates(b []byte) (*FeeEstimator, error) {
	if len(b) < 5 || string(b[:4]) != feeMagic {
		return nil, corrupt("bad fee estimates header")
	}
	if b[4] != feeVersion && b[4] != feeVersionV1 {
		return nil, corrupt("unknown fee estimates version %d", b[4])
	}
	r := &floatReader{b: b[5:]}
	if b[4] == feeVersionV1 {
		r.u64() // the time of the save, now taken from the file
	}
	best, first, hbest := r.u32(), r.u32(), r.u32()
	nb := r.u32()
	ref := NewFeeEstimator()
	if r.err != nil {
		return nil, r.err
	}
	if int(nb) != len(ref.buckets) {
		return nil, corrupt("fee estimates have %d buckets, want %d", nb, len(ref.buckets))
	}
	buckets := make([]float64, nb)
	r.floats(buckets)
	if r.err != nil {
		return nil, r.err
	}
	for i := range buckets {
		if math.Abs(buckets[i]-ref.buckets[i]) > 1e-6*ref.buckets[i] {
			return nil, corrupt("fee estimates bucket %d differs", i)
		}
	}
	f := ref
	for _, s := range []*confirmStats{f.short, f.med, f.long} {
		periods, scale := r.u32(), r.u32()
		decay := math.Float64frombits(r.u64())
		if r.err != nil {
			return nil, r.err
		}
		if int(periods) != s.maxPeriods || int(scale) != s.scale || decay != s.decay {
			return nil, corrupt("fee estimates horizon mismatch")
		}
		r.floats(s.feeAvg)
		r.floats(s.txCtAvg)
		for _, row := range s.confAvg {
			r.floats(row)
		}
		for _, row := range s.failAvg {
			r.floats(row)
		}
		s.hasData = true
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, corrupt("%d trailing bytes in fee estimates", len(r.b))
	}
	f.bestSeen = int(best)
	f.historicalFirst, f.historicalBest = int(first), int(hbest)
	return f, nil
}

// SaveFile writes the estimator to path atomically.
func (f *FeeEstimator) SaveFile(path string) error {
	return writeFileAtomic(path, f.Encode())
}

// LoadFeeEstimates reads path. A missing file gives an empty estimator
// and no error; a corrupt file, or unless acceptStale is set one last
// modified more than MaxFeeEstimatesAge before now, gives an empty
// estimator and the error (so the caller can log it and carry on).
func LoadFeeEstimates(path string, now time.Time, acceptStale bool) (*FeeEstimator, error) {
	fh, err := os.Open(path)
	if os.IsNotExist(err) {
		return NewFeeEstimator(), nil
	}
	if err != nil {
		return NewFeeEstimator(), err
	}
	defer fh.Close()
	if st, err := fh.Stat(); err == nil && !acceptStale && now.Sub(st.ModTime()) > MaxFeeEstimatesAge {
		return NewFeeEstimator(), fmt.Errorf("%w: last written %v ago, more than %v", ErrStaleFile,
			now.Sub(st.ModTime()).Round(time.Hour), MaxFeeEstimatesAge)
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(fh, 64<<20)); err != nil {
		return NewFeeEstimator(), err
	}
	f, err := DecodeFeeEstimates(buf.Bytes())
	if err != nil {
		return NewFeeEstimator(), err
	}
	return f, nil
}
