package blockchain

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// scriptChunk is the most inputs one job verifies, so that a transaction
// with many inputs is spread over the workers too.
const scriptChunk = 16

// scriptJob verifies inputs [start, end) of a transaction. Jobs travel by
// value and carry only pointers into block-lived memory, so queuing one
// allocates nothing.
type scriptJob struct {
	tx       *wire.MsgTx
	prevOuts []wire.TxOut
	hashes   *txscript.TxSigHashes
	start    int
	end      int
	flags    txscript.ScriptFlags
	batch    *scriptBatch
}

// scriptBatch collects the outcome of one block's jobs.
type scriptBatch struct {
	wg     sync.WaitGroup
	failed atomic.Bool
	mu     sync.Mutex
	err    error
}

func (b *scriptBatch) fail(err error) {
	b.mu.Lock()
	if b.err == nil {
		b.err = err
	}
	b.mu.Unlock()
	b.failed.Store(true)
}

// wait blocks until all jobs are done and returns the first failure.
func (b *scriptBatch) wait() error {
	b.wg.Wait()
	err := b.err
	b.err = nil
	b.failed.Store(false)
	return err
}

// scriptPool is a fixed set of goroutines verifying scripts, each with its
// own reusable engine. With one worker, jobs run on the caller's
// goroutine.
type scriptPool struct {
	jobs     chan scriptJob
	workers  int
	inline   *txscript.Engine
	sigCache *txscript.SigCache
	done     sync.WaitGroup
	stopOnce sync.Once
}

func newScriptPool(workers int) *scriptPool {
	p := &scriptPool{workers: workers}
	if workers <= 1 {
		p.inline = txscript.NewEngine()
		p.inline.SetCacheStore(false)
		return p
	}
	p.jobs = make(chan scriptJob, 4*workers*scriptChunk)
	for range workers {
		p.done.Add(1)
		go p.work()
	}
	return p
}

func (p *scriptPool) work() {
	defer p.done.Done()
	e := txscript.NewEngine()
	e.SetCacheStore(false) // look up only, as Core's ConnectBlock
	for j := range p.jobs {
		p.run(e, &j)
	}
}

func (p *scriptPool) run(e *txscript.Engine, j *scriptJob) {
	defer j.batch.wg.Done()
	if j.batch.failed.Load() {
		return
	}
	for i := j.start; i < j.end; i++ {
		if err := e.Verify(j.tx, i, &j.prevOuts[i], j.flags, p.sigCache, j.hashes); err != nil {
			j.batch.fail(scriptError(j.tx, i, err))
			return
		}
	}
}

// submit queues the verification of all inputs of tx.
func (p *scriptPool) submit(b *scriptBatch, tx *wire.MsgTx, prevOuts []wire.TxOut,
	hashes *txscript.TxSigHashes, flags txscript.ScriptFlags) {
	for start := 0; start < len(tx.TxIn); start += scriptChunk {
		j := scriptJob{tx: tx, prevOuts: prevOuts, hashes: hashes, start: start,
			end: min(start+scriptChunk, len(tx.TxIn)), flags: flags, batch: b}
		b.wg.Add(1)
		if p.inline != nil {
			p.run(p.inline, &j)
			continue
		}
		p.jobs <- j
	}
}

func (p *scriptPool) stop() {
	p.stopOnce.Do(func() {
		if p.jobs != nil {
			close(p.jobs)
			p.done.Wait()
		}
	})
}

// scriptError wraps a script failure in Core's block reject reason.
func scriptError(tx *wire.MsgTx, idx int, err error) error {
	msg := err.Error()
	var k txscript.ErrorKind
	if errors.As(err, &k) {
		msg = k.Message()
	}
	return &RuleError{
		Kind:   ErrScriptVerifyMandatory,
		Reason: string(ErrScriptVerifyMandatory) + " (" + msg + ")",
		// Core's debug text for a failed script check.
		Desc: fmt.Sprintf("input %d of %v (wtxid %v), spending %v:%d", idx, tx.TxHash(), tx.WitnessHash(),
			tx.TxIn[idx].PreviousOutPoint.Hash, tx.TxIn[idx].PreviousOutPoint.Index),
		Err: err,
	}
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b[i:])
}

// ruleFlagMap pairs chaincfg's script rules with txscript's flags.
var ruleFlagMap = [...]struct {
	rule chaincfg.ScriptRules
	flag txscript.ScriptFlags
}{
	{chaincfg.RuleP2SH, txscript.ScriptVerifyP2SH},
	{chaincfg.RuleWitness, txscript.ScriptVerifyWitness},
	{chaincfg.RuleTaproot, txscript.ScriptVerifyTaproot},
	{chaincfg.RuleDERSig, txscript.ScriptVerifyDERSig},
	{chaincfg.RuleCheckLockTimeVerify, txscript.ScriptVerifyCheckLockTimeVerify},
	{chaincfg.RuleCheckSequenceVerify, txscript.ScriptVerifyCheckSequenceVerify},
	{chaincfg.RuleNullDummy, txscript.ScriptVerifyNullDummy},
}

// ScriptFlagsFor returns the script flags a block at height with hash is
// verified under (Core's GetBlockScriptFlags, historical exceptions
// included).
func ScriptFlagsFor(p *chaincfg.Params, height int32, hash wire.Hash) txscript.ScriptFlags {
	r := p.ScriptRulesAt(height, hash)
	var f txscript.ScriptFlags
	for _, m := range ruleFlagMap {
		if r&m.rule != 0 {
			f |= m.flag
		}
	}
	return f
}
