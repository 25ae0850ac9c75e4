package descriptor

import "github.com/btcnode/btcd/txscript"

// Network holds the encodings that differ between Bitcoin networks: the
// same descriptor text means different keys and addresses on each, and an
// encoding of another network is not a valid key or address.
type Network struct {
	// Name is bitcoind's chain name (main, test, testnet4, signet,
	// regtest).
	Name string
	// PubKeyHashAddrID and ScriptHashAddrID are the base58 address
	// version bytes.
	PubKeyHashAddrID byte
	ScriptHashAddrID byte
	// Bech32HRP is the human-readable part of segwit addresses.
	Bech32HRP string
	// WIFPrefix is the version byte of WIF private keys.
	WIFPrefix byte
	// XPubVersion and XPrvVersion are the BIP32 serialization versions.
	XPubVersion [4]byte
	XPrvVersion [4]byte
}

var (
	mainXPub = [4]byte{0x04, 0x88, 0xb2, 0x1e}
	mainXPrv = [4]byte{0x04, 0x88, 0xad, 0xe4}
	testXPub = [4]byte{0x04, 0x35, 0x87, 0xcf}
	testXPrv = [4]byte{0x04, 0x35, 0x83, 0x94}
)

// The built-in networks. Every test network shares testnet's key
// encodings; only regtest's bech32 prefix differs.
var (
	MainNet  = &Network{Name: "main", PubKeyHashAddrID: 0x00, ScriptHashAddrID: 0x05, Bech32HRP: "bc", WIFPrefix: 0x80, XPubVersion: mainXPub, XPrvVersion: mainXPrv}
	TestNet3 = &Network{Name: "test", PubKeyHashAddrID: 0x6f, ScriptHashAddrID: 0xc4, Bech32HRP: "tb", WIFPrefix: 0xef, XPubVersion: testXPub, XPrvVersion: testXPrv}
	TestNet4 = &Network{Name: "testnet4", PubKeyHashAddrID: 0x6f, ScriptHashAddrID: 0xc4, Bech32HRP: "tb", WIFPrefix: 0xef, XPubVersion: testXPub, XPrvVersion: testXPrv}
	SigNet   = &Network{Name: "signet", PubKeyHashAddrID: 0x6f, ScriptHashAddrID: 0xc4, Bech32HRP: "tb", WIFPrefix: 0xef, XPubVersion: testXPub, XPrvVersion: testXPrv}
	RegTest  = &Network{Name: "regtest", PubKeyHashAddrID: 0x6f, ScriptHashAddrID: 0xc4, Bech32HRP: "bcrt", WIFPrefix: 0xef, XPubVersion: testXPub, XPrvVersion: testXPrv}
)

// NetworkByName returns the built-in network with bitcoind's chain name
// (btcd's "testnet3" is accepted for "test"), or nil.
func NetworkByName(name string) *Network {
	switch name {
	case "main", "mainnet":
		return MainNet
	case "test", "testnet3":
		return TestNet3
	case "testnet4":
		return TestNet4
	case "signet":
		return SigNet
	case "regtest":
		return RegTest
	}
	return nil
}

// addressParams is n's address encoding in txscript's terms.
func (n *Network) addressParams() *txscript.AddressParams {
	return &txscript.AddressParams{PubKeyHashAddrID: n.PubKeyHashAddrID, ScriptHashAddrID: n.ScriptHashAddrID, Bech32HRP: n.Bech32HRP}
}
