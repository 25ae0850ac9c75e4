package chaincfg

import (
	"bytes"
	"compress/bzip2"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

const satoshiMerkle = "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b"

func TestGenesisBlocks(t *testing.T) {
	tests := []struct {
		p      *Params
		hash   string
		merkle string
		bits   uint32
	}{
		{&MainNetParams, "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f", satoshiMerkle, 0x1d00ffff},
		{&TestNet3Params, "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943", satoshiMerkle, 0x1d00ffff},
		{&TestNet4Params, "00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043",
			"7aa0a7ae1e223414cb807e40cd57e667b718e42aaf9306db9102fe28912b7b4e", 0x1d00ffff},
		{&SigNetParams, "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6", satoshiMerkle, 0x1e0377ae},
		{&RegressionNetParams, "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206", satoshiMerkle, 0x207fffff},
	}
	for _, tc := range tests {
		t.Run(tc.p.Name, func(t *testing.T) {
			b := tc.p.GenesisBlock
			if got := b.BlockHash().String(); got != tc.hash {
				t.Errorf("genesis block hash %s, want %s", got, tc.hash)
			}
			if got := tc.p.GenesisHash.String(); got != tc.hash {
				t.Errorf("GenesisHash %s, want %s", got, tc.hash)
			}
			root, mutated := b.MerkleRoot()
			if root.String() != tc.merkle || mutated {
				t.Errorf("computed merkle root %s (mutated %v), want %s", root, mutated, tc.merkle)
			}
			if got := b.Header.MerkleRoot.String(); got != tc.merkle {
				t.Errorf("header merkle root %s, want %s", got, tc.merkle)
			}
			if b.Header.Bits != tc.bits || tc.p.PowLimitBits != tc.bits {
				t.Errorf("genesis bits %08x, PowLimitBits %08x, want %08x", b.Header.Bits, tc.p.PowLimitBits, tc.bits)
			}
			if got := BigToCompact(tc.p.PowLimit); got != tc.p.PowLimitBits {
				t.Errorf("BigToCompact(PowLimit) = %08x, want %08x", got, tc.p.PowLimitBits)
			}
			if len(b.Transactions) != 1 || !b.Transactions[0].IsCoinBase() {
				t.Fatalf("genesis must hold exactly one coinbase")
			}
			if v := b.Transactions[0].TxOut[0].Value; v != 50*1e8 {
				t.Errorf("genesis reward %d", v)
			}
		})
	}
}

// TestMainnetGenesisBytes compares the serialized mainnet genesis block with
// the first block of a real block file.
func TestMainnetGenesisBytes(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "vectors", "mainnet", "blk_0_to_4.dat.bz2")
	f, err := os.Open(path)
	if err != nil {
		t.Skip("../shared/vectors not present")
	}
	defer f.Close()
	var hdr [8]byte
	r := bzip2.NewReader(f)
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		t.Fatal(err)
	}
	if got := wire.BitcoinNet(binary.LittleEndian.Uint32(hdr[:4])); got != MainNetParams.Net {
		t.Fatalf("file magic %v", got)
	}
	size := binary.LittleEndian.Uint32(hdr[4:])
	if size > 1000 {
		t.Fatalf("implausible genesis size %d", size)
	}
	want := make([]byte, size)
	if _, err := io.ReadFull(r, want); err != nil {
		t.Fatal(err)
	}
	if got := MainNetParams.GenesisBlock.AppendTo(nil, true); !bytes.Equal(got, want) {
		t.Errorf("genesis serialization differs:\n got %x\nwant %x", got, want)
	}
}

// TestTestnet4Coinbase pins the testnet4 coinbase scriptSig, whose 76-byte
// text needs OP_PUSHDATA1.
func TestTestnet4Coinbase(t *testing.T) {
	sig := TestNet4Params.GenesisBlock.Transactions[0].TxIn[0].SignatureScript
	want := "04ffff001d01044c4c" + hex.EncodeToString([]byte(testnet4Timestamp))
	if got := hex.EncodeToString(sig); got != want {
		t.Errorf("scriptSig %s, want %s", got, want)
	}
	pk := TestNet4Params.GenesisBlock.Transactions[0].TxOut[0].PkScript
	if got := hex.EncodeToString(pk); got != "21"+strings.Repeat("00", 33)+"ac" {
		t.Errorf("pkScript %s", got)
	}
}

func TestNetworkIdentity(t *testing.T) {
	tests := []struct {
		p                            *Params
		name                         string
		magic                        string // bytes on the wire
		port, rpcPort, dir           string
		hrp                          string
		pkh, sh, wif                 byte
		halving                      int32
		retarget                     int32
		reduceMin, noRetarget, bip94 bool
	}{
		{&MainNetParams, "main", "f9beb4d9", "8333", "8332", "", "bc", 0x00, 0x05, 0x80, 210000, 2016, false, false, false},
		{&TestNet3Params, "test", "0b110907", "18333", "18332", "testnet3", "tb", 0x6f, 0xc4, 0xef, 210000, 2016, true, false, false},
		{&TestNet4Params, "testnet4", "1c163f28", "48333", "48332", "testnet4", "tb", 0x6f, 0xc4, 0xef, 210000, 2016, true, false, true},
		{&SigNetParams, "signet", "0a03cf40", "38333", "38332", "signet", "tb", 0x6f, 0xc4, 0xef, 210000, 2016, false, false, false},
		{&RegressionNetParams, "regtest", "fabfb5da", "18444", "18443", "regtest", "bcrt", 0x6f, 0xc4, 0xef, 150, 144, true, true, false},
	}
	for _, tc := range tests {
		p := tc.p
		var magic [4]byte
		binary.LittleEndian.PutUint32(magic[:], uint32(p.Net))
		if p.Name != tc.name || hex.EncodeToString(magic[:]) != tc.magic ||
			p.DefaultPort != tc.port || p.RPCPort != tc.rpcPort || p.DataDirName != tc.dir {
			t.Errorf("%s: name %q magic %x ports %s/%s dir %q", tc.name, p.Name, magic, p.DefaultPort, p.RPCPort, p.DataDirName)
		}
		if p.Bech32HRPSegwit != tc.hrp || p.PubKeyHashAddrID != tc.pkh || p.ScriptHashAddrID != tc.sh || p.PrivateKeyID != tc.wif {
			t.Errorf("%s: address prefixes wrong", tc.name)
		}
		if p.SubsidyHalvingInterval != tc.halving || p.CoinbaseMaturity != 100 {
			t.Errorf("%s: halving %d maturity %d", tc.name, p.SubsidyHalvingInterval, p.CoinbaseMaturity)
		}
		if p.DifficultyAdjustmentInterval() != tc.retarget || p.TargetTimePerBlock != 10*time.Minute {
			t.Errorf("%s: retarget interval %d", tc.name, p.DifficultyAdjustmentInterval())
		}
		if p.ReduceMinDifficulty != tc.reduceMin || p.PoWNoRetargeting != tc.noRetarget || p.EnforceBIP94 != tc.bip94 {
			t.Errorf("%s: pow flags %v %v %v", tc.name, p.ReduceMinDifficulty, p.PoWNoRetargeting, p.EnforceBIP94)
		}
		if p.ReduceMinDifficulty && p.MinDiffReductionTime != 20*time.Minute {
			t.Errorf("%s: MinDiffReductionTime %v", tc.name, p.MinDiffReductionTime)
		}
		if p.IsSignet() != (tc.name == "signet") || p.IsTestChain() != (tc.name != "main") {
			t.Errorf("%s: IsSignet/IsTestChain wrong", tc.name)
		}
	}
	if MainNetParams.TargetTimespan != 14*24*time.Hour {
		t.Errorf("mainnet timespan %v", MainNetParams.TargetTimespan)
	}
	if SignetNet(DefaultSignetChallenge) != wire.SigNet {
		t.Errorf("default signet magic %#x, want %#x", uint32(SignetNet(DefaultSignetChallenge)), uint32(wire.SigNet))
	}
}

func TestBuriedHeights(t *testing.T) {
	m := &MainNetParams
	if m.BIP34Height != 227931 || m.BIP65Height != 388381 || m.BIP66Height != 363725 ||
		m.CSVHeight != 419328 || m.SegwitHeight != 481824 || m.TaprootHeight != 0 {
		t.Errorf("mainnet buried heights wrong")
	}
	if m.Deployments[DeploymentTaproot].MinActivationHeight != 709632 {
		t.Errorf("mainnet taproot min activation height")
	}
	if RegressionNetParams.MinimumChainWork.Sign() != 0 || RegressionNetParams.AssumeValid != (wire.Hash{}) {
		t.Errorf("regtest must have no chain-work or assumevalid anchors")
	}
}

func TestScriptRulesAt(t *testing.T) {
	m := &MainNetParams
	base := RuleP2SH | RuleWitness | RuleTaproot
	bip16 := mustHash("00000000000002dc756eebf4f49723ed8d30cc28a5f108eb94b1ba88ac4f9c22")
	tapEx := mustHash("0000000000000000000f14c35b2d841e986ab5441de8c585d5ffe55ea1e395ad")
	other := mustHash("00000000000000000000ccebd6d74d9194d8dcdc1d177c478e094bfad51ba5ac")
	all := base | RuleDERSig | RuleCheckLockTimeVerify | RuleCheckSequenceVerify | RuleNullDummy
	tests := []struct {
		height int32
		hash   wire.Hash
		want   ScriptRules
	}{
		{1, other, base},
		{170060, bip16, 0},
		{363725, other, base | RuleDERSig},
		{388381, other, base | RuleDERSig | RuleCheckLockTimeVerify},
		{692261, tapEx, all &^ RuleTaproot},
		{938343, other, all},
	}
	for _, tc := range tests {
		if got := m.ScriptRulesAt(tc.height, tc.hash); got != tc.want {
			t.Errorf("ScriptRulesAt(%d) = %b, want %b", tc.height, got, tc.want)
		}
	}
	if !m.IsBIP30Exception(91842, mustHash("00000000000a4d0a398161ffc163c503763b1f4360639393e0e4c8e300e0caec")) ||
		m.IsBIP30Exception(91843, mustHash("00000000000a4d0a398161ffc163c503763b1f4360639393e0e4c8e300e0caec")) {
		t.Errorf("IsBIP30Exception wrong")
	}
}

func TestParamsLookup(t *testing.T) {
	for _, name := range []string{"main", "mainnet", "test", "testnet", "testnet3", "testnet4", "signet", "regtest"} {
		p, err := ParamsForNetwork(name)
		if err != nil {
			t.Fatalf("ParamsForNetwork(%q): %v", name, err)
		}
		q, err := ParamsForNet(p.Net)
		if err != nil || q.Name != p.Name {
			t.Errorf("ParamsForNet(%v) = %v, %v", p.Net, q, err)
		}
	}
	if _, err := ParamsForNetwork("simnet"); !errors.Is(err, ErrUnknownNetwork) {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := ParamsForNet(0x12345678); !errors.Is(err, ErrUnknownNetwork) {
		t.Errorf("unknown magic: %v", err)
	}
}

func TestCloneIndependence(t *testing.T) {
	c := RegressionNetParams.Clone()
	c.BIP34Height = 500
	c.PowLimit.SetInt64(1)
	c.BIP30Exceptions = append(c.BIP30Exceptions, BlockID{Height: 1})
	c.GenesisBlock.Transactions[0].TxOut[0].PkScript[0] = 0
	c.Deployments[DeploymentTaproot].StartTime = 5
	if RegressionNetParams.BIP34Height != 1 || BigToCompact(RegressionNetParams.PowLimit) != 0x207fffff ||
		len(RegressionNetParams.BIP30Exceptions) != 0 ||
		RegressionNetParams.GenesisBlock.BlockHash() != RegressionNetParams.GenesisHash ||
		RegressionNetParams.Deployments[DeploymentTaproot].StartTime != DeploymentAlwaysActive {
		t.Errorf("modifying a clone changed the original")
	}
	p, _ := ParamsForNetwork("main")
	p.SegwitHeight = 1
	if MainNetParams.SegwitHeight != 481824 {
		t.Errorf("ParamsForNetwork returned the global")
	}
}

func TestSetTestActivationHeight(t *testing.T) {
	p := RegressionNetParams.Clone()
	for _, arg := range []string{"bip34@2", "dersig@3", "cltv@4", "csv@5", "segwit@6", "segwit@7", "csv@0", "bip34@2147483646", "cltv@-0"} {
		if err := p.SetTestActivationHeight(arg); err != nil {
			t.Fatalf("%q: %v", arg, err)
		}
	}
	if p.BIP34Height != 2147483646 || p.BIP66Height != 3 || p.BIP65Height != 0 || p.CSVHeight != 0 || p.SegwitHeight != 7 {
		t.Errorf("heights not applied: %+v", []int32{p.BIP34Height, p.BIP66Height, p.BIP65Height, p.CSVHeight, p.SegwitHeight})
	}

	bad := []struct {
		arg  string
		kind ErrorKind
	}{
		{"segwit", ErrInvalidFormat},
		{"", ErrInvalidFormat},
		{"segwit@", ErrInvalidHeight},
		{"segwit@-1", ErrInvalidHeight},
		{"segwit@+5", ErrInvalidHeight},
		{"segwit@ 5", ErrInvalidHeight},
		{"segwit@5x", ErrInvalidHeight},
		{"segwit@2147483647", ErrInvalidHeight},
		{"segwit@99999999999", ErrInvalidHeight},
		{"segwit@1@2", ErrInvalidHeight},
		{"taproot@1", ErrUnknownDeployment},
		{"SEGWIT@1", ErrUnknownDeployment},
		{"@1", ErrUnknownDeployment},
		{"foo@-1", ErrInvalidHeight}, // height is checked before the name, as in Core
	}
	for _, tc := range bad {
		before := *p
		err := p.SetTestActivationHeight(tc.arg)
		if !errors.Is(err, tc.kind) {
			t.Errorf("%q: got %v, want %v", tc.arg, err, tc.kind)
		}
		if p.BIP34Height != before.BIP34Height || p.SegwitHeight != before.SegwitHeight {
			t.Errorf("%q: params modified on error", tc.arg)
		}
	}
	if err := p.SetTestActivationHeight("foo@1"); err == nil || !strings.Contains(err.Error(), `"foo"`) {
		t.Errorf("unknown name error should name it: %v", err)
	}

	m := MainNetParams.Clone()
	if err := m.SetTestActivationHeight("segwit@1"); !errors.Is(err, ErrNotRegtest) {
		t.Errorf("mainnet: %v", err)
	}
}

func TestSetVersionBitsParams(t *testing.T) {
	p := RegressionNetParams.Clone()
	if err := p.SetVersionBitsParams("testdummy:100:200:300"); err != nil {
		t.Fatal(err)
	}
	d := p.Deployments[DeploymentTestDummy]
	if d.StartTime != 100 || d.Timeout != 200 || d.MinActivationHeight != 300 {
		t.Errorf("testdummy %+v", d)
	}
	if err := p.SetVersionBitsParams("taproot:-2:-2"); err != nil || p.Deployments[DeploymentTaproot].StartTime != DeploymentNeverActive {
		t.Errorf("taproot: %v", err)
	}
	for _, arg := range []string{"taproot:1", "taproot:1:2:3:4", "taproot:x:2", "taproot:1:+2", "taproot:1:2:99999999999", "segwit:1:2"} {
		if err := p.SetVersionBitsParams(arg); err == nil {
			t.Errorf("%q accepted", arg)
		}
	}
	if err := TestNet3Params.Clone().SetVersionBitsParams("taproot:1:2"); !errors.Is(err, ErrNotRegtest) {
		t.Errorf("testnet3: %v", err)
	}
}

func TestCustomSignet(t *testing.T) {
	challenge := []byte{0x51} // OP_TRUE
	p := CustomSignetParams(challenge, nil)
	if p.Net == SigNetParams.Net || p.Net != SignetNet(challenge) || !p.IsSignet() {
		t.Errorf("custom signet magic %v", p.Net)
	}
	if p.MinimumChainWork.Sign() != 0 || p.AssumeValid != (wire.Hash{}) {
		t.Errorf("custom signet must drop the default signet's anchors")
	}
	if p.GenesisHash != SigNetParams.GenesisHash {
		t.Errorf("custom signet shares the signet genesis")
	}
}

// FuzzSetTestActivationHeight checks that arbitrary arguments never panic,
// and that accepted ones name a known deployment and a non-negative height.
func FuzzSetTestActivationHeight(f *testing.F) {
	for _, s := range []string{"segwit@1", "bip34@0", "csv@2147483646", "x@y", "@", "cltv@-1", "dersig@+1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		p := RegressionNetParams.Clone()
		if err := p.SetTestActivationHeight(arg); err != nil {
			return
		}
		name, _, _ := strings.Cut(arg, "@")
		switch name {
		case "bip34", "dersig", "cltv", "csv", "segwit":
		default:
			t.Fatalf("accepted unknown name in %q", arg)
		}
		for _, h := range []int32{p.BIP34Height, p.BIP65Height, p.BIP66Height, p.CSVHeight, p.SegwitHeight} {
			if h < 0 {
				t.Fatalf("negative height from %q", arg)
			}
		}
	})
}
