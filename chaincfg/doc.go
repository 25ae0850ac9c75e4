// Package chaincfg owns the parameters that distinguish one Bitcoin network
// from another: network magic and ports, genesis blocks, proof-of-work
// limits and retarget rules, subsidy schedule, buried soft-fork heights and
// Bitcoin Core's historical exceptions, assumevalid and
// minimum-chain-work anchors, and address/key prefixes. It also owns the
// compact ("nBits") target encoding and block-work arithmetic, which mirror
// Bitcoin Core's arith_uint256 exactly.
//
// Five networks are defined as package-level values: MainNetParams,
// TestNet3Params, TestNet4Params, SigNetParams (the default signet) and
// RegressionNetParams. Their values follow Bitcoin Core's
// src/kernel/chainparams.cpp as of the 31.x release series. Treat the
// package-level values as read-only; code that needs to adjust parameters
// (regtest's -testactivationheight, tests) works on a Clone. ParamsForNetwork
// and ParamsForNet always return fresh clones.
package chaincfg
