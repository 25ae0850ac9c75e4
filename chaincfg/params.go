package chaincfg

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/big"
	"time"

	"github.com/btcnode/btcd/wire"
)

// BIP34ImpliesBIP30Limit is the height from which BIP30's duplicate-txid
// check must run again even on a chain that activated BIP34: pre-BIP34
// coinbases whose scriptSig happens to start with a valid height push can be
// repeated from here on (Core's BIP34_IMPLIES_BIP30_LIMIT).
const BIP34ImpliesBIP30Limit = 1983702

// DNSSeed is a DNS seed host. HasFiltering reports whether the seed answers
// the "x<service bits>." subdomain queries that filter peers by services;
// Core queries every seed that way and falls back to an address fetch from
// the seed's plain answers when the filtered name does not resolve.
type DNSSeed struct {
	Host         string
	HasFiltering bool
}

// String returns the seed's host name.
func (d DNSSeed) String() string { return d.Host }

// BlockID names a block by height and hash, as for the blocks Core lists
// as consensus exceptions.
type BlockID struct {
	Height int32
	Hash   wire.Hash
}

// ScriptRules is a set of script-verification rules a block is checked
// under. The blockchain package maps it onto txscript's flags; keeping the
// set here lets the per-network exceptions live with the other parameters.
type ScriptRules uint32

// Script rules a block may be validated under.
const (
	RuleP2SH ScriptRules = 1 << iota
	RuleWitness
	RuleTaproot
	RuleDERSig
	RuleCheckLockTimeVerify
	RuleCheckSequenceVerify
	RuleNullDummy
)

// ScriptFlagException names a historical block that violates a rule Core
// otherwise enforces from genesis; such a block is validated with exactly
// Rules as its base rules instead of P2SH|WITNESS|TAPROOT.
type ScriptFlagException struct {
	Hash  wire.Hash
	Rules ScriptRules
}

// Version-bits deployment timing sentinels, as in Core's BIP9Deployment.
const (
	// DeploymentAlwaysActive as a StartTime makes a deployment active from
	// genesis.
	DeploymentAlwaysActive int64 = -1
	// DeploymentNeverActive as a StartTime disables a deployment.
	DeploymentNeverActive int64 = -2
	// DeploymentNoTimeout as a Timeout means the deployment never fails.
	DeploymentNoTimeout int64 = math.MaxInt64
)

// Indexes of Params.Deployments.
const (
	// DeploymentTestDummy is the BIP9 test deployment (bit 28).
	DeploymentTestDummy = iota
	// DeploymentTaproot is the BIP341/342 deployment (bit 2). Its state is
	// informational only; see Params.TaprootHeight.
	DeploymentTaproot
	// DefinedDeployments is the number of version-bits deployments.
	DefinedDeployments
)

// Deployment describes a BIP9 version-bits deployment with the BIP341
// min_activation_height extension.
type Deployment struct {
	Name                string
	Bit                 uint8
	StartTime           int64 // median time past, or a Deployment* sentinel
	Timeout             int64 // median time past, or DeploymentNoTimeout
	MinActivationHeight int32
	Threshold           uint32 // signalling blocks needed per period
	Period              uint32 // blocks per signalling period
}

// Params holds everything that differs between networks.
type Params struct {
	// Name is the network's name as Bitcoin Core spells it in -chain=:
	// "main", "test", "testnet4", "signet" or "regtest".
	Name string
	// Net is the network magic (wire order f9beb4d9 is MainNet 0xd9b4bef9).
	Net wire.BitcoinNet
	// DefaultPort is the default P2P listening port.
	DefaultPort string
	// RPCPort is the default JSON-RPC port (bitcoind's).
	RPCPort string
	// DataDirName is the subdirectory of the data directory this network's
	// files live in, as bitcoind names it ("" for mainnet).
	DataDirName string
	// DNSSeeds lists the DNS seeds queried for initial peers.
	DNSSeeds []DNSSeed

	// GenesisBlock is the network's first block, built in code.
	GenesisBlock *wire.MsgBlock
	// GenesisHash is the genesis block's well-known hash.
	GenesisHash wire.Hash

	// PowLimit is the highest (easiest) allowed target and PowLimitBits
	// its compact encoding.
	PowLimit     *big.Int
	PowLimitBits uint32
	// TargetTimespan is the time a retarget interval should take and
	// TargetTimePerBlock the desired block spacing; their ratio is the
	// retarget interval (see DifficultyAdjustmentInterval).
	TargetTimespan     time.Duration
	TargetTimePerBlock time.Duration
	// RetargetAdjustmentFactor bounds one retarget to a factor of 4 either
	// way.
	RetargetAdjustmentFactor int64
	// ReduceMinDifficulty (Core's fPowAllowMinDifficultyBlocks) lets a
	// block whose timestamp is more than MinDiffReductionTime after its
	// parent's use the minimum difficulty (testnets, regtest).
	ReduceMinDifficulty  bool
	MinDiffReductionTime time.Duration
	// PoWNoRetargeting disables difficulty retargeting (regtest).
	PoWNoRetargeting bool
	// EnforceBIP94 enables testnet4's rules: a retarget scales the bits of
	// the period's first block instead of its last (which may be a
	// min-difficulty block), and the first block of a period may not be
	// more than 600 seconds older than its parent (time-warp fix). Core's
	// regtest turns it on with -test=bip94.
	EnforceBIP94 bool
	// SignetChallenge is the BIP325 block challenge script (signet only);
	// a non-empty challenge makes this a signet.
	SignetChallenge []byte

	// SubsidyHalvingInterval is the number of blocks between subsidy
	// halvings.
	SubsidyHalvingInterval int32
	// CoinbaseMaturity is the number of confirmations a coinbase output
	// needs before it may be spent.
	CoinbaseMaturity int32

	// BIP34Height is the first height whose coinbase must start with the
	// height; BIP34Hash is the block at that height (zero where BIP34 is
	// active from the first block), which lets BIP30 checks be skipped on
	// chains containing it.
	BIP34Height int32
	BIP34Hash   wire.Hash
	// BIP65Height enables OP_CHECKLOCKTIMEVERIFY, BIP66Height strict DER
	// signatures, CSVHeight BIP68/112/113, and SegwitHeight the BIP141
	// block rules and the NULLDUMMY script rule.
	BIP65Height  int32
	BIP66Height  int32
	CSVHeight    int32
	SegwitHeight int32
	// TaprootHeight is the first height validated with taproot script
	// rules. It is 0 on every network: Core validates every block under
	// P2SH, WITNESS and TAPROOT except the blocks in ScriptFlagExceptions,
	// which is equivalent to the historical activations (mainnet's BIP9
	// deployment activated at 709632; see Deployments) because no other
	// block in the chains violates them, and it is stricter on forks.
	TaprootHeight int32
	// MinBIP9WarningHeight is the height below which unknown version-bits
	// signalling is not warned about.
	MinBIP9WarningHeight int32
	// Deployments are the version-bits deployments, indexed by the
	// Deployment* constants.
	Deployments [DefinedDeployments]Deployment
	// ScriptFlagExceptions are the historical blocks validated with
	// reduced script rules (see ScriptRulesAt).
	ScriptFlagExceptions []ScriptFlagException
	// BIP30Exceptions are the two mainnet blocks whose coinbases duplicate
	// earlier, still unspent ones and are exempt from BIP30.
	BIP30Exceptions []BlockID

	// AssumeValid is the default -assumevalid block (zero for none):
	// scripts of its ancestors need not be verified.
	AssumeValid wire.Hash
	// MinimumChainWork is the least total work a chain must have before
	// the node treats itself as synced and accepts unsolicited headers.
	MinimumChainWork *big.Int

	// Address and key encoding prefixes.
	PubKeyHashAddrID byte    // base58 P2PKH version byte
	ScriptHashAddrID byte    // base58 P2SH version byte
	PrivateKeyID     byte    // WIF version byte
	Bech32HRPSegwit  string  // BIP173 human-readable part
	HDPrivateKeyID   [4]byte // BIP32 xprv/tprv version
	HDPublicKeyID    [4]byte // BIP32 xpub/tpub version
	HDCoinType       uint32  // BIP44 coin type

	// RelayNonStdTxs is the default for -acceptnonstdtxn; Core defaults it
	// off on every network and only allows turning it on for test chains.
	RelayNonStdTxs bool
	// PruneAfterHeight is the height below which pruning never starts.
	PruneAfterHeight int32
	// DefaultConsistencyChecks is Core's -checkblockindex default.
	DefaultConsistencyChecks bool
	// MockableChain reports whether setmocktime is allowed.
	MockableChain bool
}

// DifficultyAdjustmentInterval returns the number of blocks between
// retargets (2016 on the public networks, 144 on regtest).
func (p *Params) DifficultyAdjustmentInterval() int32 {
	return int32(p.TargetTimespan / p.TargetTimePerBlock)
}

// IsTestChain reports whether the network is anything but mainnet.
func (p *Params) IsTestChain() bool { return p.Name != mainNetName }

// IsSignet reports whether blocks must carry a BIP325 signet solution.
func (p *Params) IsSignet() bool { return len(p.SignetChallenge) != 0 }

// ScriptRulesAt returns the script rules for the block with the given
// height and hash, as Core's GetBlockScriptFlags computes them: P2SH,
// WITNESS and TAPROOT for every block unless it is a listed exception, plus
// the rules of each buried deployment active at that height.
func (p *Params) ScriptRulesAt(height int32, hash wire.Hash) ScriptRules {
	rules := RuleP2SH | RuleWitness | RuleTaproot
	if height < p.TaprootHeight {
		rules &^= RuleTaproot
	}
	for i := range p.ScriptFlagExceptions {
		if p.ScriptFlagExceptions[i].Hash == hash {
			rules = p.ScriptFlagExceptions[i].Rules
			break
		}
	}
	if height >= p.BIP66Height {
		rules |= RuleDERSig
	}
	if height >= p.BIP65Height {
		rules |= RuleCheckLockTimeVerify
	}
	if height >= p.CSVHeight {
		rules |= RuleCheckSequenceVerify
	}
	if height >= p.SegwitHeight {
		rules |= RuleNullDummy
	}
	return rules
}

// IsBIP30Exception reports whether the block at height with hash is one of
// the two historical blocks exempt from BIP30.
func (p *Params) IsBIP30Exception(height int32, hash wire.Hash) bool {
	for _, e := range p.BIP30Exceptions {
		if e.Height == height && e.Hash == hash {
			return true
		}
	}
	return false
}

// Clone returns a deep copy of p that can be modified freely.
func (p *Params) Clone() *Params {
	c := *p
	c.DNSSeeds = append([]DNSSeed(nil), p.DNSSeeds...)
	c.GenesisBlock = copyBlock(p.GenesisBlock)
	if p.PowLimit != nil {
		c.PowLimit = new(big.Int).Set(p.PowLimit)
	}
	c.SignetChallenge = append([]byte(nil), p.SignetChallenge...)
	c.ScriptFlagExceptions = append([]ScriptFlagException(nil), p.ScriptFlagExceptions...)
	c.BIP30Exceptions = append([]BlockID(nil), p.BIP30Exceptions...)
	if p.MinimumChainWork != nil {
		c.MinimumChainWork = new(big.Int).Set(p.MinimumChainWork)
	}
	return &c
}

// SignetNet returns the network magic of a signet with the given challenge:
// the first four bytes of sha256d of the challenge serialized with its
// length prefix (BIP325).
func SignetNet(challenge []byte) wire.BitcoinNet {
	buf := wire.AppendVarInt(make([]byte, 0, 9+len(challenge)), uint64(len(challenge)))
	buf = append(buf, challenge...)
	first := sha256.Sum256(buf)
	second := sha256.Sum256(first[:])
	return wire.BitcoinNet(binary.LittleEndian.Uint32(second[:4]))
}

// CustomSignetParams returns parameters for a signet with the given
// challenge script and seeds (Core's -signetchallenge / -signetseednode):
// the default signet's rules and genesis with the challenge's own magic and
// no assumevalid or minimum-chain-work anchors.
func CustomSignetParams(challenge []byte, seeds []DNSSeed) *Params {
	p := SigNetParams.Clone()
	p.SignetChallenge = append([]byte(nil), challenge...)
	p.Net = SignetNet(challenge)
	p.DNSSeeds = append([]DNSSeed(nil), seeds...)
	p.AssumeValid = wire.Hash{}
	p.MinimumChainWork = new(big.Int)
	return p
}

// networks lists the built-in networks for lookups.
func networks() []*Params {
	return []*Params{&MainNetParams, &TestNet3Params, &TestNet4Params, &SigNetParams, &RegressionNetParams}
}

// ParamsForNetwork returns a fresh copy of the parameters for a network
// named as Core's -chain= does ("main", "test", "testnet4", "signet",
// "regtest") or by the aliases "mainnet", "testnet" and "testnet3".
func ParamsForNetwork(name string) (*Params, error) {
	switch name {
	case "mainnet":
		name = mainNetName
	case "testnet", "testnet3":
		name = testNet3Name
	}
	for _, p := range networks() {
		if p.Name == name {
			return p.Clone(), nil
		}
	}
	return nil, errorf(ErrUnknownNetwork, "%q", name)
}

// ParamsForNet returns a fresh copy of the parameters for a network magic.
func ParamsForNet(net wire.BitcoinNet) (*Params, error) {
	for _, p := range networks() {
		if p.Net == net {
			return p.Clone(), nil
		}
	}
	return nil, errorf(ErrUnknownNetwork, "magic %#08x", uint32(net))
}
