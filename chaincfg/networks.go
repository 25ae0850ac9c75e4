package chaincfg

import (
	"math/big"
	"time"

	"github.com/btcnode/btcd/wire"
)

// Core's chain names.
const (
	mainNetName  = "main"
	testNet3Name = "test"
	testNet4Name = "testnet4"
	sigNetName   = "signet"
	regTestName  = "regtest"
)

const (
	twoWeeks        = 14 * 24 * time.Hour
	tenMinutes      = 10 * time.Minute
	minDiffInterval = 2 * tenMinutes // a block this late may use min difficulty
	coinbaseMature  = 100
	halvingInterval = 210000
)

// DefaultSignetChallenge is the default signet's BIP325 challenge: a 1-of-2
// bare multisig.
var DefaultSignetChallenge = mustDecodeHex("512103ad5e0edad18cb1f0fc0d28a3d4f1f3e445640337489abb10404f2d1e086be4" +
	"30210359ef5021964fe22d6f8e05b2463c9540ce96883fe3b278760f048f5189f2e6c452ae")

func mustBigHex(s string) *big.Int {
	n, ok := new(big.Int).SetString(s, 16)
	if !ok {
		panic("chaincfg: bad big hex constant " + s)
	}
	return n
}

var (
	// mainPowLimit is 2^224-1, the difficulty-1 target (also testnets').
	mainPowLimit = mustBigHex("00000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffff")
	// sigNetPowLimit is the default signet's limit, 0x0377ae << 216.
	sigNetPowLimit = mustBigHex("00000377ae000000000000000000000000000000000000000000000000000000")
	// regTestPowLimit is 2^255-1.
	regTestPowLimit = mustBigHex("7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff")
)

func testDummy(start int64, threshold, period uint32) Deployment {
	return Deployment{Name: "testdummy", Bit: 28, StartTime: start, Timeout: DeploymentNoTimeout,
		Threshold: threshold, Period: period}
}

func taproot(start, timeout int64, minHeight int32, threshold, period uint32) Deployment {
	return Deployment{Name: "taproot", Bit: 2, StartTime: start, Timeout: timeout,
		MinActivationHeight: minHeight, Threshold: threshold, Period: period}
}

// Taproot's speedy-trial signalling window on mainnet and testnet3.
const (
	taprootStart   = 1619222400 // 2021-04-24
	taprootTimeout = 1628640000 // 2021-08-11
)

// MainNetParams are the parameters of the main Bitcoin network.
var MainNetParams = Params{
	Name:        mainNetName,
	Net:         wire.MainNet,
	DefaultPort: "8333",
	RPCPort:     "8332",
	DataDirName: "",
	DNSSeeds: []DNSSeed{
		{"seed.bitcoin.sipa.be", true},
		{"dnsseed.bluematt.me", true},
		{"seed.bitcoin.jonasschnelli.ch", true},
		{"seed.btc.petertodd.net", true},
		{"seed.bitcoin.sprovoost.nl", true},
		{"dnsseed.emzy.de", true},
		{"seed.bitcoin.wiz.biz", true},
		{"seed.mainnet.achownodes.xyz", true},
	},

	GenesisBlock: satoshiGenesis(1231006505, 0x1d00ffff, 2083236893),
	GenesisHash:  mustHash("000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f"),

	PowLimit:                 mainPowLimit,
	PowLimitBits:             0x1d00ffff,
	TargetTimespan:           twoWeeks,
	TargetTimePerBlock:       tenMinutes,
	RetargetAdjustmentFactor: 4,

	SubsidyHalvingInterval: halvingInterval,
	CoinbaseMaturity:       coinbaseMature,

	BIP34Height:          227931,
	BIP34Hash:            mustHash("000000000000024b89b42a942fe0d9fea3bb44ab7bd1b19115dd6a759c0808b8"),
	BIP65Height:          388381, // 000000000000000004c2b624ed5d7756c508d90fd0da2c7c679febfa6c4735f0
	BIP66Height:          363725, // 00000000000000000379eaa19dce8c9b722d46ae6a57c2f1a988119488b50931
	CSVHeight:            419328, // 000000000000000004a1b34462cb8aeebd5799177f7a29cf28f2d1961716b5b5
	SegwitHeight:         481824, // 0000000000000000001c8018d9cb3b742ef25114f27563e3fc4a1902167f9893
	TaprootHeight:        0,
	MinBIP9WarningHeight: 483840, // segwit height + one signalling period
	Deployments: [DefinedDeployments]Deployment{
		DeploymentTestDummy: testDummy(DeploymentNeverActive, 1815, 2016),
		DeploymentTaproot:   taproot(taprootStart, taprootTimeout, 709632, 1815, 2016),
	},
	ScriptFlagExceptions: []ScriptFlagException{
		// Block 170060 spends a P2SH-shaped output in a way that broke the
		// BIP16 rules before they were enforced.
		{mustHash("00000000000002dc756eebf4f49723ed8d30cc28a5f108eb94b1ba88ac4f9c22"), 0},
		// Block 692261 contains a witness v1 spend that is invalid under
		// taproot, mined before taproot activated.
		{mustHash("0000000000000000000f14c35b2d841e986ab5441de8c585d5ffe55ea1e395ad"), RuleP2SH | RuleWitness},
	},
	BIP30Exceptions: []BlockID{
		{91842, mustHash("00000000000a4d0a398161ffc163c503763b1f4360639393e0e4c8e300e0caec")},
		{91880, mustHash("00000000000743f190a18c5577a3c2d2a1f610ae9601ac046a38084ccb7cd721")},
	},

	AssumeValid:      mustHash("00000000000000000000ccebd6d74d9194d8dcdc1d177c478e094bfad51ba5ac"), // 938343
	MinimumChainWork: mustBigHex("0000000000000000000000000000000000000001128750f82f4c366153a3a030"),

	PubKeyHashAddrID: 0x00, // 1...
	ScriptHashAddrID: 0x05, // 3...
	PrivateKeyID:     0x80, // 5... or K/L...
	Bech32HRPSegwit:  "bc",
	HDPrivateKeyID:   [4]byte{0x04, 0x88, 0xad, 0xe4}, // xprv
	HDPublicKeyID:    [4]byte{0x04, 0x88, 0xb2, 0x1e}, // xpub
	HDCoinType:       0,

	PruneAfterHeight: 100000,
}

// testnetAddressing fills in the prefixes every test network shares.
func testnetAddressing(p Params, hrp string) Params {
	p.PubKeyHashAddrID = 0x6f                          // m/n...
	p.ScriptHashAddrID = 0xc4                          // 2...
	p.PrivateKeyID = 0xef                              // 9... or c...
	p.HDPrivateKeyID = [4]byte{0x04, 0x35, 0x83, 0x94} // tprv
	p.HDPublicKeyID = [4]byte{0x04, 0x35, 0x87, 0xcf}  // tpub
	p.HDCoinType = 1
	p.Bech32HRPSegwit = hrp
	return p
}

// TestNet3Params are the parameters of the third public test network.
var TestNet3Params = testnetAddressing(Params{
	Name:        testNet3Name,
	Net:         wire.TestNet3,
	DefaultPort: "18333",
	RPCPort:     "18332",
	DataDirName: "testnet3",
	DNSSeeds: []DNSSeed{
		{"testnet-seed.bitcoin.jonasschnelli.ch", true},
		{"seed.tbtc.petertodd.net", true},
		{"seed.testnet.bitcoin.sprovoost.nl", true},
		{"testnet-seed.bluematt.me", true},
		{"seed.testnet.achownodes.xyz", true},
	},

	GenesisBlock: satoshiGenesis(1296688602, 0x1d00ffff, 414098458),
	GenesisHash:  mustHash("000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943"),

	PowLimit:                 mainPowLimit,
	PowLimitBits:             0x1d00ffff,
	TargetTimespan:           twoWeeks,
	TargetTimePerBlock:       tenMinutes,
	RetargetAdjustmentFactor: 4,
	ReduceMinDifficulty:      true,
	MinDiffReductionTime:     minDiffInterval,

	SubsidyHalvingInterval: halvingInterval,
	CoinbaseMaturity:       coinbaseMature,

	BIP34Height:          21111,
	BIP34Hash:            mustHash("0000000023b3a96d3484e5abb3755c413e7d41500f8e2a5c3f0dd01299cd8ef8"),
	BIP65Height:          581885, // 00000000007f6655f22f98e72ed80d8b06dc761d5da09df0fa1dc4be4f861eb6
	BIP66Height:          330776, // 000000002104c8c45e99a8853285a3b592602a3ccde2b832481da85e9e4ba182
	CSVHeight:            770112, // 00000000025e930139bac5c6c31a403776da130831ab85be56578f3fa75369bb
	SegwitHeight:         834624, // 00000000002b980fcd729daaa248fd9316a5200e9b367f4ff2c42453e84201ca
	TaprootHeight:        0,
	MinBIP9WarningHeight: 836640,
	Deployments: [DefinedDeployments]Deployment{
		DeploymentTestDummy: testDummy(DeploymentNeverActive, 1512, 2016),
		DeploymentTaproot:   taproot(taprootStart, taprootTimeout, 0, 1512, 2016),
	},
	ScriptFlagExceptions: []ScriptFlagException{
		// The testnet3 counterpart of mainnet's BIP16 exception.
		{mustHash("00000000dd30457c001f4095d208cc1296b0eed002427aa599874af7a432b105"), 0},
	},

	AssumeValid:      mustHash("000000007a61e4230b28ac5cb6b5e5a0130de37ac1faf2f8987d2fa6505b67f4"), // 4842348
	MinimumChainWork: mustBigHex("0000000000000000000000000000000000000000000017dde1c649f3708d14b6"),

	PruneAfterHeight: 1000,
}, "tb")

// TestNet4Params are the parameters of the BIP94 test network.
var TestNet4Params = testnetAddressing(Params{
	Name:        testNet4Name,
	Net:         wire.TestNet4,
	DefaultPort: "48333",
	RPCPort:     "48332",
	DataDirName: "testnet4",
	DNSSeeds: []DNSSeed{
		{"seed.testnet4.bitcoin.sprovoost.nl", true},
		{"seed.testnet4.wiz.biz", true},
	},

	GenesisBlock: testnet4Genesis(),
	GenesisHash:  mustHash("00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043"),

	PowLimit:                 mainPowLimit,
	PowLimitBits:             0x1d00ffff,
	TargetTimespan:           twoWeeks,
	TargetTimePerBlock:       tenMinutes,
	RetargetAdjustmentFactor: 4,
	ReduceMinDifficulty:      true,
	MinDiffReductionTime:     minDiffInterval,
	EnforceBIP94:             true,

	SubsidyHalvingInterval: halvingInterval,
	CoinbaseMaturity:       coinbaseMature,

	BIP34Height:   1,
	BIP65Height:   1,
	BIP66Height:   1,
	CSVHeight:     1,
	SegwitHeight:  1,
	TaprootHeight: 0,
	Deployments: [DefinedDeployments]Deployment{
		DeploymentTestDummy: testDummy(DeploymentNeverActive, 1512, 2016),
		DeploymentTaproot:   taproot(DeploymentAlwaysActive, DeploymentNoTimeout, 0, 1512, 2016),
	},

	AssumeValid:      mustHash("0000000002368b1e4ee27e2e85676ae6f9f9e69579b29093e9a82c170bf7cf8a"), // 123613
	MinimumChainWork: mustBigHex("0000000000000000000000000000000000000000000009a0fe15d0177d086304"),

	PruneAfterHeight: 1000,
}, "tb")

// SigNetParams are the parameters of the default public signet (BIP325).
// Use CustomSignetParams for a signet with another challenge.
var SigNetParams = testnetAddressing(Params{
	Name:        sigNetName,
	Net:         SignetNet(DefaultSignetChallenge),
	DefaultPort: "38333",
	RPCPort:     "38332",
	DataDirName: "signet",
	DNSSeeds: []DNSSeed{
		{"seed.signet.bitcoin.sprovoost.nl", true},
		{"seed.signet.achownodes.xyz", true},
	},

	GenesisBlock: satoshiGenesis(1598918400, 0x1e0377ae, 52613770),
	GenesisHash:  mustHash("00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6"),

	PowLimit:                 sigNetPowLimit,
	PowLimitBits:             0x1e0377ae,
	TargetTimespan:           twoWeeks,
	TargetTimePerBlock:       tenMinutes,
	RetargetAdjustmentFactor: 4,
	SignetChallenge:          DefaultSignetChallenge,

	SubsidyHalvingInterval: halvingInterval,
	CoinbaseMaturity:       coinbaseMature,

	BIP34Height:   1,
	BIP65Height:   1,
	BIP66Height:   1,
	CSVHeight:     1,
	SegwitHeight:  1,
	TaprootHeight: 0,
	Deployments: [DefinedDeployments]Deployment{
		DeploymentTestDummy: testDummy(DeploymentNeverActive, 1815, 2016),
		DeploymentTaproot:   taproot(DeploymentAlwaysActive, DeploymentNoTimeout, 0, 1815, 2016),
	},

	AssumeValid:      mustHash("00000008414aab61092ef93f1aacc54cf9e9f16af29ddad493b908a01ff5c329"), // 293175
	MinimumChainWork: mustBigHex("00000000000000000000000000000000000000000000000000000b463ea0a4b8"),

	PruneAfterHeight: 1000,
}, "tb")

// RegressionNetParams are the parameters of the private regression-test
// network. Core shortened regtest's TargetTimespan to one day, which makes
// its retarget (and BIP94 and version-bits) interval 144 blocks; difficulty
// never changes because PoWNoRetargeting is set.
var RegressionNetParams = testnetAddressing(Params{
	Name:        regTestName,
	Net:         wire.RegTest,
	DefaultPort: "18444",
	RPCPort:     "18443",
	DataDirName: "regtest",

	GenesisBlock: satoshiGenesis(1296688602, 0x207fffff, 2),
	GenesisHash:  mustHash("0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"),

	PowLimit:                 regTestPowLimit,
	PowLimitBits:             0x207fffff,
	TargetTimespan:           24 * time.Hour,
	TargetTimePerBlock:       tenMinutes,
	RetargetAdjustmentFactor: 4,
	ReduceMinDifficulty:      true,
	MinDiffReductionTime:     minDiffInterval,
	PoWNoRetargeting:         true,

	SubsidyHalvingInterval: 150,
	CoinbaseMaturity:       coinbaseMature,

	// Active from the start unless -testactivationheight moves them.
	BIP34Height:   1,
	BIP65Height:   1,
	BIP66Height:   1,
	CSVHeight:     1,
	SegwitHeight:  0,
	TaprootHeight: 0,
	Deployments: [DefinedDeployments]Deployment{
		DeploymentTestDummy: testDummy(0, 108, 144),
		DeploymentTaproot:   taproot(DeploymentAlwaysActive, DeploymentNoTimeout, 0, 108, 144),
	},

	MinimumChainWork: new(big.Int),

	PruneAfterHeight:         1000,
	DefaultConsistencyChecks: true,
	MockableChain:            true,
}, "bcrt")
