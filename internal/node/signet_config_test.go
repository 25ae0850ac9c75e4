package node

import (
	"testing"

	"github.com/btcnode/btcd/chaincfg"
)

// TestSignetChallenge: --signetchallenge makes a custom signet with the
// challenge's own network magic; a non-hex or repeated challenge is
// refused with bitcoind's words.
func TestSignetChallenge(t *testing.T) {
	cfg, err := loadConfig([]string{"--signet", "--appdata=" + t.TempDir(), "--signetchallenge=51"})
	if err != nil {
		t.Fatal(err)
	}
	if string(cfg.params.SignetChallenge) != "\x51" || cfg.params.Net != chaincfg.SignetNet([]byte{0x51}) {
		t.Fatalf("challenge %x, magic %08x", cfg.params.SignetChallenge, uint32(cfg.params.Net))
	}
	if cfg.params.Net == chaincfg.SigNetParams.Net {
		t.Fatal("custom signet kept the default signet's magic")
	}
	for want, args := range map[string][]string{
		"-signetchallenge must be hex, not 'abc'.":     {"--signetchallenge=abc"},
		"-signetchallenge cannot be multiple values.": {"--signetchallenge=51", "--signetchallenge=51"},
	} {
		_, err := loadConfig(append([]string{"--signet", "--appdata=" + t.TempDir()}, args...))
		if err == nil || ErrorText(err) != want {
			t.Errorf("%v: %v, want %q", args, err, want)
		}
	}
}
