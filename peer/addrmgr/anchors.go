package addrmgr

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/btcnode/btcd/peer/internal/atomicfile"
	"github.com/btcnode/btcd/wire"
)

// AnchorsFileName is Bitcoin Core's file of block-relay-only peers to
// reconnect to after a restart, in the network's data directory.
const AnchorsFileName = "anchors.dat"

// MaxAnchors is how many anchors are saved and tried (Core's
// MAX_BLOCK_RELAY_ONLY_ANCHORS).
const MaxAnchors = 2

// maxAnchorsInFile bounds the entries a file may hold; anything longer
// is not a file this node or Core wrote.
const maxAnchorsInFile = 64

// maxAnchorsFileSize bounds the bytes read: maxAnchorsInFile entries of
// the longest address a known network has.
const maxAnchorsFileSize = 4 + 9 + maxAnchorsInFile*(4+4+9+1+9+32+2) + 32

// ErrCorruptAnchors means anchors.dat failed its checksum, its network
// magic or its structure.
var ErrCorruptAnchors = errors.New("corrupt anchors file")

// EncodeAnchors serializes addrs as Core's anchors.dat: the network magic,
// the addresses as a vector of CAddress in the disk format with BIP155
// encoding (version, time, services, address, port), and the double
// SHA-256 of all that.
func EncodeAnchors(magic wire.BitcoinNet, addrs []wire.NetAddressV2) ([]byte, error) {
	w := &datWriter{b: make([]byte, 0, 4+1+len(addrs)*64+32)}
	w.u32(uint32(magic))
	w.b = wire.AppendVarInt(w.b, uint64(len(addrs)))
	for i := range addrs {
		a := &addrs[i]
		k, ok := keyOf(a)
		if !ok {
			return nil, fmt.Errorf("anchor %v: unsupported address", a)
		}
		w.u32(diskVersionInit | diskVersionAddrV2)
		w.u32(a.Timestamp)
		w.b = wire.AppendVarInt(w.b, uint64(a.Services))
		w.netAddr(&k)
		w.b = binary.BigEndian.AppendUint16(w.b, a.Port)
	}
	return append(w.b, wire.DoubleHashB(w.b)...), nil
}

// DecodeAnchors parses an anchors.dat of network magic. Addresses of
// networks this node does not know are skipped, as Core leaves them
// unusable.
func DecodeAnchors(magic wire.BitcoinNet, b []byte) ([]wire.NetAddressV2, error) {
	if len(b) < 4+1+32 || len(b) > maxAnchorsFileSize {
		return nil, fmt.Errorf("%w: %d bytes", ErrCorruptAnchors, len(b))
	}
	body, sum := b[:len(b)-32], b[len(b)-32:]
	if !bytes.Equal(wire.DoubleHashB(body), sum) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorruptAnchors)
	}
	r := &datReader{b: body}
	if wire.BitcoinNet(r.u32()) != magic {
		return nil, fmt.Errorf("%w: network magic", ErrCorruptAnchors)
	}
	n := r.compactSize(true)
	if r.err != nil || n > maxAnchorsInFile {
		return nil, fmt.Errorf("%w: %d entries", ErrCorruptAnchors, n)
	}
	out := make([]wire.NetAddressV2, 0, n)
	for i := uint64(0); i < n && r.err == nil; i++ {
		stored := r.u32() &^ diskVersionIgnoreMask
		var v2 bool
		switch stored {
		case 0:
		case diskVersionAddrV2:
			v2 = true
		default:
			r.fail(streamFailure("Unsupported CAddress disk format version"))
		}
		ts := r.u32()
		var svc uint64
		if v2 {
			svc = r.compactSize(false)
		} else {
			svc = r.u64()
		}
		k, valid := r.netAddr(v2)
		k.port = r.u16be()
		if r.err != nil || !valid || k.net == netInternal {
			continue
		}
		na := k.netAddress()
		na.Timestamp, na.Services = ts, wire.ServiceFlag(svc)
		out = append(out, na)
	}
	if r.err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorruptAnchors, r.err)
	}
	if r.off != len(body) {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrCorruptAnchors, len(body)-r.off)
	}
	return out, nil
}

// WriteAnchors writes addrs to path atomically.
func WriteAnchors(path string, magic wire.BitcoinNet, addrs []wire.NetAddressV2) error {
	b, err := EncodeAnchors(magic, addrs)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, b)
}

// ReadAnchors reads path and then removes it, as Core does whether or not
// it parsed, so a file that makes the node misbehave is used once only.
// A missing file gives no anchors and no error.
func ReadAnchors(path string, magic wire.BitcoinNet) ([]wire.NetAddressV2, error) {
	b, err := readLimitedN(path, maxAnchorsFileSize+1)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	defer os.Remove(path)
	if err != nil {
		return nil, err
	}
	return DecodeAnchors(magic, b)
}

// readLimitedN reads at most n bytes of path.
func readLimitedN(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}
