package psbt

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// TestBIP341KeyPathSigning signs BIP341's key path spending vectors
// through a PSBT: the tweaked private key must be the vector's, and the
// finalized witness must verify for every listed input and hash type.
func TestBIP341KeyPathSigning(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "vectors", "bip341", "wallet-test-vectors.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Skip("../shared/vectors not present")
	}
	var v struct {
		KeyPathSpending []struct {
			Given struct {
				RawUnsignedTx string
				UtxosSpent    []struct {
					ScriptPubKey string
					AmountSats   int64
				}
			}
			InputSpending []struct {
				Given struct {
					TxinIndex       int
					InternalPrivkey string
					MerkleRoot      *string
					HashType        uint32
				}
				Intermediary struct{ TweakedPrivkey string }
			}
		}
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range v.KeyPathSpending {
		b, _ := hex.DecodeString(c.Given.RawUnsignedTx)
		var tx wire.MsgTx
		if _, err := tx.Decode(b); err != nil {
			t.Fatal(err)
		}
		spent := make([]wire.TxOut, len(c.Given.UtxosSpent))
		for i, u := range c.Given.UtxosSpent {
			spk, _ := hex.DecodeString(u.ScriptPubKey)
			spent[i] = wire.TxOut{Value: u.AmountSats, PkScript: spk}
		}
		for _, in := range c.InputSpending {
			p := New(&tx)
			for i := range spent {
				p.Inputs[i].WitnessUTXO = &spent[i]
			}
			priv, _ := hex.DecodeString(in.Given.InternalPrivkey)
			k, pub := btcec.PrivKeyFromBytes(priv)
			var root []byte
			if in.Given.MerkleRoot != nil {
				root, _ = hex.DecodeString(*in.Given.MerkleRoot)
			}
			if got := hex.EncodeToString(tweakPrivKey(k, root).Serialize()); got != in.Intermediary.TweakedPrivkey {
				t.Errorf("input %d: tweaked key %s, want %s", in.Given.TxinIndex, got, in.Intermediary.TweakedPrivkey)
			}
			i := in.Given.TxinIndex
			s := NewSigner()
			s.AddKey(pub.SerializeCompressed(), nil, priv)
			s.AddTaproot(TaprootSpend{OutputKey: [32]byte(spent[i].PkScript[2:34]), InternalKey: pub.SerializeCompressed()[1:], MerkleRoot: root})
			ht := in.Given.HashType
			if err := p.Sign(s, &ht, true); err != nil {
				t.Fatal(err)
			}
			if !p.Inputs[i].IsFinal() {
				t.Errorf("input %d (hash type %#x) not finalized", i, ht)
				continue
			}
			signed := tx.Copy()
			signed.TxIn[i].Witness = p.Inputs[i].FinalScriptWitness
			hashes := txscript.NewTxSigHashes(signed, spent)
			if err := txscript.VerifyInput(signed, i, &spent[i], txscript.StandardVerifyFlags, nil, hashes); err != nil {
				t.Errorf("input %d: %v", i, err)
			}
			n++
		}
	}
	if n < 7 {
		t.Fatalf("only %d inputs signed", n)
	}
}
