package blockchain

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/wire"
	"github.com/btcsuite/btclog"
)

type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// take returns what was logged since the last call.
func (l *logBuffer) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.b.String()
	l.b.Reset()
	return s
}

func captureChainLog(t *testing.T) *logBuffer {
	t.Helper()
	out := &logBuffer{}
	lg := btclog.NewBackend(out).Logger("CHAN")
	lg.SetLevel(btclog.LevelDebug)
	UseLogger(lg)
	t.Cleanup(func() { UseLogger(btclog.Disabled) })
	return out
}

// Core's tests look for these lines in debug.log when a block is
// rejected: feature_cltv.py and feature_dersig.py for the header's hash
// with the state ("<hash>, bad-version(0x00000003)"), for a script
// failure "Block validation error: mandatory-script-verify-flag-failed
// (...)", and data/invalid_txs.py's block reasons with their debug text.
func TestRejectionLogLines(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	tc.mine(130)
	out := captureChainLog(t)
	b := tc.b
	base := b.Tip
	cbs := b.MatureCoinbases(base)
	build := func(txs []*wire.MsgTx, o *chaintest.BlockOpts) *chaintest.Entry {
		e := b.NextBlock(base, txs, o)
		b.Tip = base
		return e
	}

	e := build(nil, &chaintest.BlockOpts{Version: 3})
	tc.reject(e, ErrBadVersion)
	s := out.take()
	for _, want := range []string{
		"AcceptBlockHeader: Consensus::ContextualCheckBlockHeader: " + e.Hash.String() + ", bad-version(0x00000003), rejected nVersion=0x00000003 block\n",
		"ProcessNewBlock: AcceptBlock FAILED (bad-version(0x00000003), rejected nVersion=0x00000003 block)\n",
	} {
		if !strings.Contains(s, want) {
			t.Fatalf("want %q in:\n%s", want, s)
		}
	}

	script := bytes.Repeat([]byte{opCheckSig}, 20001)
	tx := b.Spend([]*chaintest.Output{cbs[0]}, []wire.TxOut{{Value: 1, PkScript: script}}, 0)
	tc.reject(build([]*wire.MsgTx{tx}, nil), ErrBadBlockSigOps)
	if s := out.take(); !strings.Contains(s, "ProcessNewBlock: AcceptBlock FAILED (bad-blk-sigops, out-of-bounds SigOpCount)") {
		t.Fatalf("sigops:\n%s", s)
	}

	// A failure while connecting: the state, then ConnectTip's line and
	// InvalidChainFound's pair.
	e = build([]*wire.MsgTx{b.Spend([]*chaintest.Output{cbs[1]}, nil, 1000)}, &chaintest.BlockOpts{CoinbaseExtra: 1})
	tc.reject(e, ErrBadCoinbaseAmount)
	s = out.take()
	for _, want := range []string{
		"Block validation error: bad-cb-amount, coinbase pays too much (actual=",
		"ConnectTip: ConnectBlock " + e.Hash.String() + " failed, bad-cb-amount, coinbase pays too much",
		"InvalidChainFound: invalid block=" + e.Hash.String() + "  height=131  log2_work=",
		"InvalidChainFound:  current best=" + base.Hash.String() + "  height=130  log2_work=",
	} {
		if !strings.Contains(s, want) {
			t.Fatalf("want %q in:\n%s", want, s)
		}
	}

	// Its header again: it is known invalid.
	if _, _, err := tc.chain.ProcessHeaders([]wire.BlockHeader{e.Block.Header}); !errors.Is(err, ErrDuplicateInvalid) {
		t.Fatalf("header of invalid block: %v", err)
	}
	if s := out.take(); !strings.Contains(s, "AcceptBlockHeader: block "+e.Hash.String()+" is marked invalid") {
		t.Fatalf("duplicate:\n%s", s)
	}
}

func TestStateStringAndMoney(t *testing.T) {
	if got := stateString(ruleReason(ErrTxVinEmpty)); got != "bad-txns-vin-empty" {
		t.Errorf("no debug: %q", got)
	}
	err := inTransaction(ruleError(ErrTxInBelowOut, "value in (%s) < value out (%s)", formatMoney(150000000), formatMoney(1)), wire.Hash{1})
	want := "bad-txns-in-belowout, value in (1.50) < value out (0.00000001) in transaction " + (wire.Hash{1}).String()
	if got := stateString(err); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := formatMoney(-2100000000000000); got != "-21000000.00" {
		t.Errorf("formatMoney: %q", got)
	}
}
