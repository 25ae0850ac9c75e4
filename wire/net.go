package wire

import "fmt"

// BitcoinNet is a network's magic number, the first four bytes of every
// message and of every record in a block file (little-endian on the wire).
type BitcoinNet uint32

// Network magics of the networks the node knows.
const (
	MainNet  BitcoinNet = 0xd9b4bef9
	TestNet3 BitcoinNet = 0x0709110b
	TestNet4 BitcoinNet = 0x283f161c
	SigNet   BitcoinNet = 0x40cf030a // the default signet; custom signets derive their own
	RegTest  BitcoinNet = 0xdab5bffa
)

// String names the network.
func (n BitcoinNet) String() string {
	switch n {
	case MainNet:
		return "MainNet"
	case TestNet3:
		return "TestNet3"
	case TestNet4:
		return "TestNet4"
	case SigNet:
		return "SigNet"
	case RegTest:
		return "RegTest"
	}
	return fmt.Sprintf("Unknown BitcoinNet (%#08x)", uint32(n))
}

// Protocol facts.
const (
	// ProtocolVersion is the newest protocol version we speak (BIP339
	// wtxidrelay).
	ProtocolVersion uint32 = 70016
	// MaxProtocolMessageLength is the largest payload a peer may send, as
	// Bitcoin Core enforces; it also bounds a block's serialized size.
	MaxProtocolMessageLength = 4000000
)
