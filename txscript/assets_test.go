package txscript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/btcnode/btcd/wire"
)

type assetSpend struct {
	ScriptSig string   `json:"scriptSig"`
	Witness   []string `json:"witness"`
}

type assetCase struct {
	Tx       string      `json:"tx"`
	Prevouts []string    `json:"prevouts"`
	Index    int         `json:"index"`
	Flags    string      `json:"flags"`
	Comment  string      `json:"comment"`
	Success  *assetSpend `json:"success"`
	Failure  *assetSpend `json:"failure"`
	Final    bool        `json:"final"`
}

// consensusFlagCombos is Core's ALL_CONSENSUS_FLAGS: every combination of
// the consensus flags where WITNESS implies P2SH and TAPROOT implies
// WITNESS.
func consensusFlagCombos() []ScriptFlags {
	bitsList := []ScriptFlags{ScriptVerifyP2SH, ScriptVerifyDERSig, ScriptVerifyNullDummy,
		ScriptVerifyCheckLockTimeVerify, ScriptVerifyCheckSequenceVerify,
		ScriptVerifyWitness, ScriptVerifyTaproot}
	var out []ScriptFlags
	for i := 0; i < 128; i++ {
		var f ScriptFlags
		for b, fl := range bitsList {
			if i&(1<<b) != 0 {
				f |= fl
			}
		}
		if f&ScriptVerifyWitness != 0 && f&ScriptVerifyP2SH == 0 {
			continue
		}
		if f&ScriptVerifyTaproot != 0 && f&ScriptVerifyWitness == 0 {
			continue
		}
		out = append(out, f)
	}
	return out
}

func parsePrevout(t *testing.T, s string) wire.TxOut {
	b := mustHex(t, s)
	if len(b) < 9 {
		t.Fatalf("short prevout %s", s)
	}
	var v int64
	for i := 7; i >= 0; i-- {
		v = v<<8 | int64(b[i])
	}
	l, n, err := wire.ReadVarInt(b[8:])
	if err != nil || uint64(len(b)-8-n) != l {
		t.Fatalf("bad prevout %s", s)
	}
	return wire.TxOut{Value: v, PkScript: b[8+n:]}
}

func TestScriptAssets(t *testing.T) {
	dir := vectorPath(t, "core/script_assets")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	combos := consensusFlagCombos()
	cache := NewSigCache(100000)
	nSucc, nFail := 0, 0
	for _, ent := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, ent.Name()))
		if err != nil {
			t.Fatal(err)
		}
		raw = bytes.TrimRight(bytes.TrimSpace(raw), ",")
		var c assetCase
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("%s: %v", ent.Name(), err)
		}
		tx := decodeTx(t, c.Tx)
		prevs := make([]wire.TxOut, len(c.Prevouts))
		for i, p := range c.Prevouts {
			prevs[i] = parsePrevout(t, p)
		}
		testFlags, ok := FlagsFromString(c.Flags)
		if !ok {
			t.Fatalf("%s: flags %q", ent.Name(), c.Flags)
		}
		apply := func(sp *assetSpend) {
			tx.TxIn[c.Index].SignatureScript = mustHex(t, sp.ScriptSig)
			tx.TxIn[c.Index].Witness = nil
			for _, w := range sp.Witness {
				tx.TxIn[c.Index].Witness = append(tx.TxIn[c.Index].Witness, mustHex(t, w))
			}
		}
		if c.Success != nil {
			apply(c.Success)
			hashes := NewTxSigHashes(tx, prevs)
			for _, f := range combos {
				if !c.Final && f&testFlags != f {
					continue
				}
				if err := VerifyInput(tx, c.Index, &prevs[c.Index], f, cache, hashes); err != nil {
					t.Errorf("%s (%s): success spend failed with %s: %v", ent.Name(), c.Comment, f, err)
				}
			}
			nSucc++
		}
		if c.Failure != nil {
			apply(c.Failure)
			hashes := NewTxSigHashes(tx, prevs)
			for _, f := range combos {
				if f&testFlags != testFlags {
					continue
				}
				if err := VerifyInput(tx, c.Index, &prevs[c.Index], f, cache, hashes); err == nil {
					t.Errorf("%s (%s): failure spend passed with %s", ent.Name(), c.Comment, f)
				}
			}
			nFail++
		}
	}
	t.Logf("%d success and %d failure spends", nSucc, nFail)
}
