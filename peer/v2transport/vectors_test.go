package v2transport

import (
	"bytes"
	"encoding/csv"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
)

// vectorsDir is the shared vector tree, beside the repository.
const vectorsDir = "../../../shared/vectors/bip324"

// readVectors returns the rows of a CSV file as maps from column name,
// skipping the test when the shared vectors are not present.
func readVectors(t *testing.T, name string) []map[string]string {
	t.Helper()
	if _, err := os.Stat(vectorsDir); err != nil {
		t.Skip("../shared/vectors/bip324 not present")
	}
	f, err := os.Open(filepath.Join(vectorsDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 2 {
		t.Fatalf("%s: no vectors", name)
	}
	var rows []map[string]string
	for _, r := range recs[1:] {
		m := make(map[string]string, len(r))
		for i, col := range recs[0] {
			m[col] = r[i]
		}
		rows = append(rows, m)
	}
	return rows
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func feHex(f fe) string {
	f.Normalize()
	b := f.Bytes()
	return hex.EncodeToString(b[:])
}

func TestEllSwiftDecodeVectors(t *testing.T) {
	rows := readVectors(t, "ellswift_decode_test_vectors.csv")
	for i, r := range rows {
		got := feHex(ellswiftDecode(unhex(t, r["ellswift"])))
		if got != r["x"] {
			t.Errorf("vector %d (%s): x %s, want %s", i, r["comment"], got, r["x"])
		}
	}
	t.Logf("%d decode vectors", len(rows))
}

func TestXSwiftECInvVectors(t *testing.T) {
	rows := readVectors(t, "xswiftec_inv_test_vectors.csv")
	for i, r := range rows {
		u := feFromBytes(unhex(t, r["u"]))
		x := feFromBytes(unhex(t, r["x"]))
		for c := range 8 {
			want := r["case"+strconv.Itoa(c)+"_t"]
			tv, ok := xswiftecInv(x, u, c)
			switch {
			case want == "" && ok:
				t.Errorf("vector %d case %d: got t %s, want none", i, c, feHex(tv))
			case want != "" && !ok:
				t.Errorf("vector %d case %d: no t, want %s", i, c, want)
			case want != "" && feHex(tv) != want:
				t.Errorf("vector %d case %d: t %s, want %s", i, c, feHex(tv), want)
			}
			if ok {
				// Every preimage decodes back to x.
				if got := xswiftec(u, tv); !got.Equals(&x) {
					t.Errorf("vector %d case %d: t does not decode to x", i, c)
				}
			}
		}
	}
	t.Logf("%d inverse vectors", len(rows))
}

func TestPacketEncodingVectors(t *testing.T) {
	rows := readVectors(t, "packet_encoding_test_vectors.csv")
	for i, r := range rows {
		initiating := r["in_initiating"] == "1"
		key, err := privateKeyFromBytes(unhex(t, r["in_priv_ours"]), unhex(t, r["in_ellswift_ours"]), nil)
		if err != nil {
			t.Fatalf("vector %d: %v", i, err)
		}
		ours, theirs := unhex(t, r["in_ellswift_ours"]), unhex(t, r["in_ellswift_theirs"])
		if got := feHex(ellswiftDecode(ours)); got != r["mid_x_ours"] {
			t.Errorf("vector %d: x_ours %s, want %s", i, got, r["mid_x_ours"])
		}
		var pub btcec.JacobianPoint
		btcec.ScalarBaseMultNonConst(&key.priv, &pub)
		pub.ToAffine()
		if got := feHex(pub.X); got != r["mid_x_ours"] {
			t.Errorf("vector %d: priv*G x %s, want %s", i, got, r["mid_x_ours"])
		}
		if got := feHex(ellswiftDecode(theirs)); got != r["mid_x_theirs"] {
			t.Errorf("vector %d: x_theirs %s, want %s", i, got, r["mid_x_theirs"])
		}
		if x := ecdhX(&key.priv, theirs); hex.EncodeToString(x[:]) != r["mid_x_shared"] {
			t.Errorf("vector %d: x_shared %x, want %s", i, x, r["mid_x_shared"])
		}
		secret := key.SharedSecret(theirs, initiating)
		if hex.EncodeToString(secret[:]) != r["mid_shared_secret"] {
			t.Fatalf("vector %d: shared secret %x, want %s", i, secret, r["mid_shared_secret"])
		}
		keys := DeriveKeys(secret, [4]byte{0xf9, 0xbe, 0xb4, 0xd9})
		for name, got := range map[string][]byte{
			"mid_initiator_l": keys.InitiatorL[:], "mid_initiator_p": keys.InitiatorP[:],
			"mid_responder_l": keys.ResponderL[:], "mid_responder_p": keys.ResponderP[:],
			"out_session_id": keys.SessionID[:],
		} {
			if hex.EncodeToString(got) != r[name] {
				t.Errorf("vector %d: %s %x, want %s", i, name, got, r[name])
			}
		}
		sendTerm, recvTerm := keys.InitiatorTerminator, keys.ResponderTerminator
		sendL, sendP := keys.InitiatorL, keys.InitiatorP
		if !initiating {
			sendTerm, recvTerm = recvTerm, sendTerm
			sendL, sendP = keys.ResponderL, keys.ResponderP
		}
		if hex.EncodeToString(sendTerm[:]) != r["mid_send_garbage_terminator"] ||
			hex.EncodeToString(recvTerm[:]) != r["mid_recv_garbage_terminator"] {
			t.Errorf("vector %d: terminators %x %x", i, sendTerm, recvTerm)
		}
		send := newCipherPair(sendL, sendP)
		recv := newCipherPair(sendL, sendP) // the peer's view of this direction
		idx, _ := strconv.Atoi(r["in_idx"])
		for range idx {
			pkt := send.encrypt(nil, nil, nil, false)
			recv.decryptLength(pkt)
			if _, _, err := recv.decrypt(pkt[LengthLen:], nil); err != nil {
				t.Fatalf("vector %d: filler packet: %v", i, err)
			}
		}
		mult, _ := strconv.Atoi(r["in_multiply"])
		contents := bytes.Repeat(unhex(t, r["in_contents"]), mult)
		aad := unhex(t, r["in_aad"])
		ignore := r["in_ignore"] == "1"
		ct := send.encrypt(nil, contents, aad, ignore)
		if want := r["out_ciphertext"]; want != "" && hex.EncodeToString(ct) != want {
			t.Errorf("vector %d: ciphertext %x, want %s", i, ct, want)
		}
		if want := r["out_ciphertext_endswith"]; want != "" && !bytes.HasSuffix(ct, unhex(t, want)) {
			t.Errorf("vector %d: ciphertext does not end with %s", i, want)
		}
		// The receiving side recovers the contents and the ignore bit.
		if n := recv.decryptLength(ct); n != len(contents) {
			t.Fatalf("vector %d: decrypted length %d, want %d", i, n, len(contents))
		}
		got, gotIgnore, err := recv.decrypt(bytes.Clone(ct[LengthLen:]), aad)
		if err != nil || gotIgnore != ignore || !bytes.Equal(got, contents) {
			t.Errorf("vector %d: decrypt: err %v ignore %v equal %v", i, err, gotIgnore, bytes.Equal(got, contents))
		}
	}
	t.Logf("%d packet vectors", len(rows))
}
