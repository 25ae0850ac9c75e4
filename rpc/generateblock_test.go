package rpc

import (
	"strings"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// generateblock names the raw transaction it could not decode, in
// bitcoind's words.
func TestGenerateBlockBadRawTx(t *testing.T) {
	_, url := startServer(t, func(c *Config) {
		c.Backend.Mining = &MiningBackend{
			GenerateBlock: func([]byte, []*wire.MsgTx, bool) (wire.Hash, []byte, error) {
				t.Error("GenerateBlock called with an undecodable transaction")
				return wire.Hash{}, nil, nil
			},
		}
	})
	e := mustError(t, url, "generateblock", []any{"bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", []string{"0000"}}, ErrDeserialization)
	if want := "Transaction decode failed for 0000. Make sure the tx has at least one input."; e.Message != want {
		t.Errorf("message %q, want %q", e.Message, want)
	}
}

// submitblock decodes the block at the front of its data, as bitcoind,
// and leaves what follows alone: validation judges the block.
func TestSubmitBlockIgnoresTrailingBytes(t *testing.T) {
	var got *wire.MsgBlock
	_, url := startServer(t, func(c *Config) {
		c.Backend.Mining = &MiningBackend{
			SubmitBlock: func(b *wire.MsgBlock) (string, error) { got = b; return "high-hash", nil },
		}
	})
	hexData := strings.Repeat("00", 81) + strings.Repeat("11", 100)
	if r := mustResult(t, url, "submitblock", []any{hexData}); r != "high-hash" {
		t.Errorf("submitblock = %v", r)
	}
	if got == nil || len(got.Transactions) != 0 {
		t.Errorf("block %+v", got)
	}
	mustError(t, url, "submitblock", []any{strings.Repeat("00", 79)}, ErrDeserialization)
}
