package v2transport

import (
	"crypto/cipher"
	"encoding/binary"

	"golang.org/x/crypto/chacha20"
	"golang.org/x/crypto/chacha20poly1305"
)

// RekeyInterval is how many messages each cipher handles before it
// derives its next key (forward secrecy).
const RekeyInterval = 224

// TagLen is the size of a Poly1305 tag.
const TagLen = chacha20poly1305.Overhead

// FSChaCha20 is the length-field cipher: one ChaCha20 keystream used
// continuously across messages, rekeyed from its own keystream every
// RekeyInterval messages.
type FSChaCha20 struct {
	key    [32]byte
	c      *chacha20.Cipher
	chunks uint32 // messages since the last rekey
	rekeys uint64
}

// NewFSChaCha20 returns the cipher for a 32-byte key.
func NewFSChaCha20(key []byte) *FSChaCha20 {
	f := &FSChaCha20{}
	copy(f.key[:], key)
	f.reset()
	return f
}

func (f *FSChaCha20) reset() {
	var nonce [12]byte
	binary.LittleEndian.PutUint64(nonce[4:], f.rekeys)
	c, err := chacha20.NewUnauthenticatedCipher(f.key[:], nonce[:])
	if err != nil {
		panic(err) // key and nonce sizes are fixed
	}
	f.c = c
}

// Crypt encrypts or decrypts one message's chunk (dst and src may be
// the same slice).
func (f *FSChaCha20) Crypt(dst, src []byte) {
	f.c.XORKeyStream(dst, src)
	f.chunks++
	if f.chunks == RekeyInterval {
		var next [32]byte
		f.c.XORKeyStream(next[:], next[:])
		f.key = next
		f.chunks = 0
		f.rekeys++
		f.reset()
	}
}

// FSChaCha20Poly1305 is the packet cipher: RFC 8439 ChaCha20-Poly1305
// with a per-packet nonce, rekeyed every RekeyInterval packets.
type FSChaCha20Poly1305 struct {
	aead    cipher.AEAD
	packets uint32 // packets since the last rekey
	rekeys  uint64
}

// NewFSChaCha20Poly1305 returns the cipher for a 32-byte key.
func NewFSChaCha20Poly1305(key []byte) *FSChaCha20Poly1305 {
	a, err := chacha20poly1305.New(key)
	if err != nil {
		panic(err) // key size is fixed
	}
	return &FSChaCha20Poly1305{aead: a}
}

func (f *FSChaCha20Poly1305) nonce() [12]byte {
	var n [12]byte
	binary.LittleEndian.PutUint32(n[:4], f.packets)
	binary.LittleEndian.PutUint64(n[4:], f.rekeys)
	return n
}

func (f *FSChaCha20Poly1305) advance() {
	f.packets++
	if f.packets < RekeyInterval {
		return
	}
	// The next key is the encryption of 32 zero bytes under the nonce
	// 0xffffffff || rekey counter.
	n := f.nonce()
	binary.LittleEndian.PutUint32(n[:4], 0xffffffff)
	var zero [32]byte
	out := f.aead.Seal(make([]byte, 0, 32+TagLen), n[:], zero[:], nil)
	a, err := chacha20poly1305.New(out[:32])
	if err != nil {
		panic(err)
	}
	f.aead = a
	f.packets = 0
	f.rekeys++
}

// Seal appends the encryption of plaintext and its tag to dst.
func (f *FSChaCha20Poly1305) Seal(dst, plaintext, aad []byte) []byte {
	n := f.nonce()
	out := f.aead.Seal(dst, n[:], plaintext, aad)
	f.advance()
	return out
}

// Open decrypts ciphertext (tag included), appending the plaintext to
// dst; dst may be ciphertext[:0] to decrypt in place.
func (f *FSChaCha20Poly1305) Open(dst, ciphertext, aad []byte) ([]byte, error) {
	n := f.nonce()
	out, err := f.aead.Open(dst, n[:], ciphertext, aad)
	f.advance()
	return out, err
}
