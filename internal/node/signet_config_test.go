package node

import (
	"encoding/json"
	"path/filepath"
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
		"-signetchallenge must be hex, not 'abc'.":    {"--signetchallenge=abc"},
		"-signetchallenge cannot be multiple values.": {"--signetchallenge=51", "--signetchallenge=51"},
	} {
		_, err := loadConfig(append([]string{"--signet", "--appdata=" + t.TempDir()}, args...))
		if err == nil || ErrorText(err) != want {
			t.Errorf("%v: %v, want %q", args, err, want)
		}
	}
}

// TestSignetChallengeReported: getblockchaininfo and getmininginfo show a
// custom signet's challenge as signet_challenge.
func TestSignetChallengeReported(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, "--signet", "--signetchallenge=51", "--appdata="+dir,
		"--datadir="+filepath.Join(dir, "data"), "--logdir="+filepath.Join(dir, "logs"),
		"--listen=127.0.0.1:0", "--rpclisten=127.0.0.1:0", "--rpcuser=u", "--rpcpass=p", "--nodnsseed")
	t.Cleanup(s.Stop)
	n := &testNode{s: s, dir: dir, t: t}
	for _, method := range []string{"getblockchaininfo", "getmininginfo"} {
		var r struct {
			Chain     string `json:"chain"`
			Challenge string `json:"signet_challenge"`
		}
		if err := json.Unmarshal(n.must(t, method), &r); err != nil {
			t.Fatal(err)
		}
		if r.Chain != "signet" || r.Challenge != "51" {
			t.Errorf("%s: chain %q, signet_challenge %q", method, r.Chain, r.Challenge)
		}
	}
	// The generating methods exist off regtest too, as in bitcoind.
	if got := string(n.must(t, "generatetoaddress", 0, "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx")); got != "[]" {
		t.Errorf("generatetoaddress 0 on signet: %s", got)
	}
}

// TestSignetSeedNodes: --signetseednode replaces the signet's DNS seeds,
// on the default signet and on a custom one, without touching the shared
// parameters; a port after the name is dropped; an address is refused.
func TestSignetSeedNodes(t *testing.T) {
	for _, extra := range [][]string{nil, {"--signetchallenge=51"}} {
		args := append([]string{"--signet", "--appdata=" + t.TempDir(), "--signetseednode=seed.example.org:38333", "--signetseednode=other.example"}, extra...)
		cfg, err := loadConfig(args)
		if err != nil {
			t.Fatal(err)
		}
		seeds := cfg.params.DNSSeeds
		if len(seeds) != 2 || seeds[0].Host != "seed.example.org" || seeds[1].Host != "other.example" {
			t.Errorf("%v: seeds %v", extra, seeds)
		}
	}
	if len(chaincfg.SigNetParams.DNSSeeds) == 0 || chaincfg.SigNetParams.DNSSeeds[0].Host == "seed.example.org" {
		t.Fatal("the default signet's seeds were changed")
	}
	if _, err := loadConfig([]string{"--signet", "--appdata=" + t.TempDir(), "--signetseednode=1.2.3.4"}); err == nil {
		t.Error("an IP address accepted as a DNS seed")
	}
}
