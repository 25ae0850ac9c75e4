package psbt

import (
	"encoding/json"
	"os"
	"testing"
)

// coreVectorsPath is Bitcoin Core's PSBT test data in the shared Core
// checkout; like the consensus vectors it is used when present.
const coreVectorsPath = "../../../shared/corefunc/functional/data/rpc_psbt.json"

// TestCoreMessages checks the error text for the invalid PSBTs Core's
// test data pairs with a message (taproot and MuSig2 field checks).
func TestCoreMessages(t *testing.T) {
	raw, err := os.ReadFile(coreVectorsPath)
	if err != nil {
		t.Skip("Core test data not present")
	}
	var v struct {
		InvalidWithMsg [][2]string `json:"invalid_with_msg"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	for i, c := range v.InvalidWithMsg {
		if _, err := DecodeBase64(c[0]); err == nil || err.Error() != c[1] {
			t.Errorf("case %d: got %v, want %q", i, err, c[1])
		}
	}
}
