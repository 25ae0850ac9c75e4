package psbt

import (
	"bytes"
	"encoding/base64"
	"testing"
)

// FuzzDecode checks that no input panics the decoder, the analyzer, the
// finalizer or the updater, and that whatever decodes re-encodes to a
// form that decodes to itself.
func FuzzDecode(f *testing.F) {
	v := loadVectors(f)
	for _, s := range append(v.Invalid, v.Valid...) {
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Decode(b)
		if err != nil {
			return
		}
		enc := p.Encode()
		p2, err := Decode(enc)
		if err != nil {
			t.Fatalf("re-encoding does not decode: %v", err)
		}
		if !bytes.Equal(p2.Encode(), enc) {
			t.Fatal("encoding is not stable")
		}
		p.Analyze()
		p.Copy().Finalize()
		_ = p.Copy().Sign(NewSigner(), nil, true)
	})
}
