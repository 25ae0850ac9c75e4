package psbt

import (
	"bytes"
	"encoding/binary"
	"sort"

	"github.com/btcsuite/btcd/btcec/v2"

	"github.com/btcnode/btcd/wire"
)

// maxCompactSize is Core's MAX_SIZE: the largest length a CompactSize
// may announce.
const maxCompactSize = 0x02000000

// Messages of Core's stream errors.
const (
	errEndOfData    = "DataStream::read(): end of data: iostream error"
	errNonCanonical = "non-canonical ReadCompactSize(): iostream error"
	errSizeTooLarge = "ReadCompactSize(): size too large: iostream error"
	errValueSize    = "Size of value was not the stated size"
)

// reader consumes a byte slice; every length it honours is checked
// against the bytes that remain, so nothing is allocated by a count the
// input chose.
type reader struct {
	b   []byte
	pos int
}

func (r *reader) empty() bool { return r.pos >= len(r.b) }

func (r *reader) rest() []byte { return r.b[r.pos:] }

func (r *reader) compact() (uint64, error) {
	v, n, err := wire.ReadVarInt(r.rest())
	if err != nil {
		if len(r.rest()) == 0 || (r.b[r.pos] >= 0xfd && len(r.rest()) < map[byte]int{0xfd: 3, 0xfe: 5, 0xff: 9}[r.b[r.pos]]) {
			return 0, errorf(errEndOfData)
		}
		return 0, errorf(errNonCanonical)
	}
	r.pos += n
	if v > maxCompactSize {
		return 0, errorf(errSizeTooLarge)
	}
	return v, nil
}

func (r *reader) bytes(n uint64) ([]byte, error) {
	if n > uint64(len(r.rest())) {
		return nil, errorf(errEndOfData)
	}
	b := r.b[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b, nil
}

func (r *reader) varBytes() ([]byte, error) {
	n, err := r.compact()
	if err != nil {
		return nil, err
	}
	return r.bytes(n)
}

// sized reads a value's length and then decodes it with dec from the
// stream (as Core's UnserializeFromVector, which reads the object from
// the stream itself and checks afterwards that it used exactly the stated
// length).
func (r *reader) sized(dec func(*reader) error) error {
	n, err := r.compact()
	if err != nil {
		return err
	}
	before := len(r.rest())
	if err := dec(r); err != nil {
		return err
	}
	if uint64(before-len(r.rest())) != n {
		return errorf(errValueSize)
	}
	return nil
}

func (r *reader) u32() (uint32, error) {
	b, err := r.bytes(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

// Decode parses a serialized PSBT with Core's checks: magic, unique keys,
// the expected sizes of every key and value BIP174, BIP371 and BIP373
// define, one input and output map per transaction input and output, and
// full previous transactions that match the outpoints.
func Decode(b []byte) (*Packet, error) {
	if len(b) > MaxSize {
		return nil, errorf("PSBT is too large")
	}
	// Keep nothing aliasing the caller's buffer.
	r := &reader{b: bytes.Clone(b)}
	m, err := r.bytes(5)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(m, magic) {
		return nil, errorf("Invalid PSBT magic bytes")
	}
	p := &Packet{}
	if err := p.decodeGlobal(r); err != nil {
		return nil, err
	}
	p.Inputs = make([]Input, 0, len(p.Tx.TxIn))
	for !r.empty() && len(p.Inputs) < len(p.Tx.TxIn) {
		var in Input
		if err := in.decode(r); err != nil {
			return nil, err
		}
		i := len(p.Inputs)
		if in.NonWitnessUTXO != nil {
			op := p.Tx.TxIn[i].PreviousOutPoint
			if in.NonWitnessUTXO.TxHash() != op.Hash {
				return nil, errorf("Non-witness UTXO does not match outpoint hash")
			}
			if int(op.Index) >= len(in.NonWitnessUTXO.TxOut) {
				return nil, errorf("Input specifies output index that does not exist")
			}
		}
		p.Inputs = append(p.Inputs, in)
	}
	if len(p.Inputs) != len(p.Tx.TxIn) {
		return nil, errorf("Inputs provided does not match the number of inputs in transaction.")
	}
	p.Outputs = make([]Output, 0, len(p.Tx.TxOut))
	for !r.empty() && len(p.Outputs) < len(p.Tx.TxOut) {
		var out Output
		if err := out.decode(r); err != nil {
			return nil, err
		}
		p.Outputs = append(p.Outputs, out)
	}
	if len(p.Outputs) != len(p.Tx.TxOut) {
		return nil, errorf("Outputs provided does not match the number of outputs in transaction.")
	}
	if !r.empty() {
		return nil, errorf("extra data after PSBT")
	}
	return p, nil
}

// keyset remembers the keys of one map to refuse duplicates.
type keyset map[string]struct{}

func (k keyset) add(key []byte) bool {
	if _, ok := k[string(key)]; ok {
		return false
	}
	k[string(key)] = struct{}{}
	return true
}

// readKey returns the next key of a map (nil at the separator) and its
// type.
func readKey(r *reader) (key []byte, typ uint64, err error) {
	key, err = r.varBytes()
	if err != nil || len(key) == 0 {
		return nil, 0, err
	}
	kr := &reader{b: key}
	typ, err = kr.compact()
	if err != nil {
		if err.(*Error).Msg == errEndOfData {
			err = errorf("SpanReader::read(): end of data: iostream error")
		}
		return nil, 0, err
	}
	return key, typ, nil
}

func (p *Packet) decodeGlobal(r *reader) error {
	seen, xpubs := keyset{}, keyset{}
	sep := false
	for !r.empty() {
		key, typ, err := readKey(r)
		if err != nil {
			return err
		}
		if key == nil {
			sep = true
			break
		}
		switch typ {
		case globalUnsignedTx:
			if !seen.add(key) {
				return errorf("Duplicate Key, unsigned tx already provided")
			}
			if len(key) != 1 {
				return errorf("Global unsigned tx key is more than one byte type")
			}
			var tx *wire.MsgTx
			if err := r.sized(func(r *reader) (err error) { tx, err = decodeLegacyTx(r); return }); err != nil {
				return err
			}
			for i := range tx.TxIn {
				if len(tx.TxIn[i].SignatureScript) != 0 || len(tx.TxIn[i].Witness) != 0 {
					return errorf("Unsigned tx does not have empty scriptSigs and scriptWitnesses.")
				}
			}
			p.Tx = tx
		case globalXPub:
			if len(key) != 79 {
				return errorf("Size of key was not the expected size for the type global xpub")
			}
			if !validPubKey(key[46:79]) {
				return errorf("Invalid pubkey")
			}
			// Core keeps xpubs in a set ordered by key and chain code,
			// so one differing only in version, depth, parent or index
			// is a duplicate too.
			if !xpubs.add([]byte(xpubID(key[1:]))) {
				return errorf("Duplicate key, global xpub already provided")
			}
			o, err := readOrigin(r)
			if err != nil {
				return err
			}
			p.XPubs = append(p.XPubs, XPub{Key: key[1:], Origin: o})
		case globalVersion:
			if !seen.add(key) {
				return errorf("Duplicate Key, version already provided")
			}
			if len(key) != 1 {
				return errorf("Global version key is more than one byte type")
			}
			var v uint32
			if err := r.sized(func(r *reader) (err error) { v, err = r.u32(); return }); err != nil {
				return err
			}
			if v > HighestVersion {
				return errorf("Unsupported version number")
			}
			p.Version = v
		case globalProprietary:
			pr, err := readProprietary(r, key, seen)
			if err != nil {
				return err
			}
			p.Proprietary = append(p.Proprietary, pr)
		default:
			u, err := readUnknown(r, key, seen)
			if err != nil {
				return err
			}
			p.Unknown = append(p.Unknown, u)
		}
	}
	if !sep {
		return errorf("Separator is missing at the end of the global map")
	}
	if p.Tx == nil {
		return errorf("No unsigned transaction was provided")
	}
	return nil
}

func readProprietary(r *reader, key []byte, seen keyset) (Proprietary, error) {
	kr := &reader{b: key}
	kr.compact()
	id, err := kr.varBytes()
	if err != nil {
		return Proprietary{}, errorf("SpanReader::read(): end of data: iostream error")
	}
	sub, err := kr.compact()
	if err != nil {
		return Proprietary{}, errorf("SpanReader::read(): end of data: iostream error")
	}
	if !seen.add(key) {
		return Proprietary{}, errorf("Duplicate Key, proprietary key already found")
	}
	v, err := r.varBytes()
	if err != nil {
		return Proprietary{}, err
	}
	return Proprietary{Key: key, Identifier: id, Subtype: sub, KeyData: kr.rest(), Value: v}, nil
}

func readUnknown(r *reader, key []byte, seen keyset) (Record, error) {
	if !seen.add(key) {
		return Record{}, errorf("Duplicate Key, key for unknown value already provided")
	}
	v, err := r.varBytes()
	if err != nil {
		return Record{}, err
	}
	return Record{Key: key, Value: v}, nil
}

// readOrigin reads a BIP32 origin value (Core's DeserializeHDKeypath).
func readOrigin(r *reader) (KeyOrigin, error) {
	n, err := r.compact()
	if err != nil {
		return KeyOrigin{}, err
	}
	return readOriginBody(r, n)
}

func readOriginBody(r *reader, n uint64) (KeyOrigin, error) {
	if n%4 != 0 || n == 0 {
		return KeyOrigin{}, errorf("Invalid length for HD key path")
	}
	b, err := r.bytes(n)
	if err != nil {
		return KeyOrigin{}, err
	}
	var o KeyOrigin
	copy(o.Fingerprint[:], b)
	o.Path = make([]uint32, 0, n/4-1)
	for i := 4; i < len(b); i += 4 {
		o.Path = append(o.Path, binary.LittleEndian.Uint32(b[i:]))
	}
	return o, nil
}

// validPubKey is CPubKey::IsFullyValid.
func validPubKey(b []byte) bool {
	if len(b) != 33 && len(b) != 65 {
		return false
	}
	if len(b) == 33 && b[0] != 2 && b[0] != 3 {
		return false
	}
	if len(b) == 65 && b[0] != 4 && b[0] != 6 && b[0] != 7 {
		return false
	}
	_, err := btcec.ParsePubKey(b)
	return err == nil
}

// readDerivation reads a BIP32 derivation record whose key holds the
// public key.
func readDerivation(r *reader, key []byte, list []Derivation) (Derivation, error) {
	if len(key) != 34 && len(key) != 66 {
		return Derivation{}, errorf("Size of key was not the expected size for the type BIP32 keypath")
	}
	pub := key[1:]
	if !validPubKey(pub) {
		return Derivation{}, errorf("Invalid pubkey")
	}
	for _, d := range list {
		if bytes.Equal(d.PubKey, pub) {
			return Derivation{}, errorf("Duplicate Key, pubkey derivation path already provided")
		}
	}
	o, err := readOrigin(r)
	if err != nil {
		return Derivation{}, err
	}
	return Derivation{PubKey: pub, Origin: o}, nil
}

// readTapDerivation reads a taproot BIP32 record (leaf hashes, origin).
func readTapDerivation(r *reader, key []byte, seen keyset, side string) (TapDerivation, error) {
	if !seen.add(key) {
		return TapDerivation{}, errorf("Duplicate Key, " + lowerFirst(side) + " Taproot BIP32 keypath already provided")
	}
	if len(key) != 33 {
		return TapDerivation{}, errorf(side + " Taproot BIP32 keypath key is not at 33 bytes")
	}
	n, err := r.compact()
	if err != nil {
		return TapDerivation{}, err
	}
	before := len(r.rest())
	cnt, err := r.compact()
	if err != nil {
		return TapDerivation{}, err
	}
	set := map[[32]byte]bool{}
	for range cnt {
		h, err := r.bytes(32)
		if err != nil {
			return TapDerivation{}, err
		}
		set[[32]byte(h)] = true
	}
	used := uint64(before - len(r.rest()))
	if used > n {
		return TapDerivation{}, errorf(side + " Taproot BIP32 keypath has an invalid length")
	}
	o, err := readOriginBody(r, n-used)
	if err != nil {
		return TapDerivation{}, err
	}
	d := TapDerivation{XOnly: key[1:], Origin: o}
	for h := range set {
		d.LeafHashes = append(d.LeafHashes, h)
	}
	sort.Slice(d.LeafHashes, func(i, j int) bool { return bytes.Compare(d.LeafHashes[i][:], d.LeafHashes[j][:]) < 0 })
	return d, nil
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]|0x20) + s[1:]
}

// readMuSigParticipants checks a BIP373 participant pubkeys record.
func readMuSigParticipants(r *reader, key []byte, seen keyset, side string) (Record, error) {
	if len(key) != 34 {
		return Record{}, errorf(side + " musig2 participants pubkeys aggregate key is not 34 bytes")
	}
	if !seen.add(key) {
		return Record{}, errorf("Duplicate Key, " + lowerFirst(side) + " participant pubkeys for an aggregate key already provided")
	}
	v, err := r.varBytes()
	if err != nil {
		return Record{}, err
	}
	if len(v)%33 != 0 {
		return Record{}, errorf(side + " musig2 participants pubkeys value size is not a multiple of 33")
	}
	return Record{Key: key, Value: v}, nil
}

func readTxOut(r *reader) (*wire.TxOut, error) {
	b, err := r.bytes(8)
	if err != nil {
		return nil, err
	}
	s, err := r.varBytes()
	if err != nil {
		return nil, err
	}
	return &wire.TxOut{Value: int64(binary.LittleEndian.Uint64(b)), PkScript: s}, nil
}

func readWitness(r *reader) ([][]byte, error) {
	n, err := r.compact()
	if err != nil {
		return nil, err
	}
	// Each item takes at least one byte, which bounds the count.
	if n > uint64(len(r.rest())) {
		return nil, errorf(errEndOfData)
	}
	w := make([][]byte, 0, n)
	for range n {
		it, err := r.varBytes()
		if err != nil {
			return nil, err
		}
		w = append(w, it)
	}
	return w, nil
}

// decodeLegacyTx reads a transaction without witness data (the form of a
// PSBT's unsigned transaction, where zero inputs are not a marker).
func decodeLegacyTx(r *reader) (*wire.MsgTx, error) {
	v, err := r.u32()
	if err != nil {
		return nil, err
	}
	tx := &wire.MsgTx{Version: v}
	nIn, err := r.compact()
	if err != nil {
		return nil, err
	}
	if nIn > uint64(len(r.rest()))/41 {
		return nil, errorf(errEndOfData)
	}
	tx.TxIn = make([]wire.TxIn, nIn)
	for i := range tx.TxIn {
		h, err := r.bytes(32)
		if err != nil {
			return nil, err
		}
		idx, err := r.u32()
		if err != nil {
			return nil, err
		}
		ss, err := r.varBytes()
		if err != nil {
			return nil, err
		}
		seq, err := r.u32()
		if err != nil {
			return nil, err
		}
		tx.TxIn[i] = wire.TxIn{PreviousOutPoint: wire.OutPoint{Hash: wire.Hash(h), Index: idx}, SignatureScript: ss, Sequence: seq}
	}
	nOut, err := r.compact()
	if err != nil {
		return nil, err
	}
	if nOut > uint64(len(r.rest()))/9 {
		return nil, errorf(errEndOfData)
	}
	tx.TxOut = make([]wire.TxOut, nOut)
	for i := range tx.TxOut {
		o, err := readTxOut(r)
		if err != nil {
			return nil, err
		}
		tx.TxOut[i] = *o
	}
	if tx.LockTime, err = r.u32(); err != nil {
		return nil, err
	}
	return tx, nil
}

// validSigEncoding is Core's CheckSignatureEncoding with DERSIG and
// STRICTENC: a strict DER signature followed by a defined hash type.
func validSigEncoding(sig []byte) bool {
	if !validDER(sig) {
		return false
	}
	ht := sig[len(sig)-1] &^ 0x80
	return ht >= 1 && ht <= 3
}

// validDER is BIP66's IsValidSignatureEncoding (sig includes the hash
// type byte).
func validDER(sig []byte) bool {
	if len(sig) < 9 || len(sig) > 73 || sig[0] != 0x30 || int(sig[1]) != len(sig)-3 {
		return false
	}
	lenR := int(sig[3])
	if 5+lenR >= len(sig) {
		return false
	}
	lenS := int(sig[5+lenR])
	if lenR+lenS+7 != len(sig) || sig[2] != 0x02 || lenR == 0 || sig[4]&0x80 != 0 {
		return false
	}
	if lenR > 1 && sig[4] == 0 && sig[5]&0x80 == 0 {
		return false
	}
	if sig[lenR+4] != 0x02 || lenS == 0 || sig[lenR+6]&0x80 != 0 {
		return false
	}
	return !(lenS > 1 && sig[lenR+6] == 0 && sig[lenR+7]&0x80 == 0)
}
