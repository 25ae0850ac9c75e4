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
      "bip9" : { "bit"?, "start_time", "timeout", "min_activation_height", "status", "since", "status_next" }  (only for "bip9" type)
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
