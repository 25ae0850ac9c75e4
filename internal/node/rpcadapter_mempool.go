package node

import (
	"errors"
	"time"

	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// The mempool logs Core's wording for lines Core's tests wait for
// ("rolling minimum fee bumped"); it gets the MEMP logger here, with the
// RPC adapter that first needed it, as useLoggers does for the packages
// listed in log.go.

// sendRawTransaction answers sendrawtransaction as Core's
// BroadcastTransaction: a transaction whose outputs are already unspent
// in the chain is refused; one whose txid is already in the pool is not
// evaluated again, but the pool's version (whatever its witness) is
// announced again to peers that lack it; a new one enters the pool as
// unbroadcast, so it is announced until some peer asks for it.
func (s *server) sendRawTransaction(tx *wire.MsgTx, maxFeeRate int64) (wire.Hash, error) {
	txid := tx.TxHash()
	for i := range tx.TxOut {
		if _, ok, _ := s.chain.FetchUtxo(wire.OutPoint{Hash: txid, Index: uint32(i)}); ok {
			return wire.Hash{}, rpc.NewError(rpc.ErrVerifyExists, "Transaction outputs already in utxo set")
		}
	}
	if e, ok := s.pool.Get(txid); ok {
		if s.sync != nil {
			s.sync.RelayTransaction(e)
		}
		return txid, nil
	}
	_, err := s.pool.AcceptTransaction(tx, mempool.AcceptOptions{MaxFeeRate: mempool.FeeRate(maxFeeRate), Unbroadcast: true})
	if err != nil {
		if !mempool.IsAlreadyKnown(err) {
			s.recordReject(err) // metrics.go
		}
		return wire.Hash{}, mempoolRPCError(err)
	}
	return txid, nil
}

// Core re-announces unbroadcast transactions every 10 to 15 minutes,
// the first time that long after start-up.
const (
	reattemptBroadcastEvery  = 10 * time.Minute
	reattemptBroadcastJitter = 5 * time.Minute
)

// reattemptBroadcast announces the unbroadcast transactions again to every
// peer that has not seen them (Core's ReattemptInitialBroadcast).
func (s *server) reattemptBroadcast() {
	if s.sync == nil {
		return
	}
	for _, e := range s.pool.Unbroadcast() {
		s.sync.RelayTransaction(e)
	}
}

// testAccept answers testmempoolaccept. One transaction is checked alone,
// as before packages; several are evaluated together (Core's
// AcceptMultipleTransactions), each seeing its in-list parents, and the
// results are reported in list order up to the first that was not
// evaluated. maxFeeRate (sat/kvB, 0: none) is checked on each valid
// member's base fee; the first over it ends the list too.
func (s *server) testAccept(txs []*wire.MsgTx, maxFeeRate int64) ([]rpc.MempoolAcceptResult, error) {
	if len(txs) == 1 {
		return []rpc.MempoolAcceptResult{s.testAcceptOne(txs[0], maxFeeRate)}, nil
	}
	res := s.pool.TestAcceptPackage(txs)
	out := make([]rpc.MempoolAcceptResult, len(txs))
	exitEarly := false
	for i, tx := range txs {
		r := rpc.MempoolAcceptResult{TxID: tx.TxHash().String(), WTxID: tx.WitnessHash().String()}
		if res.Err != nil && res.Err.Kind == mempool.PackageErrPolicy {
			r.PackageError = res.Err.Error()
		}
		tr, ok := res.Results[tx.WitnessHash()]
		if exitEarly || !ok {
			out[i] = r
			continue
		}
		allowed := tr.Kind == mempool.TxValid
		switch {
		case allowed && maxFeeRate > 0 && tr.Fee > mempool.FeeRate(maxFeeRate).Fee(tr.VSize):
			allowed = false
			r.RejectReason = mempool.ReasonMaxFeeExceeded
			exitEarly = true
		case allowed:
			r.VSize = tr.VSize
			r.Fees = &rpc.MempoolAcceptFees{
				Base:              rpc.FormatBTC(tr.Fee),
				EffectiveFeeRate:  rpc.FormatBTC(int64(tr.EffectiveFeeRate)),
				EffectiveIncludes: hashStrings(tr.EffectiveIncludes),
			}
		default:
			r.RejectReason, r.RejectDetails = testAcceptReason(tr.Err)
		}
		r.Allowed = &allowed
		out[i] = r
	}
	return out, nil
}

// testAcceptOne is testmempoolaccept of a lone transaction.
func (s *server) testAcceptOne(tx *wire.MsgTx, maxFeeRate int64) rpc.MempoolAcceptResult {
	r := rpc.MempoolAcceptResult{TxID: tx.TxHash().String(), WTxID: tx.WitnessHash().String()}
	res, err := s.pool.AcceptTransaction(tx, mempool.AcceptOptions{TestOnly: true, MaxFeeRate: mempool.FeeRate(maxFeeRate)})
	allowed := err == nil
	r.Allowed = &allowed
	if err != nil {
		r.RejectReason, r.RejectDetails = testAcceptReason(err)
		return r
	}
	r.VSize = res.VSize
	r.Fees = &rpc.MempoolAcceptFees{
		Base:              rpc.FormatBTC(res.Fee),
		EffectiveFeeRate:  rpc.FormatBTC(int64(mempool.NewFeeRate(res.ModifiedFee, res.VSize))),
		EffectiveIncludes: []string{r.WTxID},
	}
	return r
}

// testAcceptReason is testmempoolaccept's reject-reason and
// reject-details: Core words missing inputs "missing-inputs", without
// details.
func testAcceptReason(err error) (reason, details string) {
	var re *mempool.RejectError
	switch {
	case mempool.IsMissingInputs(err):
		return "missing-inputs", ""
	case errors.As(err, &re):
		return re.Reason, re.Error()
	case err != nil:
		return err.Error(), err.Error()
	}
	return "", ""
}

// submitPackage answers submitpackage after the RPC layer decoded the
// members: the topology check, the evaluation, and Core's result shape.
// Members that entered are relayed by the pool's OnAccept hook.
func (s *server) submitPackage(txs []*wire.MsgTx, maxFeeRate int64) (*rpc.SubmitPackageResult, error) {
	if len(txs) > 1 && !mempool.IsChildWithParentsTree(txs) {
		return nil, rpc.NewError(rpc.ErrVerify, "package topology disallowed. not child-with-parents or parents depend on each other.")
	}
	res := s.pool.AcceptPackage(txs, mempool.PackageOptions{MaxFeeRate: mempool.FeeRate(maxFeeRate)})
	if res.Err != nil && res.Err.Kind == mempool.PackageErrMempool {
		return nil, rpc.NewError(rpc.ErrVerify, res.Err.Reason)
	}
	out := &rpc.SubmitPackageResult{PackageMsg: "success", TxResults: make(map[string]*rpc.SubmitPackageTx, len(txs))}
	if res.Err != nil {
		out.PackageMsg = res.Err.Error()
	}
	var replaced []wire.Hash
	for _, tx := range txs {
		wtxid := tx.WitnessHash()
		tr, ok := res.Results[wtxid]
		if !ok {
			// Core leaves unevaluated members out of tx-results.
			continue
		}
		r := &rpc.SubmitPackageTx{TxID: tx.TxHash().String()}
		switch tr.Kind {
		case mempool.TxDifferentWitness:
			r.OtherWTxID = tr.OtherWTxID.String()
		case mempool.TxInvalid:
			r.Error = tr.Err.Error()
		case mempool.TxValid, mempool.TxInMempool:
			r.VSize = tr.VSize
			r.Fees = &rpc.SubmitPackageFees{Base: rpc.FormatBTC(tr.Fee)}
			// Only a member that entered now has an effective fee rate:
			// how an earlier one was judged is not known.
			if tr.Kind == mempool.TxValid {
				r.Fees.EffectiveFeeRate = rpc.FormatBTC(int64(tr.EffectiveFeeRate))
				r.Fees.EffectiveIncludes = hashStrings(tr.EffectiveIncludes)
			}
			replaced = append(replaced, tr.Replaced...)
		}
		out.TxResults[wtxid.String()] = r
	}
	out.Replaced = rpc.SortTxIDs(replaced)
	return out, nil
}

// prioritise answers prioritisetransaction.
func (s *server) prioritise(txid wire.Hash, delta int64) error {
	if err := s.pool.PrioritiseTransaction(txid, delta); err != nil {
		if errors.Is(err, mempool.ErrDustPriority) {
			return rpc.NewError(rpc.ErrInvalidParam, "Priority is not supported for transactions with dust outputs.")
		}
		return err
	}
	return nil
}

// prioritised answers getprioritisedtransactions.
func (s *server) prioritised() ([]rpc.PrioritisedTx, error) {
	list := s.pool.PrioritisedTransactions()
	out := make([]rpc.PrioritisedTx, len(list))
	for i, pt := range list {
		out[i] = rpc.PrioritisedTx{TxID: pt.TxID, Delta: pt.Delta, InMempool: pt.InMempool, ModifiedFee: pt.ModifiedFee}
	}
	return out, nil
}

// orphans answers getorphantxs. The pool numbers peers one above their
// getpeerinfo id (0 is the node itself), so the ids are shifted back.
func (s *server) orphans() ([]rpc.OrphanTx, error) {
	list := s.pool.Orphans()
	out := make([]rpc.OrphanTx, len(list))
	for i, o := range list {
		from := make([]int64, 0, len(o.From))
		for _, peer := range o.From {
			if peer > 0 {
				from = append(from, int64(peer)-1)
			}
		}
		out[i] = rpc.OrphanTx{Tx: o.Tx, Entry: o.Entered.Unix(), Expiration: o.Expires.Unix(), From: from}
	}
	return out, nil
}

func hashStrings(hs []wire.Hash) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.String()
	}
	return out
}
