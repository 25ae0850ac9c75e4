package chaingen

import (
	"math/big"

	"github.com/btcnode/btcd/wire"
)

// Next builds, signs and mines the next block and hands it to sink.
func (g *Generator) Next(sink BlockSink) error {
	if g.Done() {
		return nil
	}
	h := g.height + 1
	if c, ok := g.immature[h-g.p.CoinbaseMaturity]; ok {
		// In the age-based mix a matured coinbase joins its own block's
		// pool, so that its coins are drawn at their real age.
		if n, m := len(g.recent), int(g.p.CoinbaseMaturity); g.cfg.Profile == ProfileMainnetScale && m >= 1 && m <= n {
			g.recent[n-m] = append(g.recent[n-m], c...)
		} else {
			g.old = append(g.old, c...)
		}
		delete(g.immature, h-g.p.CoinbaseMaturity)
	}
	if h > g.p.CoinbaseMaturity+200 && len(g.old) == 0 && len(g.recent) == 0 {
		return errorf(ErrInternal, "no spendable coins at height %d", h)
	}

	// Build the transactions. Weight is measured with placeholder
	// signatures, which are never smaller than the real ones.
	cbWeight := int64(4 * (200 + g.cbSplit*(9+34)))
	budget := wire.MaxBlockWeight - cbWeight - 4000
	var weight int64
	txs := make([]*ptx, 0, min(g.cfg.TxPerBlock, g.txsLeft))
	for attempts := 0; len(txs) < g.cfg.TxPerBlock && len(txs) < g.txsLeft && attempts < 4*g.cfg.TxPerBlock; attempts++ {
		if weight+g.maxTxWeight > budget {
			break
		}
		p := new(ptx)
		built, exhausted := g.buildTx(p)
		if exhausted {
			break
		}
		if !built {
			continue
		}
		weight += p.weight
		txs = append(txs, p)
	}
	if !g.cfg.Profile.Unsigned() {
		if err := g.signAll(txs); err != nil {
			return err
		}
	}

	var fees int64
	for _, p := range txs {
		for i := range p.coins {
			fees += p.coins[i].value
			g.inTypes[p.coins[i].kind]++
		}
		for i := range p.tx.TxOut {
			fees -= p.tx.TxOut[i].Value
		}
		if p.deferred {
			txid := p.tx.TxHash()
			for i := range p.outs {
				p.outs[i].op.Hash = txid
			}
			g.cur = append(g.cur, p.outs...)
		}
		for i := range p.outs {
			g.outTypes[p.outs[i].kind]++
		}
		g.stats.Inputs += len(p.coins)
		g.stats.Outputs += len(p.outs)
	}

	block := &wire.MsgBlock{Transactions: make([]*wire.MsgTx, 0, len(txs)+1)}
	cb, cbCoins := g.coinbase(h, fees)
	block.Transactions = append(block.Transactions, cb)
	for _, p := range txs {
		block.Transactions = append(block.Transactions, &p.tx)
	}
	// Witness commitment (BIP141): the coinbase's wtxid counts as zero,
	// so the commitment can be set after the other wtxids are known.
	wroot := block.WitnessMerkleRoot()
	var buf [64]byte
	copy(buf[:32], wroot[:])
	commit := wire.DoubleHashH(buf[:]) // witness nonce is 32 zero bytes
	cpk := cb.TxOut[len(cb.TxOut)-1].PkScript
	copy(cpk[6:], commit[:])

	txids := make([]wire.Hash, len(block.Transactions))
	for i, tx := range block.Transactions {
		txids[i] = tx.TxHash()
	}
	for i := range cbCoins {
		cbCoins[i].op.Hash = txids[0]
	}
	g.immature[h] = cbCoins
	root, _ := wire.CalcMerkleRoot(txids)

	block.Header = wire.BlockHeader{
		Version:    blockVersion,
		PrevBlock:  g.prevHash,
		MerkleRoot: root,
		Timestamp:  g.p.GenesisBlock.Header.Timestamp + uint32(h)*blockSpacing,
		Bits:       g.p.PowLimitBits,
	}
	hash := g.mine(&block.Header)

	bw := block.Weight()
	if bw > wire.MaxBlockWeight {
		return errorf(ErrInternal, "block %d weight %d over the limit", h, bw)
	}
	g.raw = block.AppendTo(g.raw[:0], true)
	if err := sink(h, block, g.raw); err != nil {
		return err
	}

	// Age the coin pools: this block's coins become "recent", the oldest
	// recent block's coins join the general pool.
	g.recent = append(g.recent, g.cur)
	g.cur = nil
	if len(g.recent) > g.window {
		g.old = append(g.old, g.recent[0]...)
		g.recent = g.recent[1:]
	}

	g.height = h
	g.prevHash = hash
	g.txsLeft -= len(txs)
	s := &g.stats
	s.Blocks++
	s.Height = h
	s.Transactions += len(txs)
	s.Bytes += int64(len(g.raw))
	s.Weight += bw
	s.MaxBlockWeight = max(s.MaxBlockWeight, bw)
	s.Tip = hash.String()
	return nil
}

// appendHeight appends BIP34's height push (Core's CScript() << height).
func appendHeight(dst []byte, h int32) []byte {
	if h >= 1 && h <= 16 {
		return append(dst, byte(0x50+h))
	}
	var num [5]byte
	n := 0
	for v := uint32(h); v > 0; v >>= 8 {
		num[n] = byte(v)
		n++
	}
	if num[n-1]&0x80 != 0 {
		n++ // sign byte stays zero
	}
	dst = append(dst, byte(n))
	return append(dst, num[:n]...)
}

// subsidy is the block reward at height h (regtest halves every 150).
func (g *Generator) subsidy(h int32) int64 {
	halvings := h / g.p.SubsidyHalvingInterval
	if halvings >= 64 {
		return 0
	}
	return (50 * 100_000_000) >> uint(halvings)
}

// coinbase builds the coinbase of block h claiming subsidy plus fees,
// split into many outputs so the UTXO set has coins to spend once they
// mature, and ending with a zero witness commitment to fill in later.
func (g *Generator) coinbase(h int32, fees int64) (*wire.MsgTx, []coin) {
	value := g.subsidy(h) + fees
	n := int(min(int64(g.cbSplit), value/20_000))
	n = max(n, 1)
	sig := appendHeight(nil, h)
	sig = append(sig, 8)
	sig = append(sig, "chaingen"...)
	tx := &wire.MsgTx{
		Version: 2,
		TxIn: []wire.TxIn{{
			PreviousOutPoint: wire.OutPoint{Index: wire.MaxPrevOutIndex},
			SignatureScript:  sig,
			Witness:          [][]byte{make([]byte, 32)},
			Sequence:         wire.MaxTxInSequenceNum,
		}},
		TxOut: make([]wire.TxOut, n+1),
	}
	coins := make([]coin, n)
	each := value / int64(n)
	for i := range coins {
		c := &coins[i]
		c.kind = g.randKind()
		c.key = uint32(g.rng.IntN(len(g.keys)))
		c.value = each
		if i == 0 {
			c.value += value - each*int64(n)
		}
		c.op.Index = uint32(i)
		tx.TxOut[i] = wire.TxOut{Value: c.value, PkScript: g.keys[c.key].pkScripts[c.kind]}
		g.outTypes[c.kind]++
	}
	commit := make([]byte, 38)
	copy(commit, []byte{0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed})
	tx.TxOut[n] = wire.TxOut{PkScript: commit}
	g.commits++
	g.stats.Outputs += n + 1
	return tx, coins
}

// mine searches the nonce; at regtest's difficulty about every second
// header hash qualifies.
func (g *Generator) mine(hdr *wire.BlockHeader) wire.Hash {
	for nonce := uint32(0); ; nonce++ {
		hdr.Nonce = nonce
		hash := hdr.BlockHash()
		if hashBig(hash).Cmp(g.target) <= 0 {
			return hash
		}
	}
}

// hashBig interprets a block hash as the little-endian number PoW compares.
func hashBig(h wire.Hash) *big.Int {
	var be [32]byte
	for i := range h {
		be[31-i] = h[i]
	}
	return new(big.Int).SetBytes(be[:])
}
