package mining

import (
	"slices"
	"sync"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// Chain is the chain state block assembly reads. *blockchain.BlockChain
// satisfies it; tests use fakes.
type Chain interface {
	// BestSnapshot is the tip.
	BestSnapshot() *blockchain.BestState
	// BlockVersionAfter is the version the node signals in a child of
	// prev (Core's ComputeBlockVersion).
	BlockVersionAfter(prev wire.Hash) (int32, error)
	// CalcNextRequiredBits is the difficulty of a child of the tip with
	// the given timestamp.
	CalcNextRequiredBits(timestamp int64) uint32
	// DeploymentState is deployment id's state at hash and after it.
	DeploymentState(id int, hash wire.Hash) (blockchain.DeploymentStatus, error)
	// FetchUtxo looks an outpoint up in the confirmed UTXO set.
	FetchUtxo(op wire.OutPoint) (database.UtxoEntry, bool, error)
	// CheckBlockTemplate applies every rule but proof of work to a block
	// on the tip and stores nothing.
	CheckBlockTemplate(blk *wire.MsgBlock) error
	// LookupBlock is what the chain knows of a block.
	LookupBlock(hash *wire.Hash) (blockchain.BlockStatus, bool)
	// BlockHashByHeight is the main chain's block at height.
	BlockHashByHeight(height int32) (wire.Hash, bool)
}

// TxSource is the mempool as block assembly sees it. *mempool.Pool
// satisfies it.
type TxSource interface {
	// Candidates is a consistent copy of the pool's transactions.
	Candidates() *mempool.Candidates
	// SequenceChanged is closed once the pool's contents changed since
	// they had sequence seq.
	SequenceChanged(seq uint64) <-chan struct{}
}

// Config wires a Miner to the node.
type Config struct {
	Chain  Chain
	Params *chaincfg.Params
	Pool   TxSource
	Policy Policy
	// Submit hands a solved block to the node (validation, storage,
	// relay); its error is returned to the generate caller unchanged.
	Submit func(blk *wire.MsgBlock) error
	// Lock, when set, is held while the generate methods assemble a
	// block, so that two never build at once and nothing else that holds
	// it (a chain rollback) runs meanwhile. A private mutex is used
	// otherwise.
	Lock sync.Locker
	// MandatoryRules names the version-bits deployments a
	// getblocktemplate client must understand (listed with a '!'): read
	// at every template, so the node may change it.
	MandatoryRules map[string]bool
	// Quit, when closed, ends every long poll (shutdown).
	Quit <-chan struct{}
	// LongPollMinWait and LongPollMaxWait are the long poll's intervals
	// (see WaitLongPoll); zero means one and five minutes.
	LongPollMinWait, LongPollMaxWait time.Duration
	// Now is the clock of block timestamps (clock.Unix when nil, which
	// setmocktime moves).
	Now func() int64
}

// Miner builds, solves and submits blocks on the node's chain.
type Miner struct {
	cfg Config
	// tipMu guards tipWake, closed at the next tip change.
	tipMu   sync.Mutex
	tipWake chan struct{}
}

// New returns a Miner. Chain, Params, Pool and Submit are required.
func New(cfg Config) *Miner {
	if cfg.Chain == nil || cfg.Params == nil || cfg.Pool == nil || cfg.Submit == nil {
		panic("mining: Config.Chain, Params, Pool and Submit are required")
	}
	if cfg.Lock == nil {
		cfg.Lock = new(sync.Mutex)
	}
	if cfg.Now == nil {
		cfg.Now = clock.Unix
	}
	if cfg.LongPollMinWait == 0 {
		cfg.LongPollMinWait = time.Minute
	}
	if cfg.LongPollMaxWait == 0 {
		cfg.LongPollMaxWait = defaultLongPollMaxWait
	}
	cfg.Policy = cfg.Policy.withDefaults()
	return &Miner{cfg: cfg, tipWake: make(chan struct{})}
}

// Template is a block on the tip ready to be solved: the header lacks
// only its nonce, the coinbase pays the subsidy and the fees.
type Template struct {
	Block  *wire.MsgBlock
	Height int32
	// TxIDs, Fees and SigOpCosts describe Block.Transactions[1:]; for
	// transactions given by the caller the sigop costs are not known and
	// SigOpCosts is nil.
	TxIDs      []wire.Hash
	Fees       []int64
	SigOpCosts []int64
	TotalFees  int64
	// CoinbaseValue is the subsidy plus TotalFees.
	CoinbaseValue int64
	// WitnessCommitment is the coinbase's commitment output script.
	WitnessCommitment []byte
	// MinTime is the earliest valid timestamp (median time past + 1).
	MinTime int64
	// Sequence is the mempool's sequence the selection was made at (0 for
	// a block of given transactions).
	Sequence uint64
	// Rules and VBAvailable are getblocktemplate's "rules" and
	// "vbavailable", set when the template was built for a client.
	Rules       []string
	VBAvailable map[string]int
}

// Client is what a getblocktemplate client declared.
type Client struct {
	// Rules are the rules the client understands.
	Rules []string
}

// NewTemplate builds a block on the tip paying to script: with txs nil
// the mempool's best transactions, otherwise exactly txs (whose fees are
// computed from the UTXO set and the earlier transactions). With client
// set the version follows getblocktemplate's rules for that client and
// the template lists the rules and deployments. It does not take
// Config.Lock (a getblocktemplate client does not wait for block
// generation); the generate methods do.
func (m *Miner) NewTemplate(script []byte, txs []*wire.MsgTx, client *Client) (*Template, error) {
	tip := m.cfg.Chain.BestSnapshot()
	height := tip.Height + 1
	// Before segwit activates a block may carry no witness data
	// (unexpected-witness).
	segwit := height >= m.cfg.Params.SegwitHeight
	t := &Template{Height: height, MinTime: tip.MedianTime + 1}
	if txs == nil {
		c := m.cfg.Pool.Candidates()
		sel := Select(c, m.cfg.Policy)
		t.Sequence = c.Sequence
		skipped := map[wire.Hash]bool{}
	nextTx:
		for i, tx := range sel.Txs {
			if !segwit && tx.HasWitness() {
				skipped[sel.TxIDs[i]] = true
				continue
			}
			for _, in := range tx.TxIn {
				if skipped[in.PreviousOutPoint.Hash] {
					skipped[sel.TxIDs[i]] = true
					continue nextTx
				}
			}
			txs = append(txs, tx)
			t.TxIDs = append(t.TxIDs, sel.TxIDs[i])
			t.Fees = append(t.Fees, sel.Fees[i])
			t.SigOpCosts = append(t.SigOpCosts, sel.SigOpCosts[i])
			t.TotalFees += sel.Fees[i]
		}
	} else {
		for i, tx := range txs {
			fee, err := m.txFee(tx, txs[:i])
			if err != nil {
				return nil, err
			}
			t.TxIDs = append(t.TxIDs, tx.TxHash())
			t.Fees = append(t.Fees, fee)
			t.TotalFees += fee
		}
	}
	version, err := m.cfg.Chain.BlockVersionAfter(tip.Hash)
	if err != nil {
		return nil, err
	}
	if client != nil {
		if version, err = m.versionBits(client, t, version, tip.Hash); err != nil {
			return nil, err
		}
	}
	ts := uint32(max(m.cfg.Now(), t.MinTime))
	t.CoinbaseValue = blockchain.CalcBlockSubsidy(height, m.cfg.Params.SubsidyHalvingInterval) + t.TotalFees
	// Core's coinbase: the height and OP_0, a lock time of the previous
	// height with a non-final sequence (so the lock time is enforced).
	// Matching it byte for byte makes generated chains identical to
	// Core's under the same mock time, which tests pin hashes of.
	sig := append(blockchain.AppendHeightScript(nil, height), txscript.OP_0)
	cb := &wire.MsgTx{
		Version:  2,
		LockTime: uint32(height - 1),
		TxIn: []wire.TxIn{{
			PreviousOutPoint: wire.OutPoint{Index: wire.MaxPrevOutIndex},
			SignatureScript:  sig,
			Sequence:         wire.MaxTxInSequenceNum - 1,
		}},
		TxOut: []wire.TxOut{{Value: t.CoinbaseValue, PkScript: append([]byte(nil), script...)}},
	}
	t.Block = &wire.MsgBlock{
		Header: wire.BlockHeader{
			Version:   version,
			PrevBlock: tip.Hash,
			Timestamp: ts,
			Bits:      m.cfg.Chain.CalcNextRequiredBits(int64(ts)),
		},
		Transactions: append([]*wire.MsgTx{cb}, txs...),
	}
	// The commitment output is added before activation too, as Core's
	// assembler does (an OP_RETURN output is valid either way), but the
	// witness nonce only once segwit applies: a block with witness data
	// before then is refused (unexpected-witness). Such a pre-segwit block
	// fails bad-witness-nonce-size when revalidated under rules that make
	// segwit active at its height, which is what makes a node that
	// stored it without witness validation reindex (NeedsRedownload).
	// The nonce is 32 zero bytes, as Core's (getblocktemplate clients
	// assume it for default_witness_commitment).
	nonce := make([]byte, 32)
	root := t.Block.WitnessMerkleRoot()
	commit := blockchain.WitnessCommitment(&root, nonce)
	t.WitnessCommitment = blockchain.AppendWitnessCommitmentScript(nil, &commit)
	cb.TxOut = append(cb.TxOut, wire.TxOut{PkScript: t.WitnessCommitment})
	if segwit {
		cb.TxIn[0].Witness = [][]byte{nonce}
	}
	t.Block.ClearHashCache()
	t.Block.Header.MerkleRoot, _ = t.Block.MerkleRoot()
	return t, nil
}

// build is NewTemplate for a block the miner will solve, under
// Config.Lock.
func (m *Miner) build(script []byte, txs []*wire.MsgTx) (*Template, error) {
	m.cfg.Lock.Lock()
	defer m.cfg.Lock.Unlock()
	return m.NewTemplate(script, txs, nil)
}

// txFee computes the fee of tx from the UTXO set and the transactions
// before it in the block (generateblock).
func (m *Miner) txFee(tx *wire.MsgTx, block []*wire.MsgTx) (int64, error) {
	var in, out int64
	for i := range tx.TxIn {
		op := tx.TxIn[i].PreviousOutPoint
		if e, ok, _ := m.cfg.Chain.FetchUtxo(op); ok {
			in += e.Amount
			continue
		}
		found := false
		for _, t := range block {
			if t.TxHash() == op.Hash && int(op.Index) < len(t.TxOut) {
				in += t.TxOut[op.Index].Value
				found = true
				break
			}
		}
		if !found {
			return 0, &ValidityError{Reason: "bad-txns-inputs-missingorspent",
				Detail: "CheckTxInputs: inputs missing/spent in transaction " + tx.TxHash().String()}
		}
	}
	for i := range tx.TxOut {
		out += tx.TxOut[i].Value
	}
	return in - out, nil
}

// RuleName is a deployment's name as a template lists it: with a '!'
// when clients must understand it.
func (m *Miner) RuleName(name string) string {
	if m.cfg.MandatoryRules[name] {
		return "!" + name
	}
	return name
}

// versionBits adjusts the node's version for a getblocktemplate client
// and lists the template's rules, as Core's getblocktemplate: the bit of
// a locked-in deployment is forced on and that of a mandatory deployment
// the client did not list cleared, and an active mandatory deployment the
// client does not know refuses it; "rules" lists csv, segwit once active,
// signet, and the active version-bits deployments; "vbavailable" maps
// every started or locked-in deployment to its bit.
func (m *Miner) versionBits(client *Client, t *Template, version int32, prev wire.Hash) (int32, error) {
	p := m.cfg.Params
	t.Rules = []string{"csv"}
	if t.Height >= p.SegwitHeight {
		t.Rules = append(t.Rules, "!segwit")
	}
	if p.IsSignet() {
		t.Rules = append(t.Rules, "!signet")
	}
	t.VBAvailable = map[string]int{}
	var active []string
	for id := range p.Deployments {
		dep := &p.Deployments[id]
		st, err := m.cfg.Chain.DeploymentState(id, prev)
		if err != nil {
			return 0, err
		}
		mask := int32(1) << dep.Bit
		unsupported := m.cfg.MandatoryRules[dep.Name] && !slices.Contains(client.Rules, dep.Name)
		switch st.Next {
		case blockchain.ThresholdLockedIn:
			version |= mask
			fallthrough
		case blockchain.ThresholdStarted:
			t.VBAvailable[m.RuleName(dep.Name)] = int(dep.Bit)
			if unsupported {
				version &^= mask
			}
		case blockchain.ThresholdActive:
			if unsupported {
				return 0, &UnsupportedRuleError{Rule: dep.Name}
			}
			active = append(active, dep.Name)
		}
	}
	// Core walks its deployments in name order.
	slices.Sort(active)
	for _, name := range active {
		t.Rules = append(t.Rules, m.RuleName(name))
	}
	return version, nil
}
