package txscript

import (
	"encoding/csv"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/btcnode/btcd/wire"
	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
)

func TestBIP340Vectors(t *testing.T) {
	f, err := os.Open(vectorPath(t, "bip340/test-vectors.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rows[1:] {
		idx, sk, pk, aux, msg, sig, want := r[0], r[1], r[2], r[3], r[4], r[5], r[6] == "TRUE"
		m := mustHex(t, msg)
		if len(m) != 32 {
			// Script signatures are always over 32-byte hashes; btcec
			// only supports those.
			t.Logf("vector %s: skipping %d-byte message", idx, len(m))
			continue
		}
		var h [32]byte
		copy(h[:], m)
		if got := verifySchnorr(mustHex(t, sig), mustHex(t, pk), &h); got != want {
			t.Errorf("vector %s: verify %v want %v (%s)", idx, got, want, r[7])
		}
		if sk != "" {
			priv, _ := btcec.PrivKeyFromBytes(mustHex(t, sk))
			var a [32]byte
			copy(a[:], mustHex(t, aux))
			s, err := schnorr.Sign(priv, m, schnorr.CustomNonce(a))
			if err != nil {
				t.Fatalf("vector %s: sign: %v", idx, err)
			}
			if got := strings.ToUpper(hex.EncodeToString(s.Serialize())); got != sig {
				t.Errorf("vector %s: sig %s want %s", idx, got, sig)
			}
		}
		n++
	}
	t.Logf("%d BIP340 vectors", n)
}

type bip341Vectors struct {
	ScriptPubKey []struct {
		Given struct {
			InternalPubkey string `json:"internalPubkey"`
			ScriptTree     any    `json:"scriptTree"`
		} `json:"given"`
		Intermediary struct {
			LeafHashes    []string `json:"leafHashes"`
			MerkleRoot    *string  `json:"merkleRoot"`
			Tweak         string   `json:"tweak"`
			TweakedPubkey string   `json:"tweakedPubkey"`
		} `json:"intermediary"`
		Expected struct {
			ScriptPubKey            string   `json:"scriptPubKey"`
			Bip350Address           string   `json:"bip350Address"`
			ScriptPathControlBlocks []string `json:"scriptPathControlBlocks"`
		} `json:"expected"`
	} `json:"scriptPubKey"`
	KeyPathSpending []struct {
		Given struct {
			RawUnsignedTx string `json:"rawUnsignedTx"`
			UtxosSpent    []struct {
				ScriptPubKey string `json:"scriptPubKey"`
				AmountSats   int64  `json:"amountSats"`
			} `json:"utxosSpent"`
		} `json:"given"`
		Intermediary struct {
			HashAmounts       string `json:"hashAmounts"`
			HashOutputs       string `json:"hashOutputs"`
			HashPrevouts      string `json:"hashPrevouts"`
			HashScriptPubkeys string `json:"hashScriptPubkeys"`
			HashSequences     string `json:"hashSequences"`
		} `json:"intermediary"`
		InputSpending []struct {
			Given struct {
				TxinIndex       int     `json:"txinIndex"`
				InternalPrivkey string  `json:"internalPrivkey"`
				MerkleRoot      *string `json:"merkleRoot"`
				HashType        int     `json:"hashType"`
			} `json:"given"`
			Intermediary struct {
				InternalPubkey string `json:"internalPubkey"`
				Tweak          string `json:"tweak"`
				SigHash        string `json:"sigHash"`
			} `json:"intermediary"`
			Expected struct {
				Witness []string `json:"witness"`
			} `json:"expected"`
		} `json:"inputSpending"`
		Auxiliary struct {
			FullySignedTx string `json:"fullySignedTx"`
		} `json:"auxiliary"`
	} `json:"keyPathSpending"`
}

type tapLeafInfo struct {
	id      int
	version byte
	hash    [32]byte
	path    [][32]byte
}

// walkTree returns the node hash of a BIP341 test scriptTree and records
// each leaf with its merkle path.
func walkTree(t *testing.T, node any, leaves *[]*tapLeafInfo) [32]byte {
	switch n := node.(type) {
	case map[string]any:
		script := mustHex(t, n["script"].(string))
		l := &tapLeafInfo{id: int(n["id"].(float64)), version: byte(n["leafVersion"].(float64))}
		l.hash = TapLeafHash(l.version, script)
		*leaves = append(*leaves, l)
		return l.hash
	case []any:
		var left, right []*tapLeafInfo
		a := walkTree(t, n[0], &left)
		b := walkTree(t, n[1], &right)
		for _, l := range left {
			l.path = append(l.path, b)
		}
		for _, l := range right {
			l.path = append(l.path, a)
		}
		*leaves = append(append(*leaves, left...), right...)
		return TapBranchHash(a[:], b[:])
	}
	t.Fatalf("bad tree node %T", node)
	return [32]byte{}
}

func TestBIP341Vectors(t *testing.T) {
	var v bip341Vectors
	loadJSON(t, "bip341/wallet-test-vectors.json", &v)
	mainnet := &AddressParams{PubKeyHashAddrID: 0x00, ScriptHashAddrID: 0x05, Bech32HRP: "bc"}
	for i, c := range v.ScriptPubKey {
		internal := mustHex(t, c.Given.InternalPubkey)
		var root []byte
		var leaves []*tapLeafInfo
		if c.Given.ScriptTree != nil {
			r := walkTree(t, c.Given.ScriptTree, &leaves)
			root = r[:]
			if hex.EncodeToString(root) != *c.Intermediary.MerkleRoot {
				t.Errorf("case %d: merkle root %x", i, root)
			}
		}
		tw := TapTweakHash(internal, root)
		if hex.EncodeToString(tw[:]) != c.Intermediary.Tweak {
			t.Errorf("case %d: tweak %x", i, tw)
		}
		key, odd, ok := ComputeTaprootOutputKey(internal, root)
		if !ok || hex.EncodeToString(key[:]) != c.Intermediary.TweakedPubkey {
			t.Errorf("case %d: output key %x", i, key)
		}
		spk := PayToWitnessScript(1, key[:])
		if hex.EncodeToString(spk) != c.Expected.ScriptPubKey {
			t.Errorf("case %d: scriptPubKey %x", i, spk)
		}
		addr := Address{Type: AddrWitness, WitnessVersion: 1, Hash: key[:]}.Encode(mainnet)
		if addr != c.Expected.Bip350Address {
			t.Errorf("case %d: address %s", i, addr)
		}
		if back, err := DecodeAddress(addr, mainnet); err != nil || string(back.PkScript()) != string(spk) {
			t.Errorf("case %d: address round trip: %v", i, err)
		}
		for _, l := range leaves {
			cb := []byte{l.version}
			if odd {
				cb[0] |= 1
			}
			cb = append(cb, internal...)
			for _, p := range l.path {
				cb = append(cb, p[:]...)
			}
			if hex.EncodeToString(cb) != c.Expected.ScriptPathControlBlocks[l.id] {
				t.Errorf("case %d leaf %d: control block %x", i, l.id, cb)
			}
			if !verifyTaprootCommitment(newHashWriter(), cb, key[:], &l.hash) {
				t.Errorf("case %d leaf %d: commitment does not verify", i, l.id)
			}
		}
	}

	for _, ks := range v.KeyPathSpending {
		tx := decodeTx(t, ks.Given.RawUnsignedTx)
		prevs := make([]wire.TxOut, len(ks.Given.UtxosSpent))
		for i, u := range ks.Given.UtxosSpent {
			prevs[i] = wire.TxOut{Value: u.AmountSats, PkScript: mustHex(t, u.ScriptPubKey)}
		}
		h := NewTxSigHashes(tx, prevs)
		h.v0()
		h.taproot()
		for name, pair := range map[string][2]string{
			"hashAmounts":       {hex.EncodeToString(h.shaAmounts[:]), ks.Intermediary.HashAmounts},
			"hashOutputs":       {hex.EncodeToString(h.shaOutputs[:]), ks.Intermediary.HashOutputs},
			"hashPrevouts":      {hex.EncodeToString(h.shaPrevouts[:]), ks.Intermediary.HashPrevouts},
			"hashScriptPubkeys": {hex.EncodeToString(h.shaScriptKeys[:]), ks.Intermediary.HashScriptPubkeys},
			"hashSequences":     {hex.EncodeToString(h.shaSequences[:]), ks.Intermediary.HashSequences},
		} {
			if pair[0] != pair[1] {
				t.Errorf("%s: got %s want %s", name, pair[0], pair[1])
			}
		}
		for _, in := range ks.InputSpending {
			sh, err := CalcTaprootSigHash(h, byte(in.Given.HashType), in.Given.TxinIndex, nil)
			if err != nil || hex.EncodeToString(sh[:]) != in.Intermediary.SigHash {
				t.Errorf("input %d: sighash %x err %v", in.Given.TxinIndex, sh, err)
			}
		}
		// The fully signed transaction must verify under standard flags.
		signed := decodeTx(t, ks.Auxiliary.FullySignedTx)
		sh := NewTxSigHashes(signed, prevs)
		for i := range signed.TxIn {
			if err := VerifyInput(signed, i, &prevs[i], StandardVerifyFlags, nil, sh); err != nil {
				t.Errorf("signed tx input %d: %v", i, err)
			}
		}
	}
}
