package database

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Block and undo files can be obfuscated with an 8-byte key, as Core's
// -blocksxor (Core 28 and later): byte i of a file is stored XORed with
// key[i%8], so that anti-virus software and the like do not match data
// that peers put in blocks. The key lives in xor.dat beside the files.

// XorKeyFile is the name of the key file in the block files' directory.
const XorKeyFile = "xor.dat"

// XorKeySize is the key's length.
const XorKeySize = 8

// ErrXorKeyStored is returned when obfuscation is turned off but a
// non-zero key is stored: the files cannot be read without it.
var ErrXorKeyStored = errors.New("The blocksdir XOR-key can not be disabled when a random key was already stored!")

// setupXorKey returns the key for the block files in dir: the stored one,
// or, when there is none, a new random key if want is set and dir holds no
// block files yet (files already written plain stay plain), else zero.
// A new key is written to xor.dat unless readOnly.
func setupXorKey(dir string, want, readOnly bool) ([XorKeySize]byte, error) {
	var key [XorKeySize]byte
	path := filepath.Join(dir, XorKeyFile)
	stored, err := ReadXorKey(dir)
	switch {
	case err == nil:
		if !want && stored != key {
			return key, fmt.Errorf("%w Stored key: '%s', stored path: '%s'.", ErrXorKeyStored, hex.EncodeToString(stored[:]), path)
		}
		return stored, nil
	case !errors.Is(err, os.ErrNotExist):
		return key, err
	}
	if want {
		fresh, err := noBlockFiles(dir)
		if err != nil {
			return key, err
		}
		if fresh {
			if _, err := rand.Read(key[:]); err != nil {
				return key, wrapErr(ErrIO, err, "random block file key")
			}
		}
	}
	if readOnly {
		return key, nil
	}
	if err := os.WriteFile(path, key[:], 0o644); err != nil {
		return key, wrapErr(ErrIO, err, "write %s", path)
	}
	return key, nil
}

// ReadXorKey reads the block file key stored in dir. A missing file is an
// error wrapping os.ErrNotExist.
func ReadXorKey(dir string) ([XorKeySize]byte, error) {
	var key [XorKeySize]byte
	path := filepath.Join(dir, XorKeyFile)
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return key, err
		}
		return key, wrapErr(ErrIO, err, "open %s", path)
	}
	defer f.Close()
	if _, err := io.ReadFull(f, key[:]); err != nil {
		return key, wrapErr(ErrCorrupt, err, "read %s", path)
	}
	return key, nil
}

// noBlockFiles reports whether dir holds no blk or rev files.
func noBlockFiles(dir string) (bool, error) {
	for _, pat := range []string{"blk*.dat", "rev*.dat"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return false, err
		}
		if len(m) > 0 {
			return false, nil
		}
	}
	return true, nil
}

// xorAt obfuscates (or restores) b, which sits at offset off of its file.
func xorAt(key *[XorKeySize]byte, b []byte, off int64) {
	if *key == ([XorKeySize]byte{}) {
		return
	}
	// The key rotated so that its byte 0 applies to b[0], then eight
	// bytes at a time.
	var rk [XorKeySize]byte
	for i := range rk {
		rk[i] = key[(off+int64(i))%XorKeySize]
	}
	w := binary.LittleEndian.Uint64(rk[:])
	i := 0
	for ; i+XorKeySize <= len(b); i += XorKeySize {
		binary.LittleEndian.PutUint64(b[i:], binary.LittleEndian.Uint64(b[i:])^w)
	}
	for ; i < len(b); i++ {
		b[i] ^= rk[i%XorKeySize]
	}
}

// XorReader undoes the obfuscation of a block file read from its start
// (for --reindex, which reads the files with BlockFileReader).
type XorReader struct {
	R   io.Reader
	Key [XorKeySize]byte
	off int64
}

// Read reads from R and restores the bytes.
func (x *XorReader) Read(p []byte) (int, error) {
	n, err := x.R.Read(p)
	xorAt(&x.Key, p[:n], x.off)
	x.off += int64(n)
	return n, err
}
