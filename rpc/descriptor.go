package rpc

import (
	"crypto/sha256"
	"errors"
	"strings"

	"github.com/btcnode/btcd/internal/descriptor"
)

// This file connects the RPC methods to internal/descriptor: the network
// mapping, errors with bitcoind's codes, and the single-script form
// generatetodescriptor and generateblock use.

// descNetwork returns the descriptor encodings of net: a built-in network by
// its name, else one with net's address encodings and the key encodings of
// mainnet or testnet, chosen by the P2PKH version byte.
func descNetwork(net *NetParams) *descriptor.Network {
	if d := descriptor.NetworkByName(net.Name); d != nil && d.PubKeyHashAddrID == net.PubKeyHashAddrID &&
		d.ScriptHashAddrID == net.ScriptHashAddrID && d.Bech32HRP == net.Bech32HRP {
		return d
	}
	base := *descriptor.TestNet3
	if net.PubKeyHashAddrID == 0 {
		base = *descriptor.MainNet
	}
	base.Name = net.Name
	base.PubKeyHashAddrID, base.ScriptHashAddrID, base.Bech32HRP = net.PubKeyHashAddrID, net.ScriptHashAddrID, net.Bech32HRP
	return &base
}

// parseDescriptors parses a descriptor string with bitcoind's error code
// (-5) for any parse error.
func parseDescriptors(s string, net *NetParams, requireChecksum bool) ([]*descriptor.Descriptor, error) {
	ds, err := descriptor.Parse(s, descNetwork(net), requireChecksum)
	if err != nil {
		return nil, NewError(ErrInvalidAddress, err.Error())
	}
	return ds, nil
}

// descriptorChecksum returns the BIP380 checksum of desc (without any
// "#checksum" part), or "" when desc has a character outside the
// descriptor character set.
func descriptorChecksum(desc string) string { return descriptor.Checksum(desc) }

// addChecksum appends "#checksum".
func addChecksum(desc string) string { return descriptor.AddChecksum(desc) }

// singleDescriptor is a descriptor reduced to the one script the
// generating methods pay to.
type singleDescriptor struct {
	canonical string // without checksum; private keys kept
	script    []byte
	solvable  bool
}

// descriptorSyntaxError is a parseDescriptor failure of the text itself
// (as opposed to a descriptor the generating methods cannot pay to):
// generateblock reports those as an invalid address or descriptor.
type descriptorSyntaxError struct{ err *Error }

func (e *descriptorSyntaxError) Error() string { return e.err.Error() }
func (e *descriptorSyntaxError) Unwrap() error { return e.err }

// isDescriptorSyntaxError reports a parseDescriptor error of the text.
func isDescriptorSyntaxError(err error) bool {
	var e *descriptorSyntaxError
	return errors.As(err, &e)
}

// parseDescriptor parses a descriptor that must describe one script, as
// bitcoind's getScriptFromDescriptor: not multipath, not ranged, derivable,
// and for combo() its P2WPKH script (P2PKH for an uncompressed key).
// Errors of the text are *descriptorSyntaxError.
func parseDescriptor(s string, net *NetParams) (*singleDescriptor, error) {
	ds, err := parseDescriptors(s, net, false)
	if err != nil {
		return nil, &descriptorSyntaxError{err.(*Error)}
	}
	if len(ds) > 1 {
		return nil, NewError(ErrInvalidAddress, "Multipath descriptor not accepted")
	}
	d := ds[0]
	if d.IsRange() {
		return nil, NewError(ErrInvalidParam, "Ranged descriptor not accepted. Maybe pass through deriveaddresses first?")
	}
	outs, err := d.Expand(0)
	if err != nil || len(outs) == 0 {
		return nil, NewError(ErrInvalidAddress, "Cannot derive script without private keys")
	}
	script := outs[0].Script
	switch len(outs) {
	case 1:
	case 4:
		script = outs[2].Script
	default:
		script = outs[1].Script
	}
	canonical, _, _ := strings.Cut(d.StringPrivate(), "#")
	return &singleDescriptor{canonical: canonical, script: script, solvable: d.IsSolvable()}, nil
}

// wshHash is the P2WSH program of a witness script.
func wshHash(script []byte) [32]byte { return sha256.Sum256(script) }
