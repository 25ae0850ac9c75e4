package descriptor

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Descriptor is one parsed output script descriptor. A multipath
// descriptor parses into several, one per multipath value.
type Descriptor struct {
	top *node
	net *Network
	// hasPrivate is whether the parsed string held any private key (Core
	// reports it for the whole string, every expansion alike).
	hasPrivate bool
}

// Parse parses a descriptor for net. A "#checksum" suffix is verified when
// present and required when requireChecksum is set. A descriptor with a
// multipath key expression (BIP389) yields one Descriptor per value, in
// order; any other yields one. Errors carry Core's messages.
func Parse(desc string, net *Network, requireChecksum bool) ([]*Descriptor, error) {
	if len(desc) > MaxLength {
		return nil, fmt.Errorf("Descriptor is too long (%d characters; at most %d)", len(desc), MaxLength)
	}
	payload, _, err := SplitChecksum(desc, requireChecksum)
	if err != nil {
		return nil, err
	}
	p := &parser{net: net}
	nodes, rest, err := p.parseScript(payload, ctxTop)
	if err != nil {
		return nil, err
	}
	if rest != "" {
		// Trailing text after the top-level expression: Core fails
		// without a message.
		return nil, errors.New("")
	}
	out := make([]*Descriptor, len(nodes))
	for i, n := range nodes {
		out[i] = &Descriptor{top: n, net: net, hasPrivate: p.hasPrivate}
	}
	return out, nil
}

// String returns the canonical public form with its checksum, as
// getdescriptorinfo's "descriptor": private keys replaced by public ones,
// hex in lower case, and each key's hardened steps marked the way the input
// marked them.
func (d *Descriptor) String() string {
	var b strings.Builder
	d.top.write(&b, d.net, false)
	return AddChecksum(b.String())
}

// StringPrivate returns the canonical form with the private keys the
// descriptor was given (public keys where it has none), with its checksum.
func (d *Descriptor) StringPrivate() string {
	var b strings.Builder
	d.top.write(&b, d.net, true)
	return AddChecksum(b.String())
}

// IsRange reports whether any key ends in a wildcard, so that the
// descriptor describes a script per derivation index.
func (d *Descriptor) IsRange() bool { return d.top.isRange() }

// IsSolvable reports whether the descriptor holds the information needed
// to sign for its outputs (everything but addr() and raw()).
func (d *Descriptor) IsSolvable() bool { return d.top.kind != kindAddr && d.top.kind != kindRaw }

// HasPrivateKeys reports whether the parsed string contained a private key
// (WIF or extended), as getdescriptorinfo's "hasprivatekeys".
func (d *Descriptor) HasPrivateKeys() bool { return d.hasPrivate }

// IsSingleType reports whether every index yields one output type; only
// combo() yields several.
func (d *Descriptor) IsSingleType() bool { return d.top.kind != kindCombo }

// OutputType names the address type the descriptor's outputs have
// ("legacy", "p2sh-segwit", "bech32", "bech32m"), or "" when it has none
// (pk(), bare multisig, combo(), or raw() and addr() of other scripts).
func (d *Descriptor) OutputType() string { return d.top.outputType() }

// KeyCount returns the number of key expressions, a measure of the work
// one Expand does (each ranged extended key costs a derivation per index).
func (d *Descriptor) KeyCount() int { return d.top.keyCount() }

func (n *node) keyCount() int {
	c := len(n.keys)
	for _, s := range n.subs {
		c += s.keyCount()
	}
	return c
}

func (n *node) outputType() string {
	switch n.kind {
	case kindPKH:
		return "legacy"
	case kindWPKH, kindWSH:
		return "bech32"
	case kindTR, kindRawTR:
		return "bech32m"
	case kindSH:
		if t := n.subs[0].outputType(); t == "bech32" {
			return "p2sh-segwit"
		}
		return "legacy"
	case kindAddr, kindRaw:
		return scriptOutputType(n.script())
	}
	return ""
}

// script is the fixed script of addr() and raw().
func (n *node) script() []byte {
	if n.kind == kindAddr {
		return n.addr.PkScript()
	}
	return n.raw
}

func (n *node) isRange() bool {
	for _, k := range n.keys {
		if k.isRange() {
			return true
		}
	}
	for _, s := range n.subs {
		if s.isRange() {
			return true
		}
	}
	return false
}

// write appends n's text and reports whether a private key was written.
func (n *node) write(b *strings.Builder, net *Network, private bool) bool {
	wrote := false
	if n.kind == kindMiniscript {
		n.ms.write(b, false, func(i int) string {
			var kb strings.Builder
			wrote = n.keys[i].write(&kb, net, private) || wrote
			return kb.String()
		})
		return wrote
	}
	b.WriteString(kindNames[n.kind])
	b.WriteByte('(')
	switch n.kind {
	case kindAddr:
		b.WriteString(n.addr.Encode(net.addressParams()))
	case kindRaw:
		b.WriteString(hex.EncodeToString(n.raw))
	case kindMulti, kindSortedMulti, kindMultiA, kindSortedMultiA:
		b.WriteString(strconv.Itoa(n.threshold))
		for _, k := range n.keys {
			b.WriteByte(',')
			wrote = k.write(b, net, private) || wrote
		}
	case kindSH, kindWSH:
		wrote = n.subs[0].write(b, net, private)
	case kindTR:
		wrote = n.keys[0].write(b, net, private)
		if len(n.subs) > 0 {
			b.WriteByte(',')
			wrote = writeTree(b, n.subs, n.depths, net, private) || wrote
		}
	default:
		wrote = n.keys[0].write(b, net, private)
	}
	b.WriteByte(')')
	return wrote
}

// writeTree writes tapscript leaves given in depth-first order with their
// depths as nested {A,B} pairs.
func writeTree(b *strings.Builder, leaves []*node, depths []int, net *Network, private bool) bool {
	wrote := false
	// right[i] is set once the path's node at level i has had its left
	// half written.
	var right []bool
	for i, leaf := range leaves {
		if i > 0 {
			b.WriteByte(',')
		}
		for len(right) <= depths[i] {
			if len(right) > 0 {
				b.WriteByte('{')
			}
			right = append(right, false)
		}
		wrote = leaf.write(b, net, private) || wrote
		for len(right) > 0 && right[len(right)-1] {
			if len(right) > 1 {
				b.WriteByte('}')
			}
			right = right[:len(right)-1]
		}
		if len(right) > 0 {
			right[len(right)-1] = true
		}
	}
	return wrote
}
