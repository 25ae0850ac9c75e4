package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"reflect"
	"strings"
	"testing"
)

const testPver = ProtocolVersion

func mustTx(t testing.TB, h string) *MsgTx {
	t.Helper()
	var tx MsgTx
	if _, err := tx.Decode(mustHex(t, h)); err != nil {
		t.Fatal(err)
	}
	return &tx
}

// legacyTx is a small transaction without witness data.
func legacyTx() *MsgTx {
	return &MsgTx{
		Version: 1,
		TxIn: []TxIn{{
			PreviousOutPoint: OutPoint{Hash: Hash{1, 2, 3}, Index: 7},
			SignatureScript:  []byte{0x51, 0x52},
			Sequence:         0xfffffffe,
		}},
		TxOut:    []TxOut{{Value: 5000, PkScript: []byte{0x76, 0xa9}}},
		LockTime: 99,
	}
}

func testHeader(n uint32) BlockHeader {
	return BlockHeader{Version: 0x20000000, PrevBlock: Hash{byte(n), 1}, MerkleRoot: Hash{byte(n), 2},
		Timestamp: 1700000000 + n, Bits: 0x1d00ffff, Nonce: n * 7}
}

func testBlock(t testing.TB) *MsgBlock {
	cb := &MsgTx{Version: 1, TxIn: []TxIn{{PreviousOutPoint: OutPoint{Index: MaxPrevOutIndex},
		SignatureScript: []byte{1, 2, 3}, Sequence: MaxTxInSequenceNum}},
		TxOut: []TxOut{{Value: 50e8, PkScript: []byte{0x51}}}}
	return &MsgBlock{Header: testHeader(1), Transactions: []*MsgTx{cb, mustTx(t, segwitTxHex), legacyTx()}}
}

// sampleMessages returns one non-trivial value of every message type.
func sampleMessages(t testing.TB) []Message {
	v4 := netip.MustParseAddr("203.0.113.7")
	v6 := netip.MustParseAddr("2001:db8::1")
	return []Message{
		&MsgVersion{ProtocolVersion: 70016, Services: SFNodeNetwork | SFNodeWitness, Timestamp: 1700000000,
			AddrYou: NetAddress{Services: SFNodeNetwork, Addr: v4, Port: 8333},
			AddrMe:  NetAddress{Services: SFNodeWitness, Addr: v6, Port: 18333},
			Nonce:   0x0123456789abcdef, UserAgent: "/btcnode:0.1.0/", LastBlock: 840000, DisableRelayTx: true},
		&MsgVerAck{},
		&MsgPing{Nonce: 42},
		&MsgPong{Nonce: 43},
		&MsgAddr{AddrList: []NetAddress{
			{Timestamp: 1, Services: SFNodeNetwork, Addr: v4, Port: 8333},
			{Timestamp: 2, Services: SFNodeNetworkLimited, Addr: v6, Port: 1}}},
		&MsgAddrV2{AddrList: []NetAddressV2{
			{Timestamp: 3, Services: SFNodeNetwork, NetworkID: NetIPv4, Addr: []byte{1, 2, 3, 4}, Port: 8333},
			{Timestamp: 4, Services: 1 << 40, NetworkID: NetTorV3, Addr: bytes.Repeat([]byte{7}, 32), Port: 9050},
			{Timestamp: 5, NetworkID: NetCJDNS, Addr: append([]byte{0xfc}, make([]byte, 15)...), Port: 2}}},
		&MsgSendAddrV2{},
		&MsgGetAddr{},
		&MsgInv{InvList: []InvVect{{InvTypeWTx, Hash{9}}, {InvTypeBlock, Hash{8}}}},
		&MsgGetData{InvList: []InvVect{{InvTypeWitnessBlock, Hash{7}}}},
		&MsgNotFound{InvList: []InvVect{{InvTypeWitnessTx, Hash{6}}}},
		&MsgGetBlocks{ProtocolVersion: 70016, BlockLocatorHashes: []Hash{{1}, {2}}, HashStop: Hash{3}},
		&MsgGetHeaders{ProtocolVersion: 70016, BlockLocatorHashes: []Hash{{4}}, HashStop: Hash{}},
		&MsgHeaders{Headers: []BlockHeader{testHeader(1), testHeader(2)}},
		testBlock(t),
		mustTx(t, segwitTxHex),
		&MsgMemPool{},
		&MsgSendHeaders{},
		&MsgFeeFilter{MinFee: 1000},
		&MsgWtxidRelay{},
		&MsgSendCmpct{AnnounceHighBandwidth: true, Version: 2},
		&MsgCmpctBlock{Header: testHeader(5), Nonce: 77, ShortIDs: []uint64{1, ShortTxIDMask, 0x123456789a},
			PrefilledTxs: []PrefilledTx{{Index: 0, Tx: legacyTx()}, {Index: 4, Tx: mustTx(t, segwitTxHex)}}},
		&MsgGetBlockTxn{BlockHash: Hash{5}, Indexes: []uint32{0, 1, 5, 300, 65535}},
		&MsgBlockTxn{BlockHash: Hash{6}, Transactions: []*MsgTx{legacyTx(), mustTx(t, segwitTxHex)}},
		&MsgGetCFilters{FilterType: GCSFilterRegular, StartHeight: 1000, StopHash: Hash{1}},
		&MsgCFilter{FilterType: GCSFilterRegular, BlockHash: Hash{2}, Data: []byte{1, 2, 3, 4, 5}},
		&MsgGetCFHeaders{StartHeight: 5, StopHash: Hash{3}},
		&MsgCFHeaders{StopHash: Hash{4}, PrevFilterHeader: Hash{5}, FilterHashes: []Hash{{6}, {7}}},
		&MsgGetCFCheckpt{StopHash: Hash{8}},
		&MsgCFCheckpt{StopHash: Hash{9}, FilterHeaders: []Hash{{10}, {11}, {12}}},
		&MsgReject{Cmd: CmdTx, Code: RejectInsufficientFee, Reason: "mempool min fee not met", Hash: Hash{13}},
		&MsgFilterLoad{Filter: []byte{0xff, 0x00, 0x10}, HashFuncs: 11, Tweak: 5, Flags: BloomUpdateAll},
		&MsgFilterAdd{Data: []byte{1, 2, 3}},
		&MsgFilterClear{},
		&MsgMerkleBlock{Header: testHeader(9), Transactions: 7, Hashes: []Hash{{1}, {2}}, Flags: []byte{0x1d}},
		&MsgSendTxRcncl{Version: 1, Salt: 0x0102030405060708},
	}
}

func encodeMsg(t testing.TB, m Message, enc MessageEncoding) []byte {
	t.Helper()
	b, err := m.BtcEncode(nil, testPver, enc)
	if err != nil {
		t.Fatalf("%s: encode: %v", m.Command(), err)
	}
	return b
}

func decodeMsg(t testing.TB, cmd string, p []byte, enc MessageEncoding) (Message, error) {
	t.Helper()
	m, err := MakeEmptyMessage(cmd)
	if err != nil {
		t.Fatal(err)
	}
	return m, m.BtcDecode(p, testPver, enc)
}

// comparable strips what DeepEqual must not compare (the block's hash
// caches, which depend on whether the block came from bytes).
func comparable(m Message) any {
	if b, ok := m.(*MsgBlock); ok {
		return struct {
			H BlockHeader
			T []*MsgTx
		}{b.Header, b.Transactions}
	}
	return m
}

func TestMessageRoundTrip(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range sampleMessages(t) {
		cmd := m.Command()
		seen[cmd] = true
		enc := encodeMsg(t, m, WitnessEncoding)
		if uint32(len(enc)) > m.MaxPayloadLength(testPver) {
			t.Errorf("%s: %d bytes above MaxPayloadLength %d", cmd, len(enc), m.MaxPayloadLength(testPver))
		}
		if s, ok := m.(payloadSizer); ok && s.payloadSize(WitnessEncoding) < len(enc) {
			t.Errorf("%s: payloadSize %d below encoded %d", cmd, s.payloadSize(WitnessEncoding), len(enc))
		}
		got, err := decodeMsg(t, cmd, enc, WitnessEncoding)
		if err != nil {
			t.Fatalf("%s: decode: %v", cmd, err)
		}
		if !reflect.DeepEqual(comparable(got), comparable(m)) {
			t.Errorf("%s: round trip differs:\n got %+v\nwant %+v", cmd, got, m)
		}
		if again := encodeMsg(t, got, WitnessEncoding); !bytes.Equal(again, enc) {
			t.Errorf("%s: re-encoding differs", cmd)
		}
		// Appending to a non-empty dst keeps the prefix.
		pre, _ := m.BtcEncode([]byte("xyz"), testPver, WitnessEncoding)
		if !bytes.Equal(pre[:3], []byte("xyz")) || !bytes.Equal(pre[3:], enc) {
			t.Errorf("%s: BtcEncode does not append", cmd)
		}
		// Through the message framing.
		var buf bytes.Buffer
		n, err := WriteMessage(&buf, m, testPver, MainNet, WitnessEncoding)
		if err != nil || n != MessageHeaderSize+len(enc) {
			t.Fatalf("%s: WriteMessage n=%d err=%v", cmd, n, err)
		}
		rn, rm, err := ReadMessage(&buf, testPver, MainNet, WitnessEncoding)
		if err != nil || rn != n {
			t.Fatalf("%s: ReadMessage n=%d err=%v", cmd, rn, err)
		}
		if !reflect.DeepEqual(comparable(rm), comparable(m)) {
			t.Errorf("%s: ReadMessage result differs", cmd)
		}
		// The decoder must not keep the payload: scribbling over it must
		// not change the decoded message.
		p := bytes.Clone(enc)
		got2, _ := decodeMsg(t, cmd, p, WitnessEncoding)
		for i := range p {
			p[i] ^= 0xa5
		}
		if !reflect.DeepEqual(comparable(got2), comparable(got)) {
			t.Errorf("%s: decoded message aliases its payload", cmd)
		}
	}
	for _, c := range knownCommands {
		if !seen[c] {
			t.Errorf("no sample for %s", c)
		}
		m, err := MakeEmptyMessage(c)
		if err != nil || m.Command() != c {
			t.Errorf("MakeEmptyMessage(%s): %v", c, err)
		}
	}
}

// TestMessageTruncated cuts every payload at every length: each must fail
// with an error, never panic or succeed (version's optional groups aside).
func TestMessageTruncated(t *testing.T) {
	for _, m := range sampleMessages(t) {
		cmd := m.Command()
		enc := encodeMsg(t, m, WitnessEncoding)
		for i := 0; i < len(enc); i++ {
			_, err := decodeMsg(t, cmd, enc[:i], WitnessEncoding)
			if cmd == CmdVersion {
				continue // checked in TestVersionOptionalFields
			}
			if err == nil {
				t.Fatalf("%s: truncated to %d of %d bytes decoded", cmd, i, len(enc))
			}
		}
		if cmd == CmdVersion {
			continue
		}
		_, err := decodeMsg(t, cmd, append(bytes.Clone(enc), 0), WitnessEncoding)
		if !errors.Is(err, ErrTrailingData) {
			t.Errorf("%s: trailing byte: %v", cmd, err)
		}
	}
}

func TestWitnessEncoding(t *testing.T) {
	for _, m := range []Message{mustTx(t, segwitTxHex), testBlock(t),
		&MsgBlockTxn{Transactions: []*MsgTx{mustTx(t, segwitTxHex)}},
		&MsgCmpctBlock{PrefilledTxs: []PrefilledTx{{Tx: mustTx(t, segwitTxHex)}}}} {
		wit := encodeMsg(t, m, WitnessEncoding)
		base := encodeMsg(t, m, BaseEncoding)
		if len(base) >= len(wit) {
			t.Fatalf("%s: base encoding not smaller", m.Command())
		}
		if _, err := decodeMsg(t, m.Command(), wit, BaseEncoding); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: witness data under BaseEncoding: %v", m.Command(), err)
		}
		got, err := decodeMsg(t, m.Command(), base, BaseEncoding)
		if err != nil {
			t.Fatalf("%s: base decode: %v", m.Command(), err)
		}
		if !bytes.Equal(encodeMsg(t, got, WitnessEncoding), base) {
			t.Errorf("%s: stripped message re-encodes with witness", m.Command())
		}
	}
}

// countPayload builds a payload of prefix, a var-int count and filler.
func countPayload(prefix []byte, count uint64, filler int) []byte {
	b := AppendVarInt(bytes.Clone(prefix), count)
	return append(b, make([]byte, filler)...)
}

func TestMessageLimits(t *testing.T) {
	cases := []struct {
		cmd   string
		p     []byte
		limit string
	}{
		{CmdInv, countPayload(nil, MaxInvPerMsg+1, 0), "MAX_INV_SZ"},
		{CmdGetData, countPayload(nil, MaxInvPerMsg+1, 0), "MAX_INV_SZ"},
		{CmdNotFound, countPayload(nil, MaxInvPerMsg+1, 0), "MAX_INV_SZ"},
		{CmdHeaders, countPayload(nil, MaxBlockHeadersPerMsg+1, 0), "MAX_HEADERS_RESULTS"},
		{CmdAddr, countPayload(nil, MaxAddrPerMsg+1, 0), "MAX_ADDR_TO_SEND"},
		{CmdAddrV2, countPayload(nil, MaxAddrPerMsg+1, 0), "MAX_ADDR_TO_SEND"},
		{CmdGetBlocks, countPayload([]byte{1, 0, 0, 0}, MaxBlockLocatorsPerMsg+1, 0), "MAX_LOCATOR_SZ"},
		{CmdGetHeaders, countPayload([]byte{1, 0, 0, 0}, MaxBlockLocatorsPerMsg+1, 0), "MAX_LOCATOR_SZ"},
		{CmdCFHeaders, countPayload(make([]byte, 65), MaxCFHeadersPerMsg+1, 0), "MAX_GETCFHEADERS_SIZE"},
		{CmdVersion, countPayload(make([]byte, 4+8+8+26+26+8), MaxUserAgentLen+1, 300), "MAX_SUBVERSION_LENGTH"},
		{CmdCmpctBlock, countPayload(make([]byte, 88), MaxCmpctBlockTxs+1, 0), "16-bit"},
		{CmdAddrV2, []byte{1, 0, 0, 0, 0, 0, 1, 0xfd, 0x01, 0x02}, "512"},
	}
	for _, c := range cases {
		_, err := decodeMsg(t, c.cmd, c.p, WitnessEncoding)
		if !errors.Is(err, ErrLimitExceeded) || !strings.Contains(err.Error(), c.limit) {
			t.Errorf("%s: want limit error naming %s, got %v", c.cmd, c.limit, err)
		}
	}
	// A huge count that passes no limit check still fails before
	// allocating, on the bytes that remain.
	for _, cmd := range []string{CmdBlockTxn, CmdCFCheckpt, CmdMerkleBlock} {
		p := countPayload(make([]byte, 33), 1<<30, 10)
		if cmd == CmdMerkleBlock {
			p = countPayload(make([]byte, 84), 1<<20, 10)
		}
		if _, err := decodeMsg(t, cmd, p, WitnessEncoding); err == nil {
			t.Errorf("%s: huge count decoded", cmd)
		}
	}
	// Differential indexes beyond 16 bits.
	gbt := countPayload(make([]byte, 32), 2, 0)
	gbt = append(gbt, 0xfd, 0xff, 0xff, 0x00)
	if _, err := decodeMsg(t, CmdGetBlockTxn, gbt, WitnessEncoding); !errors.Is(err, ErrLimitExceeded) {
		t.Errorf("getblocktxn index overflow: %v", err)
	}
	// Encoders refuse what decoders would refuse.
	big := &MsgInv{InvList: make([]InvVect, MaxInvPerMsg+1)}
	if _, err := big.BtcEncode(nil, testPver, WitnessEncoding); !errors.Is(err, ErrLimitExceeded) {
		t.Errorf("encode oversized inv: %v", err)
	}
	if _, err := (&MsgVersion{UserAgent: strings.Repeat("x", 257)}).BtcEncode(nil, testPver, 0); !errors.Is(err, ErrLimitExceeded) {
		t.Errorf("encode long user agent: %v", err)
	}
	if _, err := (&MsgGetBlockTxn{Indexes: []uint32{5, 5}}).BtcEncode(nil, testPver, 0); !errors.Is(err, ErrMalformed) {
		t.Errorf("encode repeated index: %v", err)
	}
}

func TestNonCanonicalCounts(t *testing.T) {
	for _, c := range []struct {
		cmd string
		p   []byte
	}{
		{CmdInv, []byte{0xfd, 0x01, 0x00}},
		{CmdHeaders, []byte{0xfe, 0x01, 0x00, 0x00, 0x00}},
		{CmdAddr, []byte{0xff, 0x01, 0, 0, 0, 0, 0, 0, 0}},
		{CmdGetHeaders, []byte{1, 0, 0, 0, 0xfd, 0x00, 0x00}},
		{CmdCFilter, append(make([]byte, 33), 0xfd, 0x02, 0x00, 1, 2)},
	} {
		if _, err := decodeMsg(t, c.cmd, c.p, WitnessEncoding); !errors.Is(err, ErrNonCanonical) {
			t.Errorf("%s: want ErrNonCanonical, got %v", c.cmd, err)
		}
	}
}

func TestHeadersNonZeroTxCount(t *testing.T) {
	m := &MsgHeaders{Headers: []BlockHeader{testHeader(1)}}
	p := encodeMsg(t, m, WitnessEncoding)
	p[len(p)-1] = 1
	if _, err := decodeMsg(t, CmdHeaders, p, WitnessEncoding); !errors.Is(err, ErrMalformed) {
		t.Fatalf("tx count 1: %v", err)
	}
}

func TestPingBeforeBIP31(t *testing.T) {
	p, _ := (&MsgPing{Nonce: 5}).BtcEncode(nil, BIP0031Version, 0)
	if len(p) != 0 {
		t.Fatal("old ping has a nonce")
	}
	var m MsgPing
	if err := m.BtcDecode(nil, BIP0031Version, 0); err != nil {
		t.Fatal(err)
	}
}

// The wiki's example version message (protocol 60002, no relay flag) with
// its header; and a verack as Bitcoin Core sends it.
const wikiVersionMsg = "f9beb4d976657273696f6e000000000064000000358d4932" +
	"62ea0000010000000000000011b2d05000000000010000000000000000000000000000000000ffff000000000000" +
	"000000000000000000000000000000000000ffff0000000000003b2eb35d8ce617650f2f5361746f7368693a302e372e322fc03e0300"

func TestVersionVector(t *testing.T) {
	raw := mustHex(t, wikiVersionMsg)
	n, msg, err := ReadMessage(bytes.NewReader(raw), testPver, MainNet, WitnessEncoding)
	if err != nil || n != len(raw) {
		t.Fatalf("n=%d err=%v", n, err)
	}
	v := msg.(*MsgVersion)
	if v.ProtocolVersion != 60002 || v.Services != SFNodeNetwork || v.Timestamp != 0x50d0b211 ||
		v.UserAgent != "/Satoshi:0.7.2/" || v.LastBlock != 212672 || v.Nonce != 0x6517e68c5db32e3b ||
		v.DisableRelayTx || v.AddrYou.Services != SFNodeNetwork || v.AddrYou.Addr != netip.MustParseAddr("0.0.0.0") {
		t.Fatalf("decoded %+v", v)
	}
	// Re-encoding adds the relay flag (on) and nothing else.
	enc := encodeMsg(t, v, WitnessEncoding)
	if !bytes.Equal(enc, append(bytes.Clone(raw[MessageHeaderSize:]), 1)) {
		t.Fatalf("re-encoding:\n%x\n%x", enc, raw[MessageHeaderSize:])
	}
	verack := mustHex(t, "f9beb4d976657261636b000000000000000000005df6e0e2")
	var buf bytes.Buffer
	if _, err := WriteMessage(&buf, &MsgVerAck{}, testPver, MainNet, WitnessEncoding); err != nil || !bytes.Equal(buf.Bytes(), verack) {
		t.Fatalf("verack %x %v", buf.Bytes(), err)
	}
}

func TestVersionOptionalFields(t *testing.T) {
	full := encodeMsg(t, sampleMessages(t)[0], WitnessEncoding)
	ua := len("/btcnode:0.1.0/") + 1
	// Lengths at which a group boundary falls decode; others do not.
	ok := map[int]bool{46: true, 80: true, 80 + ua: true, 84 + ua: true, 85 + ua: true}
	for i := 0; i <= len(full); i++ {
		var v MsgVersion
		err := v.BtcDecode(full[:i], testPver, WitnessEncoding)
		if ok[i] != (err == nil) {
			t.Fatalf("length %d: err %v", i, err)
		}
		if err == nil && i < len(full) && v.DisableRelayTx {
			t.Fatalf("length %d: missing relay flag must mean relay", i)
		}
	}
	// Data after the relay flag is ignored, as in Core.
	var v MsgVersion
	if err := v.BtcDecode(append(bytes.Clone(full), 1, 2, 3), testPver, WitnessEncoding); err != nil || v.UserAgent != "/btcnode:0.1.0/" {
		t.Fatalf("trailing data: %v", err)
	}
}

func frame(net BitcoinNet, cmd string, payload []byte) []byte {
	h := MessageHeader{Net: net, Command: cmd, Length: uint32(len(payload)), Checksum: checksum(payload)}
	return append(h.AppendTo(nil), payload...)
}

func TestReadMessageErrors(t *testing.T) {
	ping := frame(MainNet, CmdPing, []byte{1, 0, 0, 0, 0, 0, 0, 0})

	// Unknown command: payload consumed, next message readable.
	stream := append(frame(MainNet, "foo", []byte("hello")), ping...)
	r := bytes.NewReader(stream)
	n, _, err := ReadMessage(r, testPver, MainNet, WitnessEncoding)
	var uc *UnknownCommandError
	if !errors.Is(err, ErrUnknownCommand) || !errors.As(err, &uc) || uc.Command != "foo" || n != MessageHeaderSize+5 {
		t.Fatalf("unknown command: n=%d err=%v", n, err)
	}
	if _, m, err := ReadMessage(r, testPver, MainNet, WitnessEncoding); err != nil || m.(*MsgPing).Nonce != 1 {
		t.Fatalf("after unknown: %v", err)
	}

	// Bad checksum: payload consumed, next message readable.
	bad := frame(MainNet, CmdPing, []byte{2, 0, 0, 0, 0, 0, 0, 0})
	bad[20] ^= 1
	r = bytes.NewReader(append(bad, ping...))
	if _, _, err := ReadMessage(r, testPver, MainNet, WitnessEncoding); !errors.Is(err, ErrBadChecksum) {
		t.Fatalf("bad checksum: %v", err)
	}
	if _, m, err := ReadMessage(r, testPver, MainNet, WitnessEncoding); err != nil || m.(*MsgPing).Nonce != 1 {
		t.Fatalf("after bad checksum: %v", err)
	}

	// Malformed payload: consumed as well.
	r = bytes.NewReader(append(frame(MainNet, CmdPing, []byte{1, 2}), ping...))
	if _, _, err := ReadMessage(r, testPver, MainNet, WitnessEncoding); !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), "ping") {
		t.Fatalf("short ping: %v", err)
	}
	if _, _, err := ReadMessage(r, testPver, MainNet, WitnessEncoding); err != nil {
		t.Fatalf("after short ping: %v", err)
	}

	// A command that is not printable ASCII: consumed, as Core drops it.
	badCmd := frame(MainNet, "ver\x01ck", []byte{1, 2, 3})
	r = bytes.NewReader(append(badCmd, ping...))
	if _, _, err := ReadMessage(r, testPver, MainNet, WitnessEncoding); !errors.Is(err, ErrMalformed) {
		t.Fatalf("bad command: %v", err)
	}
	if _, m, err := ReadMessage(r, testPver, MainNet, WitnessEncoding); err != nil || m.(*MsgPing).Nonce != 1 {
		t.Fatalf("after bad command: %v", err)
	}

	// Wrong network.
	if _, _, err := ReadMessage(bytes.NewReader(frame(TestNet3, CmdPing, make([]byte, 8))), testPver, MainNet, WitnessEncoding); !errors.Is(err, ErrWrongNetwork) {
		t.Fatalf("wrong magic: %v", err)
	}

	// Oversized length is refused from the header alone: the reader holds
	// only the header, so reading the payload would fail differently.
	h := frame(MainNet, CmdBlock, nil)
	binary.LittleEndian.PutUint32(h[16:], MaxProtocolMessageLength+1)
	if _, _, err := ReadMessage(bytes.NewReader(h), testPver, MainNet, WitnessEncoding); !errors.Is(err, ErrLimitExceeded) || !strings.Contains(err.Error(), "MaxProtocolMessageLength") {
		t.Fatalf("oversized: %v", err)
	}
	// A length above the message's own maximum is refused too.
	binary.LittleEndian.PutUint32(h[16:], 9)
	copy(h[4:16], "pong\x00\x00\x00\x00\x00\x00\x00\x00")
	if _, _, err := ReadMessage(bytes.NewReader(h), testPver, MainNet, WitnessEncoding); !errors.Is(err, ErrLimitExceeded) {
		t.Fatalf("pong of 9 bytes: %v", err)
	}

	// Truncated stream.
	if _, _, err := ReadMessage(bytes.NewReader(ping[:30]), testPver, MainNet, WitnessEncoding); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated: %v", err)
	}
	if _, _, err := ReadMessage(bytes.NewReader(nil), testPver, MainNet, WitnessEncoding); !errors.Is(err, io.EOF) {
		t.Fatalf("empty: %v", err)
	}
}

func TestDecodeMessageHeader(t *testing.T) {
	good := frame(MainNet, CmdVerAck, nil)
	h, err := DecodeMessageHeader(good)
	if err != nil || h.Command != CmdVerAck || h.Net != MainNet || h.Length != 0 {
		t.Fatalf("%+v %v", h, err)
	}
	for i := 0; i < MessageHeaderSize; i++ {
		if _, err := DecodeMessageHeader(good[:i]); !errors.Is(err, ErrTruncated) {
			t.Fatalf("short header %d: %v", i, err)
		}
	}
	for _, cmd := range []string{"ver\x00ack", "verack\x01", "ver\xffck", "\x00verack"} {
		b := bytes.Clone(good)
		copy(b[4:16], make([]byte, 12))
		copy(b[4:16], cmd)
		if _, err := DecodeMessageHeader(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("command %q: %v", cmd, err)
		}
	}
	b := bytes.Clone(good)
	copy(b[4:16], "abcdefghijkl")
	if h, err := DecodeMessageHeader(b); err != nil || h.Command != "abcdefghijkl" {
		t.Errorf("12-byte command: %v", err)
	}
	if _, err := WriteMessage(io.Discard, &longCmd{}, testPver, MainNet, 0); !errors.Is(err, ErrMalformed) {
		t.Errorf("long command written: %v", err)
	}
}

type longCmd struct{ MsgVerAck }

func (*longCmd) Command() string { return "thirteenchars" }

func TestWriteMessageSingleWrite(t *testing.T) {
	w := &countingWriter{}
	if _, err := WriteMessage(w, testBlock(t), testPver, MainNet, WitnessEncoding); err != nil || w.calls != 1 {
		t.Fatalf("calls %d err %v", w.calls, err)
	}
}

type countingWriter struct{ calls int }

func (w *countingWriter) Write(p []byte) (int, error) { w.calls++; return len(p), nil }

func TestServiceFlagString(t *testing.T) {
	for f, want := range map[ServiceFlag]string{
		0:                                   "0x0",
		SFNodeNetwork:                       "SFNodeNetwork",
		SFNodeNetwork | SFNodeWitness:       "SFNodeNetwork|SFNodeWitness",
		SFNodeNetworkLimited | SFNodeP2PV2:  "SFNodeNetworkLimited|SFNodeP2PV2",
		SFNodeCompactFilters | 1<<20:        "SFNodeCompactFilters|0x100000",
		SFNodeBloom | SFNodeGetUTXO | 1<<63: "SFNodeGetUTXO|SFNodeBloom|0x8000000000000000",
	} {
		if got := f.String(); got != want {
			t.Errorf("%#x: %q want %q", uint64(f), got, want)
		}
	}
	if InvTypeWitnessBlock.String() != "MSG_WITNESS_BLOCK" || InvType(99).String() != "InvType(99)" {
		t.Error("InvType strings")
	}
}

func TestMessageAllocs(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("allocation counts differ under coverage and race")
	}
	ping := frame(MainNet, CmdPing, make([]byte, 8))
	r := bytes.NewReader(ping)
	if n := testing.AllocsPerRun(200, func() {
		r.Reset(ping)
		if _, _, err := ReadMessage(r, testPver, MainNet, WitnessEncoding); err != nil {
			t.Fatal(err)
		}
	}); n > 1 {
		t.Errorf("ReadMessage(ping): %v allocations, want at most 1 (the message)", n)
	}
	m := &MsgPing{Nonce: 3}
	if n := testing.AllocsPerRun(200, func() {
		if _, err := WriteMessage(io.Discard, m, testPver, MainNet, WitnessEncoding); err != nil {
			t.Fatal(err)
		}
	}); n > 0 {
		t.Errorf("WriteMessage(ping): %v allocations, want 0", n)
	}
	for _, m := range sampleMessages(t) {
		if max := m.MaxPayloadLength(testPver); max > MaxProtocolMessageLength {
			t.Errorf("%s: MaxPayloadLength %d above the protocol limit", m.Command(), max)
		}
	}
}

// TestAddrVector reads the Bitcoin wiki's example addr message (one
// address, 10.0.0.1:8333, NODE_NETWORK) and writes it back identically.
func TestAddrVector(t *testing.T) {
	raw := mustHex(t, "f9beb4d96164647200000000000000001f000000ed52399b"+
		"01e215104d010000000000000000000000000000000000ffff0a000001208d")
	_, msg, err := ReadMessage(bytes.NewReader(raw), testPver, MainNet, WitnessEncoding)
	if err != nil {
		t.Fatal(err)
	}
	a := msg.(*MsgAddr).AddrList
	if len(a) != 1 || a[0].Timestamp != 0x4d1015e2 || a[0].Services != SFNodeNetwork ||
		a[0].AddrPort() != netip.MustParseAddrPort("10.0.0.1:8333") {
		t.Fatalf("decoded %+v", a)
	}
	var buf bytes.Buffer
	if _, err := WriteMessage(&buf, msg, testPver, MainNet, WitnessEncoding); err != nil || !bytes.Equal(buf.Bytes(), raw) {
		t.Fatalf("re-encoded %x %v", buf.Bytes(), err)
	}
}
