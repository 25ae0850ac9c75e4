package database

import (
	"github.com/btcsuite/btcd/btcec/v2"
)

// This file holds Bitcoin Core's compact encodings used by the chainstate
// and undo data: the MSB base-128 VARINT (serialize.h, not the P2P
// CompactSize), amount compression and script compression (compressor.h).

// maxVarIntLen bounds a VARINT of a uint64: ceil(64/7) = 10 bytes.
const maxVarIntLen = 10

// VarIntLen returns the number of bytes AppendVarInt writes for n.
func VarIntLen(n uint64) int {
	l := 1
	for n > 0x7f {
		n = (n >> 7) - 1
		l++
	}
	return l
}

// AppendVarInt appends n in Core's VARINT form: base-128 digits, most
// significant first, with the high bit set on all but the last byte and one
// subtracted from each continuation so that every value has exactly one
// encoding.
func AppendVarInt(dst []byte, n uint64) []byte {
	var tmp [maxVarIntLen]byte
	i := len(tmp) - 1
	tmp[i] = byte(n & 0x7f)
	for n > 0x7f {
		n = (n >> 7) - 1
		i--
		tmp[i] = byte(n&0x7f) | 0x80
	}
	return append(dst, tmp[i:]...)
}

// ReadVarInt decodes a Core VARINT from the front of b, returning the value
// and the number of bytes read. Values that overflow 64 bits and truncated
// input are ErrCorrupt.
func ReadVarInt(b []byte) (uint64, int, error) {
	var n uint64
	for i := 0; i < len(b); i++ {
		if n > (^uint64(0) >> 7) {
			return 0, 0, newErr(ErrCorrupt, "VARINT overflows 64 bits")
		}
		c := b[i]
		n = (n << 7) | uint64(c&0x7f)
		if c&0x80 == 0 {
			return n, i + 1, nil
		}
		if n == ^uint64(0) {
			return 0, 0, newErr(ErrCorrupt, "VARINT overflows 64 bits")
		}
		n++
	}
	return 0, 0, newErr(ErrCorrupt, "truncated VARINT")
}

// CompressAmount maps a satoshi amount to a smaller integer that encodes
// round amounts (trailing decimal zeros) in few VARINT bytes, as Core does.
func CompressAmount(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	e := uint64(0)
	for n%10 == 0 && e < 9 {
		n /= 10
		e++
	}
	if e < 9 {
		d := n % 10
		n /= 10
		return 1 + (n*9+d-1)*10 + e
	}
	return 1 + (n-1)*10 + 9
}

// DecompressAmount inverts CompressAmount. Inputs that CompressAmount never
// produces may wrap; callers validate the resulting amount's range.
func DecompressAmount(x uint64) uint64 {
	if x == 0 {
		return 0
	}
	x--
	e := x % 10
	x /= 10
	var n uint64
	if e < 9 {
		d := x%9 + 1
		x /= 9
		n = x*10 + d
	} else {
		n = x + 1
	}
	for ; e > 0; e-- {
		n *= 10
	}
	return n
}

// Script opcodes needed to recognise the special script forms.
const (
	opDup         = 0x76
	opHash160     = 0xa9
	opEqual       = 0x87
	opEqualVerify = 0x88
	opCheckSig    = 0xac
	opReturn      = 0x6a

	// numSpecialScripts is the number of special script codes (0..5);
	// other scripts are stored as VARINT(len + numSpecialScripts) || script.
	numSpecialScripts = 6

	// MaxScriptSize is the consensus limit on script length; longer output
	// scripts are unspendable and never enter the UTXO set.
	MaxScriptSize = 10000
)

// IsUnspendable reports whether an output script can never be spent
// (OP_RETURN first, or longer than MaxScriptSize). Such outputs are not
// stored in the UTXO set, as in Core.
func IsUnspendable(script []byte) bool {
	return (len(script) > 0 && script[0] == opReturn) || len(script) > MaxScriptSize
}

// compressScriptSpecial returns the special compressed form of script (code
// byte plus 20 or 32 bytes) in out, or ok=false if the script is not one of
// P2PKH, P2SH or P2PK with a valid public key.
func compressScriptSpecial(out *[33]byte, script []byte) (n int, ok bool) {
	switch {
	case len(script) == 25 && script[0] == opDup && script[1] == opHash160 &&
		script[2] == 20 && script[23] == opEqualVerify && script[24] == opCheckSig:
		out[0] = 0x00
		copy(out[1:], script[3:23])
		return 21, true
	case len(script) == 23 && script[0] == opHash160 && script[1] == 20 &&
		script[22] == opEqual:
		out[0] = 0x01
		copy(out[1:], script[2:22])
		return 21, true
	case len(script) == 35 && script[0] == 33 && script[34] == opCheckSig &&
		(script[1] == 0x02 || script[1] == 0x03):
		out[0] = script[1]
		copy(out[1:], script[2:34])
		return 33, true
	case len(script) == 67 && script[0] == 65 && script[66] == opCheckSig &&
		script[1] == 0x04:
		// Only keys on the curve compress: decompression recomputes y.
		if _, err := btcec.ParsePubKey(script[1:66]); err != nil {
			return 0, false
		}
		out[0] = 0x04 | (script[65] & 1)
		copy(out[1:], script[2:34])
		return 33, true
	}
	return 0, false
}

// CompressedScriptLen returns the number of bytes AppendCompressedScript
// writes for script.
func CompressedScriptLen(script []byte) int {
	var tmp [33]byte
	if n, ok := compressScriptSpecial(&tmp, script); ok {
		return n
	}
	return VarIntLen(uint64(len(script))+numSpecialScripts) + len(script)
}

// AppendCompressedScript appends Core's compressed script form.
func AppendCompressedScript(dst, script []byte) []byte {
	var tmp [33]byte
	if n, ok := compressScriptSpecial(&tmp, script); ok {
		return append(dst, tmp[:n]...)
	}
	dst = AppendVarInt(dst, uint64(len(script))+numSpecialScripts)
	return append(dst, script...)
}

// DecodeCompressedScript decodes a compressed script from the front of b,
// appending the full script to dst. It returns the extended dst and the
// number of bytes consumed. Oversized raw scripts decode, as in Core, to a
// lone OP_RETURN (they were unspendable anyway).
func DecodeCompressedScript(dst, b []byte) ([]byte, int, error) {
	code, n, err := ReadVarInt(b)
	if err != nil {
		return dst, 0, err
	}
	b = b[n:]
	switch code {
	case 0x00:
		if len(b) < 20 {
			return dst, 0, newErr(ErrCorrupt, "truncated P2PKH script")
		}
		dst = append(dst, opDup, opHash160, 20)
		dst = append(dst, b[:20]...)
		return append(dst, opEqualVerify, opCheckSig), n + 20, nil
	case 0x01:
		if len(b) < 20 {
			return dst, 0, newErr(ErrCorrupt, "truncated P2SH script")
		}
		dst = append(dst, opHash160, 20)
		dst = append(dst, b[:20]...)
		return append(dst, opEqual), n + 20, nil
	case 0x02, 0x03:
		if len(b) < 32 {
			return dst, 0, newErr(ErrCorrupt, "truncated P2PK script")
		}
		dst = append(dst, 33, byte(code))
		dst = append(dst, b[:32]...)
		return append(dst, opCheckSig), n + 32, nil
	case 0x04, 0x05:
		if len(b) < 32 {
			return dst, 0, newErr(ErrCorrupt, "truncated P2PK script")
		}
		var comp [33]byte
		comp[0] = byte(code) - 2
		copy(comp[1:], b[:32])
		pk, err := btcec.ParsePubKey(comp[:])
		if err != nil {
			return dst, 0, wrapErr(ErrCorrupt, err, "compressed P2PK key not on curve")
		}
		dst = append(dst, 65)
		dst = append(dst, pk.SerializeUncompressed()...)
		return append(dst, opCheckSig), n + 32, nil
	}
	size := code - numSpecialScripts
	if size > uint64(len(b)) {
		return dst, 0, newErr(ErrCorrupt, "script length %d exceeds remaining %d bytes", size, len(b))
	}
	if size > MaxScriptSize {
		return append(dst, opReturn), n + int(size), nil
	}
	dst = append(dst, b[:size]...)
	return dst, n + int(size), nil
}

// maxCoinHeight bounds heights so that height*2+1 fits the 32-bit code Core
// uses.
const maxCoinHeight = 1<<31 - 1

// maxMoney bounds decoded amounts (21 million BTC in satoshi).
const maxMoney = 21_000_000 * 100_000_000

// AppendCoin appends the chainstate value of an unspent output: VARINT(height*2
// + coinbase), VARINT(CompressAmount(amount)), compressed script. This is the
// same layout as Core's Coin serialization and undo entries (without the
// legacy version byte, which undo records add themselves).
func AppendCoin(dst []byte, amount int64, script []byte, height int32, coinbase bool) []byte {
	code := uint64(uint32(height)) << 1
	if coinbase {
		code |= 1
	}
	dst = AppendVarInt(dst, code)
	dst = AppendVarInt(dst, CompressAmount(uint64(amount)))
	return AppendCompressedScript(dst, script)
}

// DecodeCoin decodes a value written by AppendCoin from the front of b. The
// script is appended to scriptBuf; the returned entry's PkScript aliases the
// returned buffer. n is the number of bytes consumed.
func DecodeCoin(b, scriptBuf []byte) (e UtxoEntry, buf []byte, n int, err error) {
	code, n1, err := ReadVarInt(b)
	if err != nil {
		return e, scriptBuf, 0, err
	}
	if code>>1 > maxCoinHeight {
		return e, scriptBuf, 0, newErr(ErrCorrupt, "coin height %d out of range", code>>1)
	}
	amt, n2, err := ReadVarInt(b[n1:])
	if err != nil {
		return e, scriptBuf, 0, err
	}
	v := DecompressAmount(amt)
	if v > maxMoney {
		return e, scriptBuf, 0, newErr(ErrCorrupt, "coin amount %d out of range", v)
	}
	start := len(scriptBuf)
	buf, n3, err := DecodeCompressedScript(scriptBuf, b[n1+n2:])
	if err != nil {
		return e, scriptBuf, 0, err
	}
	e = UtxoEntry{
		Amount:     int64(v),
		PkScript:   buf[start:len(buf):len(buf)],
		Height:     int32(code >> 1),
		IsCoinBase: code&1 == 1,
	}
	return e, buf, n1 + n2 + n3, nil
}
