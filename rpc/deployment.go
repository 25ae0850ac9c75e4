package rpc

import "github.com/btcnode/btcd/wire"

// DeploymentInfo is the getdeploymentinfo result.
type DeploymentInfo struct {
	Hash        string                 `json:"hash"`
	Height      int32                  `json:"height"`
	Deployments map[string]*Deployment `json:"deployments"`
}

// Deployment is one soft fork of getdeploymentinfo: "buried" (activated at
// a fixed height) or "bip9" (version bits).
type Deployment struct {
	Type string `json:"type"`
	// Height is the first height enforcing the rules (buried, or bip9
	// once active).
	Height *int32    `json:"height,omitempty"`
	Active bool      `json:"active"` // enforced for the mempool and the next block
	BIP9   *BIP9Info `json:"bip9,omitempty"`
}

// BIP9Info is a version-bits deployment's state.
type BIP9Info struct {
	Bit                 *int   `json:"bit,omitempty"` // only while started or locked_in
	StartTime           int64  `json:"start_time"`    // -1 always active, -2 never
	Timeout             int64  `json:"timeout"`
	MinActivationHeight int32  `json:"min_activation_height"`
	Status              string `json:"status"` // defined, started, locked_in, active, failed
	Since               int32  `json:"since"`
	StatusNext          string `json:"status_next"`
	// Statistics and Signalling are present only while started or
	// locked_in, as Bitcoin Core prints them.
	Statistics *BIP9Statistics `json:"statistics,omitempty"`
	// Signalling has one character per block of the current period up to
	// the queried block: '#' signalled, '-' did not.
	Signalling *string `json:"signalling,omitempty"`
}

// BIP9Statistics is the signalling tally of the queried block's period.
// Threshold and Possible are left out once the deployment is locked in,
// when there is nothing left to reach (Core's field order is kept).
type BIP9Statistics struct {
	Period    int32  `json:"period"`
	Elapsed   int32  `json:"elapsed"`
	Count     int32  `json:"count"`
	Threshold *int32 `json:"threshold,omitempty"`
	Possible  *bool  `json:"possible,omitempty"`
}

func deploymentMethods() []*Method {
	return []*Method{{
		Name: "getdeploymentinfo", Category: "blockchain",
		Description: "Returns an object containing various state info regarding deployments of consensus changes.",
		Args:        []Arg{{Name: "blockhash", Type: ArgHex, Optional: true, Default: "hash of current chain tip", Description: "The block hash at which to query deployment state"}},
		Result: `{
  "hash" : "hex",          (string) requested block hash (or tip)
  "height" : n,            (numeric) requested block height (or tip)
  "deployments" : {        (json object)
    "xxxx" : {             (json object) name of the deployment
      "type" : "str",      (string) one of "buried", "bip9"
      "height" : n,        (numeric, optional) height of the first block which the rules are or will be enforced (only for "buried" type, or "bip9" type with "active" status)
      "active" : true|false, (boolean) true if the rules are enforced for the mempool and the next block
      "bip9" : {           (json object, optional) status of bip9 softforks (only for "bip9" type)
        "bit" : n,         (numeric, optional) the bit (0-28) in the block version field used to signal this softfork (only for "started" and "locked_in" status)
        "start_time" : xxx, (numeric) the minimum median time past of a block at which the bit gains its meaning
        "timeout" : xxx,   (numeric) the median time past of a block at which the deployment is considered failed if not yet locked in
        "min_activation_height" : n, (numeric) minimum height of blocks for which the rules may be enforced
        "status" : "str",  (string) status of deployment at specified block (one of "defined", "started", "locked_in", "active", "failed")
        "since" : n,       (numeric) height of the first block to which the status applies
        "status_next" : "str", (string) status of deployment at the next block
        "statistics" : {   (json object, optional) numeric statistics about signalling for a softfork (only for "started" and "locked_in" status)
          "period" : n,    (numeric) the length in blocks of the signalling period
          "threshold" : n, (numeric, optional) the number of blocks with the version bit set required to activate the softfork (only for "started" status)
          "elapsed" : n,   (numeric) the number of blocks elapsed since the beginning of the current period
          "count" : n,     (numeric) the number of blocks with the version bit set in the current period
          "possible" : true|false (boolean, optional) returns false if there are not enough blocks left in this period to pass activation threshold (only for "started" status)
        },
        "signalling" : "str" (string, optional) indicates blocks that signalled with a # and blocks that did not with a -
      }
    }, ...
  }
}`,
		Available: chainHas(func(c *ChainBackend) bool { return c.DeploymentInfo != nil && c.BestBlock != nil }),
		Handler: func(s *Server, p *Params) (any, error) {
			var h wire.Hash
			var err error
			if p.Has(0) {
				h, err = p.Hash(0, "blockhash")
			} else {
				h, _, err = s.chain().BestBlock()
			}
			if err != nil {
				return nil, err
			}
			return s.chain().DeploymentInfo(h)
		},
	}}
}
