// Package wire owns the Bitcoin peer-to-peer encoding: hashes, var-ints,
// transactions and blocks (with BIP144 witness serialization), every P2P
// message of protocol version 70016, the message header with its network
// magic and checksum, and the pooled buffers used to read and write them.
//
// Decoders work on byte slices that hold the whole object (a message
// payload, a block from a block file). Every count read from the input is
// checked against the bytes that remain before anything is allocated, so an
// attacker cannot make a decoder allocate more than the size of the input it
// sent. A transaction or block decodes in two passes over its bytes: the
// first validates the structure and counts inputs, outputs, witness items and
// script bytes; the second fills exactly sized backing arrays. A block thus
// costs a handful of allocations however many transactions it holds, and
// every script and witness item of the block lives in one []byte.
//
// Decoders never keep a reference to the input slice, so a caller may return
// it to the buffer pool (GetBuffer/PutBuffer) as soon as Decode returns.
package wire
