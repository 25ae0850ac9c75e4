package descriptor

import (
	"bytes"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"

	"github.com/btcnode/btcd/txscript"
)

// TestSigningInfo checks what an expansion gives a PSBT signer: private
// keys matching their public keys (derived from an xprv and from WIF),
// origins, scripts, and taproot leaves whose control blocks prove them
// against the output key.
func TestSigningInfo(t *testing.T) {
	m, err := NewMasterKey([]byte("signing info seed"))
	if err != nil {
		t.Fatal(err)
	}
	xprv := m.String(RegTest)
	wif := encodeWIF(bytes.Repeat([]byte{7}, 32), true, RegTest)
	// and_v(v:pk(),pk()) is miniscript, whose keys are also filed by
	// their x-only hash (for pk_h()).
	desc := "tr(" + xprv + "/0h/*,{pk(" + wif + "),{and_v(v:pk(" + xprv + "/1/*),pk(" + xprv + "/4/*)),multi_a(1," + xprv + "/2/*," + xprv + "/3/*)}})"
	ds, err := Parse(desc, RegTest, false)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := ds[0].Expand(5)
	if err != nil {
		t.Fatal(err)
	}
	si := outs[0].SigningInfo()
	if len(si.Keys) != 6 || len(si.Taproot) != 1 || len(si.Taproot[0].Leaves) != 3 {
		t.Fatalf("signing info: %d keys, %+v", len(si.Keys), si.Taproot)
	}
	for _, k := range si.Keys {
		if len(k.PrivKey) != 32 {
			t.Fatalf("key %x without its private key", k.PubKey)
		}
		_, pub := btcec.PrivKeyFromBytes(k.PrivKey)
		if !bytes.Equal(pub.SerializeCompressed()[1:], k.PubKey[1:]) {
			t.Errorf("private key does not match %x", k.PubKey)
		}
		if bytes.Equal(k.PrivKey, bytes.Repeat([]byte{7}, 32)) {
			continue
		}
		if k.Fingerprint != m.Fingerprint() || len(k.Path) != 2 || k.Path[1] != 5 {
			t.Errorf("origin %x %v", k.Fingerprint, k.Path)
		}
	}
	tr := si.Taproot[0]
	if !bytes.Equal(outs[0].Script[2:], tr.OutputKey[:]) {
		t.Fatal("output key")
	}
	for _, l := range tr.Leaves {
		cb := l.ControlBlock
		if (len(cb)-33)%32 != 0 || !bytes.Equal(cb[1:33], tr.InternalKey) {
			t.Fatalf("control block %x", cb)
		}
		h := txscript.TapLeafHash(l.LeafVersion, l.Script)
		for p := cb[33:]; len(p) > 0; p = p[32:] {
			h = txscript.TapBranchHash(h[:], p[:32])
		}
		if !bytes.Equal(h[:], tr.MerkleRoot) {
			t.Errorf("leaf %x: path does not reach the root", l.Script)
		}
		key, odd, _ := txscript.ComputeTaprootOutputKey(tr.InternalKey, h[:])
		if key != tr.OutputKey || (cb[0]&1 == 1) != odd {
			t.Errorf("leaf %x: control block does not prove the output key", l.Script)
		}
	}
	// A public-only descriptor gives no private keys.
	ds, _ = Parse("wpkh("+m.PublicString(RegTest)+"/0/*)", RegTest, false)
	outs, _ = ds[0].Expand(1)
	if si := outs[0].SigningInfo(); len(si.Keys) != 1 || si.Keys[0].PrivKey != nil || len(si.Keys[0].Path) != 2 {
		t.Fatalf("xpub: %+v", si.Keys)
	}
}
