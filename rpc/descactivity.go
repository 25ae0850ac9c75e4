package rpc

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/btcnode/btcd/wire"
)

// maxActivityBlocks bounds the block hashes one getdescriptoractivity call
// may name: each costs a block and undo read.
const maxActivityBlocks = 100_000

// DescriptorActivity is one getdescriptoractivity event: a "spend" fills
// the spend_ and prevout_ fields, a "receive" txid, vout and output_spk.
type DescriptorActivity struct {
	Type        string        `json:"type"`
	Amount      json.Number   `json:"amount"`
	BlockHash   string        `json:"blockhash,omitempty"`
	Height      *int32        `json:"height,omitempty"`
	SpendTxID   string        `json:"spend_txid,omitempty"`
	SpendVin    *int          `json:"spend_vin,omitempty"`
	PrevoutTxID string        `json:"prevout_txid,omitempty"`
	PrevoutVout *uint32       `json:"prevout_vout,omitempty"`
	PrevoutSPK  *ScriptPubKey `json:"prevout_spk,omitempty"`
	TxID        string        `json:"txid,omitempty"`
	Vout        *int          `json:"vout,omitempty"`
	OutputSPK   *ScriptPubKey `json:"output_spk,omitempty"`
}

// DescriptorActivityResult is the getdescriptoractivity result.
type DescriptorActivityResult struct {
	Activity []DescriptorActivity `json:"activity"`
}

type activityBlock struct {
	hash   wire.Hash
	height int32
}

func handleGetDescriptorActivity(s *Server, p *Params) (any, error) {
	var hashes []json.RawMessage
	if err := json.Unmarshal(p.Raw(0), &hashes); err != nil {
		return nil, typeError(p.Raw(0), "array")
	}
	if len(hashes) > maxActivityBlocks {
		return nil, Errorf(ErrInvalidParam, "At most %d blockhashes may be given", maxActivityBlocks)
	}
	c := s.chain()
	seen := map[wire.Hash]bool{}
	var blocks []activityBlock
	for _, raw := range hashes {
		if jsonKind(raw) != "string" {
			return nil, typeError(raw, "string")
		}
		h, err := parseHashV(rawString(raw), "blockhash")
		if err != nil {
			return nil, err
		}
		_, info, err := c.BlockHeader(h)
		if err != nil {
			return nil, NewError(ErrInvalidAddress, "Block not found")
		}
		if info.Confirmations < 0 {
			return nil, NewError(ErrInvalidParam, "Block is not in main chain")
		}
		if !seen[h] {
			seen[h] = true
			blocks = append(blocks, activityBlock{h, info.Height})
		}
	}
	sort.Slice(blocks, func(i, j int) bool { return blocks[i].height < blocks[j].height })
	needles, err := scanNeedles(context.Background(), p.Raw(1), &s.cfg.Net)
	if err != nil {
		return nil, err
	}
	withMempool, err := p.Bool(2, true)
	if err != nil {
		return nil, err
	}
	net := &s.cfg.Net
	spk := func(script []byte) *ScriptPubKey {
		v := decodeScriptPubKey(script, net)
		return &v
	}
	r := &DescriptorActivityResult{Activity: []DescriptorActivity{}}
	spend := func(po *PrevOut, tx *wire.MsgTx, vin int, b *activityBlock) {
		op := tx.TxIn[vin].PreviousOutPoint
		a := DescriptorActivity{Type: "spend", Amount: formatBTC(po.Value), SpendTxID: tx.TxHash().String(),
			SpendVin: &vin, PrevoutTxID: op.Hash.String(), PrevoutVout: &op.Index, PrevoutSPK: spk(po.PkScript)}
		if b != nil {
			a.BlockHash, a.Height = b.hash.String(), &b.height
		}
		r.Activity = append(r.Activity, a)
	}
	receive := func(tx *wire.MsgTx, b *activityBlock) {
		var txid string
		for i := range tx.TxOut {
			out := &tx.TxOut[i]
			if _, ok := needles[string(out.PkScript)]; !ok {
				continue
			}
			if txid == "" {
				txid = tx.TxHash().String()
			}
			vout := i
			a := DescriptorActivity{Type: "receive", Amount: formatBTC(out.Value), TxID: txid, Vout: &vout, OutputSPK: spk(out.PkScript)}
			if b != nil {
				a.BlockHash, a.Height = b.hash.String(), &b.height
			}
			r.Activity = append(r.Activity, a)
		}
	}
	for i := range blocks {
		b := &blocks[i]
		blk, err := c.Block(b.hash)
		if err != nil {
			return nil, err
		}
		var prev [][]PrevOut
		if c.BlockPrevOuts != nil {
			if prev, err = c.BlockPrevOuts(b.hash); err != nil {
				return nil, err
			}
		}
		if len(prev) != len(blk.Transactions)-1 {
			return nil, NewError(ErrMisc, "Can't read undo data from disk")
		}
		for ti, tx := range blk.Transactions {
			if ti > 0 {
				ins := prev[ti-1]
				for vin := range tx.TxIn {
					if vin < len(ins) {
						if _, ok := needles[string(ins[vin].PkScript)]; ok {
							spend(&ins[vin], tx, vin, b)
						}
					}
				}
			}
			receive(tx, b)
		}
	}
	if withMempool {
		if err := mempoolActivity(s, needles, spend, receive); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// mempoolActivity adds the unconfirmed spends and receives: spent outputs
// are looked up in the UTXO set, then among pool transactions.
func mempoolActivity(s *Server, needles map[string]needle, spend func(*PrevOut, *wire.MsgTx, int, *activityBlock), receive func(*wire.MsgTx, *activityBlock)) error {
	m := s.mempool()
	if m == nil || m.Transactions == nil {
		return nil
	}
	txs, err := m.Transactions()
	if err != nil {
		return err
	}
	c := s.chain()
	for _, tx := range txs {
		if c.Coins != nil {
			ops := make([]wire.OutPoint, len(tx.TxIn))
			for i := range tx.TxIn {
				ops[i] = tx.TxIn[i].PreviousOutPoint
			}
			coins, err := c.Coins(ops, true)
			if err != nil {
				return err
			}
			for vin, po := range coins {
				if po == nil || vin >= len(tx.TxIn) {
					continue
				}
				if _, ok := needles[string(po.PkScript)]; ok {
					spend(po, tx, vin, nil)
				}
			}
		}
		receive(tx, nil)
	}
	return nil
}
