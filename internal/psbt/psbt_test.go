package psbt

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

type roleVectors struct {
	Invalid  []string `json:"invalid"`
	Valid    []string `json:"valid"`
	Combiner []struct {
		Combine []string `json:"combine"`
		Result  string   `json:"result"`
	} `json:"combiner"`
	Finalizer []struct {
		Finalize string `json:"finalize"`
		Result   string `json:"result"`
	} `json:"finalizer"`
	Extractor []struct {
		Extract string `json:"extract"`
		Result  string `json:"result"`
	} `json:"extractor"`
}

func loadVectors(t testing.TB) *roleVectors {
	raw, err := os.ReadFile("testdata/bip_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v roleVectors
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return &v
}

// hasExplicitVersionZero reports a PSBT with a version record of 0, which
// Core (and so Encode) does not write back.
func hasExplicitVersionZero(b []byte) bool {
	return bytes.Contains(b, []byte{0x01, 0xfb, 0x04, 0, 0, 0, 0})
}

func TestBIPVectors(t *testing.T) {
	v := loadVectors(t)
	if len(v.Invalid) < 20 || len(v.Valid) < 20 {
		t.Fatalf("only %d invalid and %d valid vectors", len(v.Invalid), len(v.Valid))
	}
	for i, s := range v.Invalid {
		if _, err := DecodeBase64(s); err == nil {
			t.Errorf("invalid vector %d decoded", i)
		}
	}
	for i, s := range v.Valid {
		p, err := DecodeBase64(s)
		if err != nil {
			t.Errorf("valid vector %d: %v", i, err)
			continue
		}
		want, _ := base64.StdEncoding.DecodeString(s)
		got := p.Encode()
		if hasExplicitVersionZero(want) {
			// Normalized as Core does; the result must be stable.
			p2, err := Decode(got)
			if err != nil || !bytes.Equal(p2.Encode(), got) {
				t.Errorf("valid vector %d: normalized form does not round-trip", i)
			}
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("valid vector %d does not round-trip:\n got %x\nwant %x", i, got, want)
		}
	}
}

func TestRoleVectors(t *testing.T) {
	v := loadVectors(t)
	for i, c := range v.Combiner {
		var ps []*Packet
		for _, s := range c.Combine {
			p, err := DecodeBase64(s)
			if err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		if err := ps[0].Combine(ps[1:]...); err != nil {
			t.Fatal(err)
		}
		if got := ps[0].Base64(); got != c.Result {
			t.Errorf("combiner %d:\n got %s\nwant %s", i, got, c.Result)
		}
	}
	for i, c := range v.Finalizer {
		p, err := DecodeBase64(c.Finalize)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Finalize() {
			t.Errorf("finalizer %d: not complete", i)
		}
		if got := p.Base64(); got != c.Result {
			t.Errorf("finalizer %d:\n got %s\nwant %s", i, got, c.Result)
		}
	}
	for i, c := range v.Extractor {
		p, err := DecodeBase64(c.Extract)
		if err != nil {
			t.Fatal(err)
		}
		tx, ok := p.Extract()
		if !ok {
			t.Fatalf("extractor %d: not final", i)
		}
		if got := hex.EncodeToString(tx.Bytes()); got != c.Result {
			t.Errorf("extractor %d:\n got %s\nwant %s", i, got, c.Result)
		}
	}
}

// TestCombineDifferentTx checks that PSBTs of different transactions do
// not combine.
func TestCombineDifferentTx(t *testing.T) {
	v := loadVectors(t)
	a, _ := DecodeBase64(v.Combiner[0].Combine[0])
	b, _ := DecodeBase64(v.Valid[0])
	if a.Tx.TxHash() == b.Tx.TxHash() {
		t.Skip("same transaction")
	}
	if err := a.Combine(b); err != ErrDifferentTx {
		t.Fatalf("got %v", err)
	}
}

// TestVersion2Rejected checks that a BIP370 version 2 PSBT is refused as
// Core refuses it (PSBT_HIGHEST_VERSION is 0).
func TestVersion2Rejected(t *testing.T) {
	// magic, version record = 2, unsigned tx with no inputs or outputs.
	b, _ := hex.DecodeString("70736274ff01fb0402000000" + "01000a02000000000000000000" + "00")
	_, err := Decode(b)
	if err == nil || err.Error() != "Unsupported version number" {
		t.Fatalf("got %v", err)
	}
}

// TestDecodeErrors checks Core's messages for malformed input.
func TestDecodeErrors(t *testing.T) {
	tx := "01000a02000000000000000000" // unsigned tx record, empty tx
	for _, c := range []struct{ hex, msg string }{
		{"70736274", "DataStream::read(): end of data: iostream error"},
		{"70736274fe00", "Invalid PSBT magic bytes"},
		{"70736274ff" + tx, "Separator is missing at the end of the global map"},
		{"70736274ff00", "No unsigned transaction was provided"},
		{"70736274ff" + tx + tx + "00", "Duplicate Key, unsigned tx already provided"},
		{"70736274ff" + tx + "00" + "00", "extra data after PSBT"},
		{"70736274ff" + tx + "0205000100" + "0205000100" + "00", "Duplicate Key, key for unknown value already provided"},
		{"70736274ff" + tx + "fe", "DataStream::read(): end of data: iostream error"},
		{"70736274ff" + tx + "fd0100", "non-canonical ReadCompactSize(): iostream error"},
		{"70736274ff" + tx + "fe00000004", "ReadCompactSize(): size too large: iostream error"},
	} {
		b, _ := hex.DecodeString(c.hex)
		_, err := Decode(b)
		if err == nil || err.Error() != c.msg {
			t.Errorf("%s: got %v, want %q", c.hex, err, c.msg)
		}
	}
	for _, s := range []string{"cHNidP8!", "cHNi\ndP8A"} {
		if _, err := DecodeBase64(s); err == nil || err.Error() != "invalid base64" {
			t.Errorf("bad base64 %q: %v", s, err)
		}
	}
	if _, err := Decode(make([]byte, MaxSize+1)); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("oversized: %v", err)
	}
}
