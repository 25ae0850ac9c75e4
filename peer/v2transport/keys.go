package v2transport

import (
	"crypto/sha256"
	"io"

	"golang.org/x/crypto/hkdf"
)

// GarbageTerminatorLen is the size of each side's garbage terminator.
const GarbageTerminatorLen = 16

// Keys is the key schedule BIP324 derives from the ECDH secret.
type Keys struct {
	InitiatorL, InitiatorP [32]byte
	ResponderL, ResponderP [32]byte
	// InitiatorTerminator and ResponderTerminator end each side's
	// garbage.
	InitiatorTerminator, ResponderTerminator [GarbageTerminatorLen]byte
	// SessionID identifies the session to both ends (for out-of-band
	// comparison against a man in the middle).
	SessionID [32]byte
}

// DeriveKeys runs HKDF-SHA256 over the shared secret with the salt
// "bitcoin_v2_shared_secret" followed by the network magic bytes.
func DeriveKeys(secret [32]byte, magic [4]byte) *Keys {
	salt := append([]byte("bitcoin_v2_shared_secret"), magic[:]...)
	prk := hkdf.Extract(sha256.New, secret[:], salt)
	expand := func(info string, out []byte) {
		r := hkdf.Expand(sha256.New, prk, []byte(info))
		if _, err := io.ReadFull(r, out); err != nil {
			panic(err) // 32 bytes is far below HKDF's limit
		}
	}
	k := &Keys{}
	expand("initiator_L", k.InitiatorL[:])
	expand("initiator_P", k.InitiatorP[:])
	expand("responder_L", k.ResponderL[:])
	expand("responder_P", k.ResponderP[:])
	var term [32]byte
	expand("garbage_terminators", term[:])
	copy(k.InitiatorTerminator[:], term[:16])
	copy(k.ResponderTerminator[:], term[16:])
	expand("session_id", k.SessionID[:])
	return k
}
