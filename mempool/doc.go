// Package mempool owns the pool of unconfirmed transactions: relay policy
// (standardness, dust, fees, TRUC), acceptance with full replace-by-fee,
// ancestor/descendant limits with the CPFP carve-out, the orphan pool, the
// memory limit with a rolling minimum fee, expiry, reaction to connected and
// disconnected blocks, the copy of its transactions block assembly
// (internal/mining) selects from, fee estimation and persistence of both
// the pool (mempool.dat) and the estimator.
//
// The package depends on wire and txscript (script classification and
// sigop counting). Everything it needs from the chain and script
// verification comes through the small seams in Config:
//
//   - ChainView.FetchCoin looks up an unspent output of the confirmed chain
//     (amount, pkScript, height, coinbase flag);
//   - ChainView.Tip reports the best block (height, median time past);
//   - ChainView.MedianTimePast answers BIP68 time locks;
//   - VerifyScripts runs the script engine over every input, either under the
//     full standard flag set or under the consensus flags only.
//
// Script classification and sigop counting come from txscript through the
// thin wrappers in script.go (standard output types, push-only checks,
// legacy, P2SH and witness sigop counts).
//
// A daemon adapter for the script seam looks like:
//
//	cfg.VerifyScripts = func(tx *wire.MsgTx, coins []mempool.Coin, standard bool) error {
//		flags := consensusFlagsForNextBlock
//		if standard {
//			flags |= standardPolicyFlags
//		}
//		for i := range tx.TxIn {
//			out := wire.TxOut{Value: coins[i].Value, PkScript: coins[i].PkScript}
//			if err := txscript.VerifyInput(tx, i, &out, flags, sigCache, hashes); err != nil {
//				return err
//			}
//		}
//		return nil
//	}
//
// Rejections are *RejectError values carrying Core's reason strings
// ("min relay fee not met", "txn-mempool-conflict", "dust", ...), a BIP61
// code and an ErrorKind for errors.Is: ErrConsensus marks a peer that
// relayed something invalid, ErrMissingInputs an orphan candidate.
//
// Persistence: Pool.SaveFile/LoadFile write and read mempool.dat in
// Bitcoin Core's format (version 2 with an obfuscation key, or version 1
// with Config.PersistV1; see persist_core.go), with entry times, fee
// deltas and the unbroadcast set, so a dump moves between this node and
// bitcoind; the node's former "BNMP" files still load (persist_legacy.go).
// LoadMempoolFile takes importmempool's options.
// FeeEstimator.SaveFile/LoadFeeEstimates write and read the estimator in a
// format of its own ("BNFE", version 2; see feepersist.go). Corrupt files
// are errors of kind ErrCorruptFile; a file is decoded whole before
// anything of it is used, so a corrupt one leaves the pool as it was
// and the estimator empty.
//
// Packages follow Core 30 too (package.go, package_accept.go):
// TestAcceptPackage is testmempoolaccept of several transactions (each
// sees its in-list parents' outputs, no replacement, no package fee
// rate); AcceptPackage is submitpackage, a child with its unconfirmed
// parents whose members are tried alone first and, when they fail only on
// fee rate, together, so that a child pays for its parents (CPFP of a
// zero-fee TRUC parent or an ephemeral-dust parent included), under the
// package limits and package RBF (clusters of at most two, judged by the
// feerate diagram). ProcessTransaction retries a too-cheap transaction
// with an orphan child, as Core's opportunistic one-parent-one-child
// relay (a child arriving second waits as an orphan until its parent is
// sent again).
//
// Fee deltas (prioritise.go, prioritisetransaction) give every entry a
// modified fee, Entry.ModFee, which the fee floors, replacement, eviction
// and block selection use; the package fee sums are of modified fees.
//
// Defaults follow Bitcoin Core 30: -minrelaytxfee and -incrementalrelayfee
// 100 sat/kvB, -dustrelayfee 3000 sat/kvB, -blockmintxfee 1 sat/kvB,
// -datacarriersize 100000 bytes summed over any number of OP_RETURN
// outputs, -permitbaremultisig on, -maxmempool 300 MB, -mempoolexpiry
// 336 h, ancestor/descendant limits 25 transactions and 101 kvB with the
// CPFP carve-out for lone transactions, full RBF (BIP125 rules 2-6 for
// every conflict, in modified fees; at most 100 evictions), BIP431 TRUC
// (version 3) rules with sibling eviction, the BIP54 cap of 2,500 legacy
// sigops, and at most one dust output, which requires a zero fee and a
// child spending it (ephemeral dust).
package mempool
