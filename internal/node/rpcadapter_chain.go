package node

import (
	"errors"
	"math"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// This file holds the chain backend functions that need more than one
// chain query: spent outputs for getblock/getblockstats, getchaintxstats,
// the merkle proofs and verifychain.

// undoFor reads a block's spent outputs (blockchain.MatchingUndo).
func (s *server) undoFor(hash *wire.Hash, blk *wire.MsgBlock) (*database.BlockUndo, bool, error) {
	return s.chain.MatchingUndo(hash, blk)
}

// blockPrevOuts returns the spent outputs of every non-coinbase
// transaction of a block (getblock verbosity 2 and 3); nil when the undo
// data is not available, which makes getblock omit fees and prevouts as
// bitcoind does.
func (s *server) blockPrevOuts(hash wire.Hash) ([][]rpc.PrevOut, error) {
	// The handlers match the record against the block they hold (per
	// transaction input counts), so the block is not read again here.
	u, ok, err := s.undoFor(&hash, nil)
	if err != nil || !ok {
		return nil, err
	}
	out := make([][]rpc.PrevOut, len(u.TxInputs))
	all := make([]rpc.PrevOut, len(u.Spent))
	for i := range u.Spent {
		e := &u.Spent[i]
		all[i] = rpc.PrevOut{Generated: e.IsCoinBase, Height: e.Height, Value: e.Amount, PkScript: e.PkScript}
	}
	k := 0
	for i, n := range u.TxInputs {
		out[i] = all[k : k+int(n) : k+int(n)]
		k += int(n)
	}
	return out, nil
}

// isBIP30Repeat reports the two mainnet blocks whose coinbases repeat
// earlier ones (they do not change the UTXO set counts).
func (s *server) isBIP30Repeat(height int32, hash *wire.Hash) bool {
	if s.cfg.params.Net != wire.MainNet {
		return false
	}
	switch height {
	case 91842:
		return hash.String() == "00000000000a4d0a398161ffc163c503763b1f4360639393e0e4c8e300e0caec"
	case 91880:
		return hash.String() == "00000000000743f190a18c5577a3c2d2a1f610ae9601ac046a38084ccb7cd721"
	}
	return false
}

// blockStats gathers what getblockstats reads (the block, its spent
// outputs, its place in the chain); rpc.BlockStatsOf computes the figures.
func (s *server) blockStats(hash wire.Hash) (*rpc.BlockStats, error) {
	st, ok := s.chain.LookupBlock(&hash)
	if !ok {
		return nil, rpc.ErrBlockNotFound
	}
	blk, err := s.chain.BlockByHash(&hash)
	if err != nil {
		return nil, rpc.NewError(rpc.ErrMisc, "Block not available (pruned data)")
	}
	in := rpc.BlockStatsInput{
		Hash:        hash,
		Block:       blk,
		Height:      st.Height,
		MedianTime:  st.MedianTime,
		Subsidy:     blockchain.CalcBlockSubsidy(st.Height, s.cfg.params.SubsidyHalvingInterval),
		BIP30Repeat: s.isBIP30Repeat(st.Height, &hash),
	}
	if st.Height > 0 {
		u, ok, err := s.undoFor(&hash, blk)
		if err != nil || !ok {
			return nil, rpc.NewError(rpc.ErrMisc, "Undo data expected but can't be read. This could be due to disk corruption or a conflict with a pruning event.")
		}
		in.Spent = make([]rpc.PrevOut, len(u.Spent))
		for i := range u.Spent {
			in.Spent[i] = rpc.PrevOut{Value: u.Spent[i].Amount, PkScript: u.Spent[i].PkScript}
		}
	}
	return rpc.BlockStatsOf(&in), nil
}

// chainTxCount returns the number of transactions in the main chain up to
// and including height, counting back from the tip's total.
func (s *server) chainTxCount(height int32) (int64, bool) {
	tip := s.chain.BestSnapshot()
	total := int64(tip.TotalTxns)
	for h := tip.Height; h > height; h-- {
		hash, ok := s.chain.BlockHashByHeight(h)
		if !ok {
			return 0, false
		}
		st, ok := s.chain.LookupBlock(&hash)
		if !ok {
			return 0, false
		}
		total -= int64(st.NumTx)
	}
	return total, total > 0
}

// chainTxStats answers getchaintxstats; nblocks < 0 means the default
// window of one month of blocks.
func (s *server) chainTxStats(nblocks int32, hash wire.Hash) (*rpc.ChainTxStats, error) {
	st, ok := s.chain.LookupBlock(&hash)
	if !ok {
		return nil, rpc.ErrBlockNotFound
	}
	if !st.MainChain {
		return nil, rpc.NewError(rpc.ErrInvalidParam, "Block is not in main chain")
	}
	if nblocks < 0 {
		month := int32(30 * 24 * time.Hour / s.cfg.params.TargetTimePerBlock)
		nblocks = max(0, min(month, st.Height-1))
	} else if nblocks > 0 && nblocks >= st.Height {
		return nil, rpc.NewError(rpc.ErrInvalidParam, "Invalid block count: should be between 0 and the block's height - 1")
	}
	r := &rpc.ChainTxStats{
		Time:                   int64(st.Header.Timestamp),
		WindowFinalBlockHash:   hash.String(),
		WindowFinalBlockHeight: st.Height,
		WindowBlockCount:       nblocks,
	}
	count, okCount := s.chainTxCount(st.Height)
	if okCount {
		r.TxCount = &count
	}
	if nblocks == 0 {
		return r, nil
	}
	pastHash, ok := s.chain.BlockHashByHeight(st.Height - nblocks)
	if !ok {
		return nil, rpc.ErrBlockNotFound
	}
	past, _ := s.chain.LookupBlock(&pastHash)
	interval := st.MedianTime - past.MedianTime
	r.WindowInterval = &interval
	if okCount {
		// The window's transactions are those of the blocks after the
		// past block up to and including the final one.
		var n int64
		for h := past.Height + 1; h <= st.Height; h++ {
			bh, ok := s.chain.BlockHashByHeight(h)
			if !ok {
				return r, nil
			}
			b, _ := s.chain.LookupBlock(&bh)
			n += int64(b.NumTx)
		}
		r.WindowTxCount = &n
		if interval > 0 {
			f := rpc.Float(float64(n) / float64(interval))
			r.TxRate = &f
		}
	}
	return r, nil
}

// maxUTXOProbe bounds the output indexes gettxoutproof tries when it
// looks a transaction up in the UTXO set without a txindex.
const maxUTXOProbe = 256

// txOutProof answers gettxoutproof.
func (s *server) txOutProof(txids []wire.Hash, blockHash *wire.Hash) ([]byte, error) {
	if len(txids) == 0 {
		return nil, rpc.NewError(rpc.ErrInvalidParam, "Parameter 'txids' cannot be empty")
	}
	var hash wire.Hash
	switch {
	case blockHash != nil:
		st, ok := s.chain.LookupBlock(blockHash)
		if !ok {
			return nil, rpc.ErrBlockNotFound
		}
		if !st.HaveData {
			return nil, rpc.NewError(rpc.ErrMisc, "Block not available (not fully downloaded)")
		}
		hash = *blockHash
	default:
		found := false
		// Like Core, look for an unspent output of any of the txids,
		// then ask the txindex about the first.
		for _, id := range txids {
			for i := uint32(0); i < maxUTXOProbe && !found; i++ {
				if e, ok, _ := s.chain.FetchUtxo(wire.OutPoint{Hash: id, Index: i}); ok {
					hash, found = s.chain.BlockHashByHeight(e.Height)
				}
			}
			if found {
				break
			}
		}
		if !found && s.cfg.TxIndex {
			if _, bh, _, err := s.chain.TxByID(&txids[0]); err == nil {
				hash, found = bh, true
			}
		}
		if !found {
			return nil, rpc.NewError(rpc.ErrInvalidAddress, "Transaction not yet in block")
		}
	}
	blk, err := s.chain.BlockByHash(&hash)
	if err != nil {
		return nil, rpc.NewError(rpc.ErrInternal, "Can't read block from disk")
	}
	ids := blk.TxHashes()
	want := make(map[wire.Hash]bool, len(txids))
	for _, id := range txids {
		want[id] = true
	}
	match := make([]bool, len(ids))
	n := 0
	for i, id := range ids {
		if want[id] {
			match[i] = true
			n++
		}
	}
	if n != len(txids) {
		return nil, rpc.NewError(rpc.ErrInvalidAddress, "Not all transactions found in specified or retrieved block")
	}
	return rpc.AppendTxOutProof(nil, &blk.Header, ids, match), nil
}

// verifyTxOutProof answers verifytxoutproof: the proven txids when the
// proof is well formed, commits to its header's merkle root, and the block
// is in the active chain with the claimed transaction count; an empty list
// when the tree does not verify.
func (s *server) verifyTxOutProof(proof []byte) ([]wire.Hash, error) {
	p, err := rpc.ParseTxOutProof(proof)
	if errors.Is(err, rpc.ErrProofEncoding) {
		// bitcoind's stream error surfaces as -1.
		return nil, rpc.NewError(rpc.ErrMisc, err.Error())
	}
	if err != nil || p.Root != p.Header.MerkleRoot {
		return []wire.Hash{}, nil
	}
	hash := p.Header.BlockHash()
	st, ok := s.chain.LookupBlock(&hash)
	if !ok || !st.MainChain || st.NumTx == 0 {
		return nil, rpc.NewError(rpc.ErrInvalidAddress, "Block not found in chain")
	}
	if st.NumTx != p.NumTx {
		return []wire.Hash{}, nil
	}
	return p.Matches, nil
}

// deploymentInfo answers getdeploymentinfo as Bitcoin Core 30 does. The
// buried deployments come from the network's activation heights; the
// version-bits ones (testdummy, taproot) from the chain's BIP9 state
// machine, which reports taproot's deployment even though its rules are
// enforced from TaprootHeight, as Core reports it while burying its
// enforcement. Like Core, a deployment that can never activate (a buried
// height of MaxInt32, a BIP9 start of NEVER_ACTIVE) is left out.
func (s *server) deploymentInfo(hash wire.Hash) (*rpc.DeploymentInfo, error) {
	st, ok := s.chain.LookupBlock(&hash)
	if !ok {
		return nil, rpc.ErrBlockNotFound
	}
	p := s.cfg.params
	next := st.Height + 1
	out := &rpc.DeploymentInfo{
		Hash:        hash.String(),
		Height:      st.Height,
		Deployments: map[string]*rpc.Deployment{},
	}
	for _, b := range []struct {
		name   string
		height int32
	}{{"bip34", p.BIP34Height}, {"bip66", p.BIP66Height}, {"bip65", p.BIP65Height}, {"csv", p.CSVHeight}, {"segwit", p.SegwitHeight}} {
		if b.height == math.MaxInt32 {
			continue
		}
		h := b.height
		out.Deployments[b.name] = &rpc.Deployment{Type: "buried", Height: &h, Active: next >= h}
	}
	for id := range p.Deployments {
		dep := &p.Deployments[id]
		if dep.StartTime == chaincfg.DeploymentNeverActive {
			continue
		}
		vb, err := s.chain.DeploymentState(id, hash)
		if err != nil {
			return nil, rpc.ErrBlockNotFound
		}
		out.Deployments[dep.Name] = bip9Deployment(dep, &vb, st.Height)
	}
	return out, nil
}

// bip9Deployment is one version-bits entry of getdeploymentinfo for the
// block at height. The bit and the statistics appear only while the
// deployment is started or locked in; "height" once it is (or will be, for
// the next block) active.
func bip9Deployment(dep *chaincfg.Deployment, vb *blockchain.DeploymentStatus, height int32) *rpc.Deployment {
	info := &rpc.BIP9Info{
		StartTime:           dep.StartTime,
		Timeout:             dep.Timeout,
		MinActivationHeight: dep.MinActivationHeight,
		Status:              vb.State.String(),
		Since:               vb.Since,
		StatusNext:          vb.Next.String(),
	}
	if vb.Stats != nil {
		bit := int(dep.Bit)
		info.Bit = &bit
		stats := &rpc.BIP9Statistics{Period: vb.Stats.Period, Elapsed: vb.Stats.Elapsed, Count: vb.Stats.Count}
		if vb.Stats.Threshold > 0 || vb.Stats.Possible {
			th, possible := vb.Stats.Threshold, vb.Stats.Possible
			stats.Threshold, stats.Possible = &th, &possible
		}
		info.Statistics = stats
		sig := make([]byte, len(vb.Signalling))
		for i, b := range vb.Signalling {
			sig[i] = '-'
			if b {
				sig[i] = '#'
			}
		}
		str := string(sig)
		info.Signalling = &str
	}
	e := &rpc.Deployment{Type: "bip9", BIP9: info}
	if vb.ActiveHeight >= 0 {
		h := vb.ActiveHeight
		e.Height, e.Active = &h, h <= height+1
	}
	return e
}

// timestampWindow is Core's allowance for out-of-order block times when
// pruneblockchain is given a timestamp.
const timestampWindow = 2 * 60 * 60

// pruneBlockchain answers pruneblockchain: a height, or (above 10^9) a
// timestamp meaning the earliest block whose chain reached that time less
// two hours. It returns the height of the last pruned block (-1: none).
func (s *server) pruneBlockchain(height int64) (int64, error) {
	c := s.chain
	if !c.Pruned() {
		return 0, rpc.NewError(rpc.ErrMisc, "Cannot prune blocks because node is not in prune mode.")
	}
	tip := c.BestSnapshot().Height
	if height > 1_000_000_000 {
		found := false
		var maxTime int64
		for h := int32(0); h <= tip; h++ {
			hash, ok := c.BlockHashByHeight(h)
			if !ok {
				break
			}
			hdr, _, _ := c.HeaderByHash(&hash)
			maxTime = max(maxTime, int64(hdr.Timestamp))
			if maxTime >= height-timestampWindow {
				height, found = int64(h), true
				break
			}
		}
		if !found {
			return 0, rpc.NewError(rpc.ErrInvalidParam, "Could not find block with at least the specified timestamp.")
		}
	}
	if tip < s.cfg.params.PruneAfterHeight {
		return 0, rpc.NewError(rpc.ErrMisc, "Blockchain is too short for pruning.")
	}
	if height > int64(tip) {
		return 0, rpc.NewError(rpc.ErrInvalidParam, "Blockchain is shorter than the attempted prune height.")
	}
	h, err := c.PruneBlockchain(int32(height))
	return int64(h), err
}

// txPrevOuts returns the spent outputs of a transaction of a stored block
// from the block's undo data (getrawtransaction verbosity 2).
func (s *server) txPrevOuts(tx *wire.MsgTx, blockHash wire.Hash) ([]rpc.PrevOut, error) {
	if tx.IsCoinBase() {
		return nil, nil
	}
	blk, err := s.chain.BlockByHash(&blockHash)
	if err != nil {
		return nil, err
	}
	txid := tx.TxHash()
	for i, h := range blk.TxHashes() {
		if h != txid || i == 0 {
			continue
		}
		prev, err := s.blockPrevOuts(blockHash)
		if err != nil || i-1 >= len(prev) {
			return nil, err
		}
		return prev[i-1], nil
	}
	return nil, nil
}

// signalsRBF is getmempoolentry's bip125-replaceable: the transaction or
// one of its in-pool ancestors signals BIP125 (an input sequence below
// 0xfffffffe).
func (s *server) signalsRBF(e *mempool.Entry) bool {
	signals := func(tx *wire.MsgTx) bool {
		for i := range tx.TxIn {
			if tx.TxIn[i].Sequence < wire.MaxTxInSequenceNum-1 {
				return true
			}
		}
		return false
	}
	if signals(e.Tx) {
		return true
	}
	anc, _ := s.pool.Ancestors(e.TxID)
	for _, a := range anc {
		if signals(a.Tx) {
			return true
		}
	}
	return false
}

// submitHeader answers submitheader with bitcoind's errors: -25 "Must
// submit previous header (...) first" for an unknown parent, -25 with the
// reject reason for an invalid header.
func (s *server) submitHeader(h *wire.BlockHeader) error {
	if _, ok := s.chain.LookupBlock(&h.PrevBlock); !ok {
		return rpc.Errorf(rpc.ErrVerify, "Must submit previous header (%v) first", h.PrevBlock)
	}
	if _, _, err := s.chain.ProcessHeaders([]wire.BlockHeader{*h}); err != nil {
		return rpc.NewError(rpc.ErrVerify, ruleReason(err))
	}
	return nil
}

// indexInfo answers getindexinfo for the transaction index. The block
// filter index is reported by its own wiring when present.
func (s *server) indexInfo() (map[string]rpc.IndexInfo, error) {
	out := map[string]rpc.IndexInfo{}
	if s.cfg.TxIndex {
		synced := s.chain.TxIndexSynced()
		e := rpc.IndexInfo{Synced: synced}
		if synced {
			e.BestBlockHeight = s.chain.BestSnapshot().Height
		}
		out["txindex"] = e
	}
	if s.filters != nil {
		// The filter worker keeps no first-sync flag; the index is
		// synced when it stands at the chain's tip.
		hash, h := s.filters.Tip()
		out["basic block filter index"] = rpc.IndexInfo{Synced: hash == s.chain.BestSnapshot().Hash, BestBlockHeight: max(h, 0)}
	}
	s.addCoinStatsIndexInfo(out) // coinstatsindex.go
	return out, nil
}
