package rpc

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// maxFeeTarget is the longest confirmation target the fee estimator
// tracks (Core's long horizon: 42 periods of 24 blocks).
const maxFeeTarget = 1008

// RawFeeBucket is a range of fee-rate buckets as estimaterawfee reports
// it (rates in sat/kvB; Start -1 when there is no such range).
type RawFeeBucket struct {
	Start, End     float64
	WithinTarget   float64
	TotalConfirmed float64
	InMempool      float64
	LeftMempool    float64
}

// RawFeeHorizon is one horizon's estimate for the backend to return.
type RawFeeHorizon struct {
	// Name is "short", "medium" or "long".
	Name string
	// FeeRate is in sat/kvB; 0 means no rate met the threshold.
	FeeRate    int64
	Decay      float64
	Scale      int
	Pass, Fail RawFeeBucket
}

// rawFeeBucketJSON is a bucket range in Core's field names and rounding.
type rawFeeBucketJSON struct {
	StartRange     float64 `json:"startrange"`
	EndRange       float64 `json:"endrange"`
	WithinTarget   float64 `json:"withintarget"`
	TotalConfirmed float64 `json:"totalconfirmed"`
	InMempool      float64 `json:"inmempool"`
	LeftMempool    float64 `json:"leftmempool"`
}

// RawFeeHorizonResult is one horizon object of the estimaterawfee result.
type RawFeeHorizonResult struct {
	FeeRate *json.Number      `json:"feerate,omitempty"`
	Decay   float64           `json:"decay"`
	Scale   int               `json:"scale"`
	Pass    *rawFeeBucketJSON `json:"pass,omitempty"`
	Fail    *rawFeeBucketJSON `json:"fail,omitempty"`
	Errors  []string          `json:"errors,omitempty"`
}

// RawFeeResult is the estimaterawfee result: the horizons that track the
// target, shortest first.
type RawFeeResult struct {
	Short  *RawFeeHorizonResult `json:"short,omitempty"`
	Medium *RawFeeHorizonResult `json:"medium,omitempty"`
	Long   *RawFeeHorizonResult `json:"long,omitempty"`
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

func (b RawFeeBucket) toJSON() *rawFeeBucketJSON {
	return &rawFeeBucketJSON{
		StartRange: math.Round(b.Start), EndRange: math.Round(b.End),
		WithinTarget: round2(b.WithinTarget), TotalConfirmed: round2(b.TotalConfirmed),
		InMempool: round2(b.InMempool), LeftMempool: round2(b.LeftMempool),
	}
}

const generateHelp = "generate\n\nhas been replaced by the -generate cli option. Refer to -help for more information.\n"

func feeRawMethods() []*Method {
	return []*Method{
		{
			Name: "estimaterawfee", Category: "hidden",
			Description: `WARNING: This interface is unstable and may disappear or change!

WARNING: This is an advanced API call that is tightly coupled to the specific
implementation of fee estimation. The parameters it can be called with
and the results it returns will change if the internal implementation changes.

Estimates the approximate fee per kilobyte needed for a transaction to begin
confirmation within conf_target blocks if possible. Uses virtual transaction size as
defined in BIP 141 (witness data is discounted).`,
			Args: []Arg{
				{Name: "conf_target", Type: ArgNum, Description: "Confirmation target in blocks (1 - 1008)"},
				{Name: "threshold", Type: ArgNum, Optional: true, Default: "0.95", Description: `The proportion of transactions in a given feerate range that must have been
confirmed within conf_target in order to consider those feerates as high enough and proceed to check
lower buckets.`},
			},
			Result: `{                           (json object) Results are returned for any horizon which tracks blocks up to the confirmation target
  "short" : {                (json object, optional) estimate for short time horizon
    "feerate" : n,           (numeric, optional) estimate fee rate in BTC/kvB
    "decay" : n,             (numeric) exponential decay (per block) for historical moving average of confirmation data
    "scale" : n,             (numeric) The resolution of confirmation targets at this time horizon
    "pass" : {               (json object, optional) information about the lowest range of feerates to succeed in meeting the threshold
      "startrange" : n,      (numeric) start of feerate range
      "endrange" : n,        (numeric) end of feerate range
      "withintarget" : n,    (numeric) number of txs over history horizon in the feerate range that were confirmed within target
      "totalconfirmed" : n,  (numeric) number of txs over history horizon in the feerate range that were confirmed at any point
      "inmempool" : n,       (numeric) current number of txs in mempool in the feerate range unconfirmed for at least target blocks
      "leftmempool" : n      (numeric) number of txs over history horizon in the feerate range that left mempool unconfirmed after target
    },
    "fail" : {               (json object, optional) information about the highest range of feerates to fail to meet the threshold
      ...
    },
    "errors" : [             (json array, optional) Errors encountered during processing (if there are any)
      "str",                 (string) error
      ...
    ]
  },
  "medium" : {               (json object, optional) estimate for medium time horizon
    ...
  },
  "long" : {                 (json object, optional) estimate for long time horizon
    ...
  }
}`,
			Available: mempoolHas(func(m *MempoolBackend) bool { return m.EstimateRawFee != nil }),
			Handler:   handleEstimateRawFee,
		},
		{
			// Core keeps the name to point users at bitcoin-cli's option;
			// the call always fails, its help being the message.
			Name: "generate", Category: "hidden",
			Description: "has been replaced by the -generate cli option. Refer to -help for more information.",
			FullHelp:    generateHelp,
			Handler: func(*Server, *Params) (any, error) {
				return nil, NewError(ErrMethodNotFound, generateHelp)
			},
		},
	}
}

// parseJSONFloat reads a JSON number argument as a float.
func parseJSONFloat(raw json.RawMessage) (float64, error) {
	if jsonKind(raw) != "number" {
		return 0, typeError(raw, "number")
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(raw)), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, NewError(ErrType, "JSON value is not a number as expected")
	}
	return v, nil
}

func handleEstimateRawFee(s *Server, p *Params) (any, error) {
	target, err := p.Int(0, 0)
	if err != nil {
		return nil, err
	}
	if target < 1 || target > maxFeeTarget {
		return nil, Errorf(ErrInvalidParam, "Invalid conf_target, must be between 1 and %d", maxFeeTarget)
	}
	threshold := 0.95
	if p.Has(1) {
		if threshold, err = parseJSONFloat(p.Raw(1)); err != nil {
			return nil, err
		}
	}
	if threshold < 0 || threshold > 1 {
		return nil, NewError(ErrInvalidParam, "Invalid threshold")
	}
	hs, err := s.mempool().EstimateRawFee(int(target), threshold)
	if err != nil {
		return nil, err
	}
	r := &RawFeeResult{}
	for _, h := range hs {
		o := &RawFeeHorizonResult{Decay: h.Decay, Scale: h.Scale}
		if h.FeeRate != 0 {
			n := formatBTC(h.FeeRate)
			o.FeeRate = &n
			o.Pass = h.Pass.toJSON()
			// A fail range starting at -1 means every range passed.
			if h.Fail.Start != -1 {
				o.Fail = h.Fail.toJSON()
			}
		} else {
			o.Fail = h.Fail.toJSON()
			o.Errors = []string{"Insufficient data or no feerate found which meets threshold"}
		}
		switch h.Name {
		case "short":
			r.Short = o
		case "medium":
			r.Medium = o
		case "long":
			r.Long = o
		}
	}
	return r, nil
}
