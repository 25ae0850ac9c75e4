package wire

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Three messages accept more than one encoding of a value, so for them
// encode(decode(b)) == b holds only for canonical b (see isCanonical):
// version (optional fields, any non-zero relay byte, trailing data),
// sendcmpct (any non-zero flag) and addrv2 (unknown networks are dropped).

// isCanonical reports whether payload, which decoded to m and re-encoded
// to b1, is in the one form the encoder produces, so b1 must equal it.
func isCanonical(cmd string, payload []byte, m Message, b1 []byte) bool {
	switch cmd {
	case CmdVersion:
		// All optional fields present, a 0/1 relay byte, nothing after.
		return len(b1) == len(payload) && payload[len(payload)-1] <= 1
	case CmdSendCmpct:
		return payload[0] <= 1
	case CmdAddrV2:
		// No entry was dropped.
		n, _, _ := ReadVarInt(payload)
		return n == uint64(len(m.(*MsgAddrV2).AddrList))
	}
	return true
}

// mainnetSeedBlocks returns the raw mainnet vector blocks, or nil when the
// shared vectors are absent (the fuzz targets still run on other seeds).
func mainnetSeedBlocks(f *testing.F) [][]byte {
	if _, err := os.Stat(filepath.Join(vectorsDir, "mainnet", "blocks1-256.dat.bz2")); err != nil {
		return nil
	}
	return readBlkFile(f, "blocks1-256.dat.bz2")
}

func commandIndex(cmd string) uint8 {
	for i, c := range knownCommands {
		if c == cmd {
			return uint8(i)
		}
	}
	panic(cmd)
}

func FuzzMessageHeader(f *testing.F) {
	f.Add(frame(MainNet, CmdVersion, nil))
	f.Add(frame(RegTest, "abcdefghijkl", []byte{1}))
	f.Add(mustHex(f, wikiVersionMsg)[:MessageHeaderSize])
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := DecodeMessageHeader(b)
		if err != nil {
			return
		}
		if got := h.AppendTo(nil); !bytes.Equal(got, b[:MessageHeaderSize]) {
			t.Fatalf("re-encoded header %x, input %x", got, b[:MessageHeaderSize])
		}
	})
}

// FuzzMessage decodes a payload as the message chosen by which (low bits:
// command, next bit: base or witness encoding) and checks the round-trip
// properties: decode(encode(x)) == x for every decoded x, and
// encode(decode(b)) == b for every command whose encoding is canonical.
func FuzzMessage(f *testing.F) {
	for _, m := range sampleMessages(f) {
		idx := commandIndex(m.Command())
		f.Add(idx, encodeMsg(f, m, WitnessEncoding))
		f.Add(idx+uint8(len(knownCommands)), encodeMsg(f, m, BaseEncoding))
	}
	f.Add(commandIndex(CmdVersion), mustHex(f, wikiVersionMsg)[MessageHeaderSize:])
	for i, b := range mainnetSeedBlocks(f) {
		if i < 16 || len(b) > 1000 {
			f.Add(commandIndex(CmdBlock), b)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, payload []byte) {
		n := int(which) % len(knownCommands)
		cmd := knownCommands[n]
		enc := WitnessEncoding
		if (int(which)/len(knownCommands))%2 == 1 {
			enc = BaseEncoding
		}
		m, _ := MakeEmptyMessage(cmd)
		if err := m.BtcDecode(payload, testPver, enc); err != nil {
			return
		}
		b1, err := m.BtcEncode(nil, testPver, enc)
		if err != nil {
			t.Fatalf("%s: decoded message does not encode: %v", cmd, err)
		}
		if isCanonical(cmd, payload, m, b1) && !bytes.Equal(b1, payload) {
			t.Fatalf("%s: encode(decode(b)) != b\n got %x\nwant %x", cmd, b1, payload)
		}
		m2, _ := MakeEmptyMessage(cmd)
		if err := m2.BtcDecode(b1, testPver, enc); err != nil {
			t.Fatalf("%s: re-decode: %v", cmd, err)
		}
		if !reflect.DeepEqual(comparable(m), comparable(m2)) {
			t.Fatalf("%s: decode(encode(x)) != x\n got %+v\nwant %+v", cmd, m2, m)
		}
		if b2, _ := m2.BtcEncode(nil, testPver, enc); !bytes.Equal(b1, b2) {
			t.Fatalf("%s: encoding not stable", cmd)
		}
	})
}

// FuzzReadMessage reads messages from a byte stream until an error that
// leaves the stream out of step; it must never panic or loop.
func FuzzReadMessage(f *testing.F) {
	var stream []byte
	for _, m := range sampleMessages(f) {
		stream = append(stream, frame(MainNet, m.Command(), encodeMsg(f, m, WitnessEncoding))...)
	}
	f.Add(stream)
	f.Add(append(frame(MainNet, "unknown", []byte{1, 2}), frame(MainNet, CmdPing, make([]byte, 8))...))
	f.Add(mustHex(f, wikiVersionMsg))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		for range 64 {
			before := r.Len()
			n, msg, err := ReadMessage(r, testPver, MainNet, WitnessEncoding)
			if n != before-r.Len() {
				t.Fatalf("n=%d but %d bytes consumed", n, before-r.Len())
			}
			if err == nil {
				if msg == nil {
					t.Fatal("nil message without error")
				}
				continue
			}
			// Keep reading after errors too (a header error only means the
			// stream is out of step, which is harmless here); stop at its end.
			if n == 0 || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return
			}
		}
	})
}

// coreTxSeeds returns the serialized transactions of Bitcoin Core's
// tx_valid.json and tx_invalid.json, or nil when the vectors are absent.
func coreTxSeeds(f *testing.F) [][]byte {
	var out [][]byte
	for _, name := range []string{"tx_valid.json", "tx_invalid.json"} {
		data, err := os.ReadFile(filepath.Join(vectorsDir, "core", name))
		if err != nil {
			return nil
		}
		var cases [][]any
		if err := json.Unmarshal(data, &cases); err != nil {
			f.Fatal(err)
		}
		for _, c := range cases {
			if len(c) < 2 {
				continue
			}
			if s, ok := c[1].(string); ok {
				if b, err := hex.DecodeString(s); err == nil {
					out = append(out, b)
				}
			}
		}
	}
	return out
}

func FuzzTx(f *testing.F) {
	f.Add(mustHex(f, segwitTxHex))
	for _, b := range coreTxSeeds(f) {
		f.Add(b)
	}
	f.Add(legacyTx().Bytes())
	for i, b := range mainnetSeedBlocks(f) {
		if i < 8 || len(b) > 1000 {
			f.Add(b[BlockHeaderSize+1:])
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var tx MsgTx
		n, err := tx.Decode(b)
		if err != nil {
			return
		}
		enc := tx.Bytes()
		if !bytes.Equal(enc, b[:n]) {
			t.Fatalf("encode(decode(b)) != b\n got %x\nwant %x", enc, b[:n])
		}
		if tx.SerializeSize() != n {
			t.Fatalf("SerializeSize %d, decoded %d bytes", tx.SerializeSize(), n)
		}
		var tx2 MsgTx
		if _, err := tx2.Decode(enc); err != nil || !reflect.DeepEqual(&tx, &tx2) {
			t.Fatalf("decode(encode(x)) != x: %v", err)
		}
		if tx.TxHash() != DoubleHashH(tx.AppendTo(nil, false)) {
			t.Fatal("txid")
		}
		if c := tx.Copy(); !bytes.Equal(c.Bytes(), enc) {
			t.Fatal("copy")
		}
	})
}

func FuzzBlock(f *testing.F) {
	f.Add(testBlock(f).Bytes())
	for _, b := range mainnetSeedBlocks(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var blk MsgBlock
		n, err := blk.Decode(b)
		if err != nil {
			return
		}
		enc := blk.Bytes()
		if !bytes.Equal(enc, b[:n]) {
			t.Fatal("encode(decode(b)) != b")
		}
		// The hashes cached at decode equal hashing re-serialized txs.
		txids, wtxids := blk.TxHashes(), blk.WitnessHashes()
		for i, tx := range blk.Transactions {
			if txids[i] != tx.TxHash() || wtxids[i] != tx.WitnessHash() {
				t.Fatalf("tx %d: cached hashes differ", i)
			}
		}
		var blk2 MsgBlock
		if _, err := blk2.Decode(enc); err != nil || !reflect.DeepEqual(&blk, &blk2) {
			t.Fatalf("decode(encode(x)) != x: %v", err)
		}
	})
}
