package rpc

import (
	"encoding/hex"
	"time"

	"github.com/btcnode/btcd/wire"
)

// This file holds btcd's rescans over stored blocks: rescanblocks, which
// matches named blocks against the client's loadtxfilter filter, and the
// deprecated rescan, which walks the active chain from a block sending
// recvtx/redeemingtx and finishes with rescanfinished.

// rescanProgressEvery is how often rescan reports its progress.
const rescanProgressEvery = 10 * time.Second

// rescannedBlock is one rescanblocks result entry.
type rescannedBlock struct {
	Hash         string   `json:"hash"`
	Transactions []string `json:"transactions"`
}

func wsRescanMethods() []*wsMethod {
	needBlocks := chainHas(func(c *ChainBackend) bool {
		return c.Block != nil && c.BlockHeader != nil && c.BlockHash != nil && c.BestBlock != nil
	})
	return []*wsMethod{
		{Method: &Method{Name: "rescanblocks", Category: "websocket",
			Description: "Rescan blocks identified by hashes, in order, using the client's loaded transaction filter.  The blocks do not need to be on the main chain, but they do need to be adjacent to each other.",
			Args:        []Arg{{Name: "blockhashes", Type: ArgArr, Description: "List of hashes to rescan.  Each next block must be a child of the previous."}},
			Result:      `[ { "hash": "hex", "transactions": [ "hex", ... ] }, ... ]   (only blocks with matching transactions)`,
			Available:   needBlocks},
			handle: handleRescanBlocks},
		{Method: &Method{Name: "rescan", Category: "websocket",
			Description: "Rescan block chain for transactions to addresses.\nWhen the endblock parameter is omitted, the rescan continues through the best block in the main chain.\nRescan results are sent as recvtx and redeemingtx notifications.\nThis call returns once the rescan completes.\nNOTE: Deprecated. Use rescanblocks instead.",
			Args: []Arg{{Name: "beginblock", Type: ArgStr, Description: "Hash of the first block to begin rescanning"},
				{Name: "addresses", Type: ArgArr, Description: "List of addresses to include in the rescan"},
				{Name: "outpoints", Type: ArgArr, Description: "List of transaction outpoints to include in the rescan"},
				{Name: "endblock", Type: ArgStr, Optional: true, Description: "Hash of final block to rescan"}},
			Available: needBlocks},
			handle: handleRescan},
	}
}

func handleRescanBlocks(c *wsClient, p *Params) (any, error) {
	var strs []string
	if err := jsonUnmarshalArg(p.Raw(0), &strs); err != nil {
		return nil, err
	}
	h := c.s.hub()
	h.mu.Lock()
	loaded := c.sub.filter != nil
	h.mu.Unlock()
	if !loaded {
		return nil, NewError(ErrMisc, "Transaction filter must be loaded before rescanning")
	}
	hashes := make([]wire.Hash, len(strs))
	for i, str := range strs {
		hh, err := wire.NewHashFromStr(str)
		if err != nil {
			return nil, Errorf(ErrDeserialization, "Argument must be hexadecimal string (not %q)", str)
		}
		hashes[i] = hh
	}
	out := []rescannedBlock{}
	for i, hash := range hashes {
		select {
		case <-c.quit:
			return nil, NewError(ErrMisc, "client disconnected")
		default:
		}
		b, err := c.s.chain().Block(hash)
		if err != nil {
			return nil, NewError(ErrInvalidAddress, "Failed to fetch block: "+toRPCError(err).Message)
		}
		if i > 0 && b.Header.PrevBlock != hashes[i-1] {
			return nil, Errorf(ErrInvalidParam, "Block %v is not a child of %v", hash, hashes[i-1])
		}
		txids := b.TxHashes()
		var txs []string
		h.mu.Lock()
		f := c.sub.filter
		for j, tx := range b.Transactions {
			if f != nil && f.matchTx(tx, txids[j]) {
				txs = append(txs, hex.EncodeToString(tx.Bytes()))
			}
		}
		h.mu.Unlock()
		if len(txs) > 0 {
			out = append(out, rescannedBlock{Hash: strs[i], Transactions: txs})
		}
	}
	return out, nil
}

// errRescanReorg is btcd's answer when the chain changed under a rescan.
var errRescanReorg = NewError(ErrDatabase, "Reorganize")

func handleRescan(c *wsClient, p *Params) (any, error) {
	ch := c.s.chain()
	begin, err := p.Str(0, "")
	if err != nil {
		return nil, err
	}
	addrs, err := parseAddressList(c.s, p.Raw(1), true)
	if err != nil {
		return nil, err
	}
	ops, err := parseOutPoints(p.Raw(2))
	if err != nil {
		return nil, err
	}
	if len(addrs)+len(ops) > maxWatchEntries {
		return nil, errWatchTooLarge
	}
	height := func(s string) (int32, error) {
		hh, err := wire.NewHashFromStr(s)
		if err != nil {
			return 0, Errorf(ErrDeserialization, "Argument must be hexadecimal string (not %q)", s)
		}
		_, info, err := ch.BlockHeader(hh)
		if err != nil || info.Confirmations < 0 {
			return 0, NewError(ErrInvalidAddress, "Error getting block: block "+s+" is not in the main chain")
		}
		return info.Height, nil
	}
	from, err := height(begin)
	if err != nil {
		return nil, err
	}
	end, open := int32(0), true
	if p.Has(3) {
		e, _ := p.Str(3, "")
		if end, err = height(e); err != nil {
			return nil, err
		}
		open = false
	}
	keys := newWatchSet()
	for _, a := range addrs {
		keys.addAddress(a)
	}
	for _, op := range ops {
		keys.ops[op] = struct{}{}
	}
	var last *wire.MsgBlock
	var lastHash wire.Hash
	var lastHeight int32
	if keys.empty() {
		// Nothing to look for: report the tip as finished, as btcd.
		tip, tipHeight, err := ch.BestBlock()
		if err != nil {
			return nil, err
		}
		if last, err = ch.Block(tip); err != nil {
			return nil, NewError(ErrInvalidAddress, "Error getting block: "+toRPCError(err).Message)
		}
		lastHash, lastHeight = tip, tipHeight
	} else {
		log.Infof("Beginning rescan for %d addresses", len(addrs))
		r := rescanner{c: c, keys: keys, progress: time.Now().Add(rescanProgressEvery)}
		for {
			stop := end
			if open {
				_, tipHeight, err := ch.BestBlock()
				if err != nil {
					return nil, err
				}
				stop = tipHeight + 1
			}
			// As btcd, the end block itself is not scanned.
			for ; from < stop; from++ {
				if r.gone() {
					return nil, nil
				}
				if err := r.scan(from); err != nil {
					return nil, err
				}
			}
			if !open || r.last == nil || r.finishOpen() {
				break
			}
		}
		if r.last == nil {
			return nil, nil
		}
		last, lastHash, lastHeight = r.last, r.lastHash, r.lastHeight
	}
	c.sendPaced(notification("rescanfinished", lastHash.String(), lastHeight, int64(last.Header.Timestamp)))
	log.Infof("Finished rescan")
	return nil, nil
}

// rescanner is one rescan's walk.
type rescanner struct {
	c          *wsClient
	keys       *watchSet
	last       *wire.MsgBlock
	lastHash   wire.Hash
	lastHeight int32
	progress   time.Time
}

func (r *rescanner) gone() bool {
	select {
	case <-r.c.quit:
		return true
	default:
		return false
	}
}

// scan checks the active chain's block at height, which must extend the
// last one scanned.
func (r *rescanner) scan(height int32) error {
	ch := r.c.s.chain()
	hash, err := ch.BlockHash(height)
	if err != nil {
		return errRescanReorg
	}
	b, err := ch.Block(hash)
	if err != nil {
		return NewError(ErrDatabase, "Database error: "+toRPCError(err).Message)
	}
	if r.last != nil && b.Header.PrevBlock != r.lastHash {
		return errRescanReorg
	}
	txids := b.TxHashes()
	for i, tx := range b.Transactions {
		var txHex string
		getHex := func() string {
			if txHex == "" {
				txHex = hex.EncodeToString(tx.Bytes())
			}
			return txHex
		}
		det := &blockDetails{Height: height, Hash: hash.String(), Index: i, Time: int64(b.Header.Timestamp)}
		spent := false
		if !tx.IsCoinBase() {
			for j := range tx.TxIn {
				in := &tx.TxIn[j]
				_, watched := r.keys.ops[in.PreviousOutPoint]
				if watched {
					delete(r.keys.ops, in.PreviousOutPoint)
				}
				if !spent && (watched || r.keys.spendsAddress(in)) {
					spent = true
					r.c.sendPaced(txNotification("redeemingtx", getHex(), det))
				}
			}
		}
		recv := false
		for j := range tx.TxOut {
			if !r.keys.paysTo(tx.TxOut[j].PkScript) {
				continue
			}
			r.keys.ops[wire.OutPoint{Hash: txids[i], Index: uint32(j)}] = struct{}{}
			if !recv {
				recv = true
				r.c.sendPaced(txNotification("recvtx", getHex(), det))
			}
		}
	}
	r.last, r.lastHash, r.lastHeight = b, hash, height
	if time.Now().After(r.progress) {
		r.progress = time.Now().Add(rescanProgressEvery)
		r.c.sendPaced(notification("rescanprogress", hash.String(), height, int64(b.Header.Timestamp)))
	}
	return nil
}

// finishOpen ends a rescan without an end block: when the chain tip is
// still the last block scanned, the addresses and the outpoints found are
// handed to the client's watch list (notifyreceived/notifyspent), under
// the hub's lock so that no block can slip between the scan and the
// watch. It reports false when the tip moved on and more must be scanned.
func (r *rescanner) finishOpen() bool {
	h := r.c.s.hub()
	h.mu.Lock()
	defer h.mu.Unlock()
	tip, _, err := r.c.s.chain().BestBlock()
	if err != nil {
		return true
	}
	if tip != r.lastHash {
		return false
	}
	if r.c.sub.watch == nil {
		r.c.sub.watch = newWatchSet()
	}
	for k := range r.keys.scripts {
		r.c.sub.watch.scripts[k] = struct{}{}
	}
	for k := range r.keys.pkh {
		r.c.sub.watch.pkh[k] = struct{}{}
	}
	for op := range r.keys.ops {
		r.c.sub.watch.ops[op] = struct{}{}
	}
	return true
}
