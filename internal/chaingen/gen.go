package chaingen

import (
	"math/big"
	"math/rand/v2"
	"runtime"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// Preset chain sizes (non-coinbase transactions) for -size.
const (
	SmallTxs  = 20_000
	MediumTxs = 200_000
	LargeTxs  = 1_000_000
)

// DefaultTxPerBlock is the number of transactions in a full block: about
// what mainnet blocks of the P2WPKH era carry.
const DefaultTxPerBlock = 2000

// DefaultKeys is the size of the key pool outputs are paid to.
const DefaultKeys = 1024

// TxsForSize maps a -size name to its transaction count.
func TxsForSize(name string) (int, error) {
	switch name {
	case "small":
		return SmallTxs, nil
	case "medium":
		return MediumTxs, nil
	case "large":
		return LargeTxs, nil
	}
	return 0, errorf(ErrConfig, "unknown size %q (want small, medium or large)", name)
}

// Config selects the chain to generate. The same Config always produces
// byte-identical blocks, whatever Workers is.
type Config struct {
	// Txs is the number of non-coinbase transactions to generate.
	Txs int
	// TxPerBlock caps the transactions per block (DefaultTxPerBlock if 0).
	TxPerBlock int
	// Seed selects the keys and every random choice.
	Seed uint64
	// Workers is the number of signing goroutines (GOMAXPROCS if 0).
	Workers int
	// Keys is the key pool size (DefaultKeys if 0).
	Keys int
	// Params are the chain parameters (regtest if nil). Only regtest-like
	// parameters with a no-retarget proof-of-work limit make sense.
	Params *chaincfg.Params
	// Profile selects the transaction mix (ProfileSigned if zero).
	Profile Profile
}

// Tuning constants of the transaction mix.
const (
	minOutput    = 1000 // sats; above every dust threshold
	recentBlocks = 5    // window of "a few blocks earlier"
	// pctSameBlock and pctRecent are the chances (percent) that an input
	// spends an output of the same block or of the last recentBlocks
	// blocks; the rest spend a uniformly chosen older coin.
	pctSameBlock = 12
	pctRecent    = 33
	// maxTxWeight bounds one generated transaction (three P2PKH inputs
	// and three outputs with placeholder signatures), so a block can be
	// closed before it could exceed the weight limit.
	maxTxWeight = 4 * 700
	// maxCoinbaseOutputs bounds the split of a coinbase.
	maxCoinbaseOutputs = 8000
	sequence           = 0xfffffffd
	blockVersion       = 0x20000000
	blockSpacing       = 600
)

// coin is a spendable output the generator can sign for.
type coin struct {
	op    wire.OutPoint
	value int64
	key   uint32
	kind  Kind
}

// Stats summarises a generated chain; it is the JSON summary line.
type Stats struct {
	Blocks          int            `json:"blocks"`
	Height          int32          `json:"height"`
	Transactions    int            `json:"transactions"` // excluding coinbases
	Inputs          int            `json:"inputs"`       // excluding coinbases
	Outputs         int            `json:"outputs"`      // including coinbase outputs
	Signatures      int            `json:"signatures"`
	SameBlockSpends int            `json:"same_block_spends"`
	Fees            int64          `json:"fees"`
	Bytes           int64          `json:"bytes"` // serialized blocks, without file framing
	Weight          int64          `json:"weight"`
	MaxBlockWeight  int64          `json:"max_block_weight"`
	Abandoned       int            `json:"abandoned_coins"` // too small to spend, left in the UTXO set
	Tip             string         `json:"tip"`
	InputTypes      map[string]int `json:"input_types"`
	OutputTypes     map[string]int `json:"output_types"`
}

// BlockSink receives each block as it is finished, in height order. raw
// is the block's serialization (with witnesses); both block and raw are
// only valid during the call.
type BlockSink func(height int32, block *wire.MsgBlock, raw []byte) error

// ptx is a transaction being built and its signing context.
type ptx struct {
	tx       wire.MsgTx
	coins    []coin
	prev     []wire.TxOut
	hashes   *txscript.TxSigHashes
	deferred bool   // has a P2PKH input, so its txid is known only after signing
	outs     []coin // outputs, for deferred transactions
	weight   int64
}

// Generator produces the chain block by block.
type Generator struct {
	cfg    Config
	p      *chaincfg.Params
	keys   []keyInfo
	rng    *rand.Rand
	target *big.Int

	height   int32
	prevHash wire.Hash
	txsLeft  int

	old      []coin
	recent   [][]coin // coins of the last recentBlocks blocks, oldest first
	cur      []coin   // spendable coins created in the block being built
	immature map[int32][]coin

	kindCum           [numKinds]int
	window            int   // blocks in recent: recentBlocks, or ageWindow for ProfileMainnetScale
	maxTxWeight       int64 // bound on one transaction's weight
	trueSpends        [numKinds]trueSpend
	cbSplit           int
	raw               []byte
	stats             Stats
	inTypes, outTypes [numKinds]int
	commits           int
}

// New prepares a generator; it derives the key pool, which takes a
// fraction of a second.
func New(cfg Config) (*Generator, error) {
	if cfg.Txs <= 0 {
		return nil, errorf(ErrConfig, "transaction count %d", cfg.Txs)
	}
	if cfg.TxPerBlock == 0 {
		cfg.TxPerBlock = DefaultTxPerBlock
	}
	if cfg.TxPerBlock < 1 || cfg.TxPerBlock > 10000 {
		return nil, errorf(ErrConfig, "transactions per block %d (want 1 to 10000)", cfg.TxPerBlock)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Keys == 0 {
		cfg.Keys = DefaultKeys
	}
	if cfg.Keys < 3 || cfg.Keys > 1<<20 {
		return nil, errorf(ErrConfig, "key pool size %d", cfg.Keys)
	}
	if cfg.Profile >= numProfiles {
		return nil, errorf(ErrConfig, "profile %d", cfg.Profile)
	}
	p := cfg.Params
	if p == nil {
		p = &chaincfg.RegressionNetParams
	}
	keys, err := newKeyPool(cfg.Seed, cfg.Keys)
	if err != nil {
		return nil, err
	}
	g := &Generator{
		cfg:      cfg,
		p:        p,
		keys:     keys,
		rng:      rand.New(rand.NewPCG(cfg.Seed, 0x636861696e67656e)),
		target:   chaincfg.CompactToBig(p.PowLimitBits),
		prevHash: p.GenesisHash,
		txsLeft:  cfg.Txs,
		immature: make(map[int32][]coin),
	}
	weights := &kindWeights
	g.window, g.maxTxWeight = recentBlocks, maxTxWeight
	if cfg.Profile == ProfileMainnetScale {
		weights = &trueWeights
		g.window, g.maxTxWeight = ageWindow, maxTrueTxWeight
		if g.trueSpends, err = newTrueSpends(cfg.Seed); err != nil {
			return nil, err
		}
		for i := range keys {
			for k := numSignedKinds; k < numKinds; k++ {
				keys[i].pkScripts[k] = g.trueSpends[k].pkScript
			}
		}
	}
	sum := 0
	for k := range numKinds {
		sum += weights[k]
		g.kindCum[k] = sum
	}
	// Split coinbases about as many ways as a block has transactions so
	// that the first spendable coinbase alone can feed a full block.
	g.cbSplit = min(max(cfg.TxPerBlock, 100), maxCoinbaseOutputs)
	return g, nil
}

// Done reports whether every requested transaction has been generated.
func (g *Generator) Done() bool { return g.txsLeft == 0 }

// Stats returns the summary of the blocks generated so far.
func (g *Generator) Stats() Stats {
	s := g.stats
	s.InputTypes = make(map[string]int, numKinds)
	s.OutputTypes = make(map[string]int, numKinds+1)
	for k := range numKinds {
		if k < numSignedKinds || g.inTypes[k]+g.outTypes[k] > 0 {
			s.InputTypes[k.String()] = g.inTypes[k]
			s.OutputTypes[k.String()] = g.outTypes[k]
		}
	}
	s.OutputTypes["witness-commitment"] = g.commits
	return s
}

// Generate runs a generator to completion, handing every block to sink.
func Generate(cfg Config, sink BlockSink) (Stats, error) {
	g, err := New(cfg)
	if err != nil {
		return Stats{}, err
	}
	for !g.Done() {
		if err := g.Next(sink); err != nil {
			return g.Stats(), err
		}
	}
	return g.Stats(), nil
}

// randKind draws an output script type from the mix.
func (g *Generator) randKind() Kind {
	r := g.rng.IntN(g.kindCum[numKinds-1])
	for k := range numKinds {
		if r < g.kindCum[k] {
			return k
		}
	}
	return P2WPKH
}

// take removes a random coin from *s.
func (g *Generator) take(s *[]coin) (coin, bool) {
	n := len(*s)
	if n == 0 {
		return coin{}, false
	}
	i := g.rng.IntN(n)
	c := (*s)[i]
	(*s)[i] = (*s)[n-1]
	*s = (*s)[:n-1]
	return c, true
}

func (g *Generator) takeRecent() (coin, bool) {
	n := len(g.recent)
	if n == 0 {
		return coin{}, false
	}
	start := g.rng.IntN(n)
	for j := range n {
		if c, ok := g.take(&g.recent[(start+j)%n]); ok {
			return c, true
		}
	}
	return coin{}, false
}

func (g *Generator) takeSame() (coin, bool) {
	c, ok := g.take(&g.cur)
	if ok {
		g.stats.SameBlockSpends++
	}
	return c, ok
}

// pickCoin chooses the next input: sometimes an output of this block or
// of the last few, mostly any older coin, falling back to whatever exists.
func (g *Generator) pickCoin() (coin, bool) {
	if g.cfg.Profile == ProfileMainnetScale {
		return g.pickAged()
	}
	r := g.rng.IntN(100)
	if r < pctSameBlock {
		if c, ok := g.takeSame(); ok {
			return c, true
		}
	} else if r < pctSameBlock+pctRecent {
		if c, ok := g.takeRecent(); ok {
			return c, true
		}
	}
	if c, ok := g.take(&g.old); ok {
		return c, true
	}
	if c, ok := g.takeRecent(); ok {
		return c, true
	}
	return g.takeSame()
}

// feeRate draws a fee rate in sat/vB: mostly low, sometimes busy.
func (g *Generator) feeRate() int64 {
	if g.rng.IntN(100) < 70 {
		return 1 + int64(g.rng.IntN(5))
	}
	return 6 + int64(g.rng.IntN(45))
}

// zeros backs placeholder signatures: a transaction's weight is measured
// with maximum-size signatures so that the fee, fixed before signing,
// never falls below the chosen rate.
var zeros [128]byte

// setInputs fills tx's inputs for p.coins with final scriptSigs where they
// do not depend on a signature and maximum-size placeholders elsewhere.
func (g *Generator) setInputs(p *ptx) {
	p.tx.TxIn = make([]wire.TxIn, len(p.coins))
	p.prev = make([]wire.TxOut, len(p.coins))
	p.deferred = false
	for i, c := range p.coins {
		k := &g.keys[c.key]
		in := &p.tx.TxIn[i]
		in.PreviousOutPoint = c.op
		in.Sequence = sequence
		p.prev[i] = wire.TxOut{Value: c.value, PkScript: k.pkScripts[c.kind]}
		switch c.kind {
		case P2WPKH:
			in.Witness = [][]byte{zeros[:73], zeros[:33]}
		case P2PKH:
			in.SignatureScript = zeros[:1+73+1+33]
			p.deferred = true
		case P2SHP2WPKH:
			in.SignatureScript = k.p2shSigScript
			in.Witness = [][]byte{zeros[:73], zeros[:33]}
		case P2WSHMultisig:
			in.Witness = [][]byte{nil, zeros[:73], zeros[:73], k.msScript}
		case P2TRKey:
			in.Witness = [][]byte{zeros[:64]}
		case P2TRScript:
			in.Witness = [][]byte{zeros[:64], k.leafScript, k.control}
		case P2WSHTrue, P2TRTrue, P2SHTrue:
			ts := &g.trueSpends[c.kind]
			in.SignatureScript, in.Witness = ts.sigScript, ts.witness
		}
	}
}

// buildTx builds one transaction into p. It reports false when no coin is
// left to spend; abandoned coins (too small to pay their way) are dropped
// and the caller simply tries again.
func (g *Generator) buildTx(p *ptx) (built, exhausted bool) {
	var nIn, nOut, maxOut int
	if g.cfg.Profile == ProfileMainnetScale {
		nIn = g.trueCount(trueInCum[:], 1)
		nOut = g.trueCount(trueOutCum[:], 2)
		maxOut = maxOutputs
	} else {
		r := g.rng.IntN(100)
		nIn = 1
		if r >= 85 {
			nIn = 3
		} else if r >= 55 {
			nIn = 2
		}
		nOut = 2
		if g.rng.IntN(100) < 35 {
			nOut = 3
		}
		maxOut = 3
	}
	p.coins = p.coins[:0]
	for len(p.coins) < nIn {
		c, ok := g.pickCoin()
		if !ok {
			break
		}
		p.coins = append(p.coins, c)
	}
	if len(p.coins) == 0 {
		return false, true
	}
	p.tx = wire.MsgTx{Version: 2}
	p.tx.TxOut = make([]wire.TxOut, maxOut)
	outs := make([]coin, maxOut)
	for i := range outs {
		outs[i].kind = g.randKind()
		outs[i].key = uint32(g.rng.IntN(len(g.keys)))
		p.tx.TxOut[i].PkScript = g.keys[outs[i].key].pkScripts[outs[i].kind]
	}
	rate := g.feeRate()
	var fee, avail int64
	for {
		p.tx.TxOut = p.tx.TxOut[:nOut]
		g.setInputs(p)
		p.weight = p.tx.Weight()
		fee = rate * ((p.weight + 3) / 4)
		var sum int64
		for _, c := range p.coins {
			sum += c.value
		}
		avail = sum - fee
		if avail >= int64(nOut)*minOutput {
			break
		}
		if len(p.coins) < 3 {
			if c, ok := g.pickCoin(); ok {
				p.coins = append(p.coins, c)
				continue
			}
		}
		if nOut > 2 {
			nOut--
			continue
		}
		// Dust-like coins stay in the UTXO set forever, as on mainnet.
		g.stats.Abandoned += len(p.coins)
		return false, false
	}
	// Split what is left at random; every output keeps at least minOutput.
	var w [maxOutputs]int64
	var wsum int64
	for i := range nOut {
		w[i] = 1 + int64(g.rng.IntN(1000))
		wsum += w[i]
	}
	extra := avail - int64(nOut)*minOutput
	rest := extra
	for i := range nOut {
		v := extra / wsum * w[i]
		if i == nOut-1 {
			v = rest
		}
		rest -= v
		p.tx.TxOut[i].Value = minOutput + v
		outs[i].value = minOutput + v
		outs[i].op.Index = uint32(i)
	}
	p.outs = outs[:nOut]
	g.stats.Fees += fee
	if !p.deferred {
		txid := p.tx.TxHash()
		for i := range p.outs {
			p.outs[i].op.Hash = txid
		}
		g.cur = append(g.cur, p.outs...)
	}
	return true, false
}
