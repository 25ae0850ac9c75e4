package descriptor

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/btcnode/btcd/txscript"
)

// Limits on untrusted input. Core has no explicit length limit; this one is
// far above any real descriptor (999 keys of multi_a with origins and
// paths fit in a fifth of it) and bounds the work one call can ask for.
const (
	// MaxLength is the longest descriptor string Parse accepts.
	MaxLength = 1 << 20
	// maxTreeDepth is BIP341's control block limit, Core's
	// TAPROOT_CONTROL_MAX_NODE_COUNT.
	maxTreeDepth = 128
	// maxMultisigKeys and maxMultiAKeys are Core's
	// MAX_PUBKEYS_PER_MULTISIG and MAX_PUBKEYS_PER_MULTI_A.
	maxMultisigKeys = 20
	maxMultiAKeys   = 999
	// maxBareMultisigKeys is the most keys Core allows in a top-level
	// multi().
	maxBareMultisigKeys = 3
	// maxScriptElement is MAX_SCRIPT_ELEMENT_SIZE, the redeemScript limit.
	maxScriptElement = 520
	// maxParsedKeys bounds the key expressions one multi()/multi_a()
	// parses in full before it only counts the rest for its error: no
	// valid descriptor has more than 999, and parsing an extended key is
	// the costly part of parsing.
	maxParsedKeys = maxMultiAKeys + 1
)

// context is where a script expression appears (Core's
// ParseScriptContext); it decides which expressions and keys are allowed.
type context uint8

const (
	ctxTop    context = iota // the scriptPubKey itself
	ctxP2SH                  // inside sh(): the redeemScript
	ctxP2WPKH                // the key of wpkh()
	ctxP2WSH                 // inside wsh(): the witnessScript
	ctxP2TR                  // tr()'s internal key or a tapscript leaf
)

// kind is a script expression's function.
type kind uint8

const (
	kindPK kind = iota
	kindPKH
	kindWPKH
	kindCombo
	kindMulti
	kindSortedMulti
	kindMultiA
	kindSortedMultiA
	kindSH
	kindWSH
	kindTR
	kindRawTR
	kindAddr
	kindRaw
	kindMiniscript
)

var kindNames = [...]string{"pk", "pkh", "wpkh", "combo", "multi", "sortedmulti", "multi_a", "sortedmulti_a", "sh", "wsh", "tr", "rawtr", "addr", "raw", ""}

// node is a parsed script expression. Nodes are immutable once parsed, so
// the expansions of a multipath descriptor share their common parts.
type node struct {
	kind      kind
	keys      []*keyExpr
	subs      []*node // sh/wsh: the inner script; tr: the leaves
	depths    []int   // tr: each leaf's depth, leaves in depth-first order
	threshold int
	xonly     bool // pk() inside tr(): an x-only key in the script
	raw       []byte
	addr      txscript.Address
	ms        *msNode // miniscript: the expression, over keys
}

// parser holds what parsing collects across a descriptor.
type parser struct {
	net        *Network
	hasPrivate bool
}

// splitExpr splits s at the first ',', ')' or '}' outside parentheses and
// braces (Core's Expr): the expression and what follows it.
func splitExpr(s string) (string, string) {
	level := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '(' || c == '{':
			level++
		case level > 0 && (c == ')' || c == '}'):
			level--
		case level == 0 && (c == ')' || c == '}' || c == ','):
			return s[:i], s[i:]
		}
	}
	return s, ""
}

// call matches "name(...)" spanning all of s and returns the arguments
// (Core's Func).
func call(name, s string) (string, bool) {
	if len(s) >= len(name)+2 && s[len(name)] == '(' && s[len(s)-1] == ')' && s[:len(name)] == name {
		return s[len(name)+1 : len(s)-1], true
	}
	return "", false
}

// eat removes prefix from *s if present (Core's Const).
func eat(prefix string, s *string) bool {
	if strings.HasPrefix(*s, prefix) {
		*s = (*s)[len(prefix):]
		return true
	}
	return false
}

// firstChar is the character Core's "got '%c'" messages show.
func firstChar(s string) byte {
	if s == "" {
		return 0
	}
	return s[0]
}

// parseScript parses the script expression at the start of s in ctx and
// returns one node per multipath value and the rest of s.
func (p *parser) parseScript(s string, ctx context) ([]*node, string, error) {
	e, rest := splitExpr(s)
	nodes, err := p.parseExpr(e, ctx)
	return nodes, rest, err
}

// keyNodes builds one single-key node per key expression.
func (p *parser) keyNodes(args string, keyCtx context, k kind, prefix string, xonly bool) ([]*node, error) {
	keys, err := p.parseKey(args, keyCtx)
	if err != nil {
		return nil, fmt.Errorf("%s%w", prefix, err)
	}
	out := make([]*node, len(keys))
	for i, key := range keys {
		out[i] = &node{kind: k, keys: []*keyExpr{key}, xonly: xonly}
	}
	return out, nil
}

func (p *parser) parseExpr(e string, ctx context) ([]*node, error) {
	if args, ok := call("pk", e); ok {
		return p.keyNodes(args, ctx, kindPK, "pk(): ", ctx == ctxP2TR)
	}
	if ctx == ctxTop || ctx == ctxP2SH || ctx == ctxP2WSH {
		if args, ok := call("pkh", e); ok {
			return p.keyNodes(args, ctx, kindPKH, "pkh(): ", false)
		}
	}
	if args, ok := call("combo", e); ok {
		if ctx != ctxTop {
			return nil, errors.New("Can only have combo() at top level")
		}
		return p.keyNodes(args, ctx, kindCombo, "combo(): ", false)
	}
	for _, k := range []kind{kindMulti, kindSortedMulti, kindMultiA, kindSortedMultiA} {
		args, ok := call(kindNames[k], e)
		if !ok {
			continue
		}
		tapscript := k == kindMultiA || k == kindSortedMultiA
		switch {
		case tapscript && ctx == ctxP2TR, !tapscript && (ctx == ctxTop || ctx == ctxP2SH || ctx == ctxP2WSH):
			return p.parseMulti(args, k, ctx)
		case tapscript:
			return nil, errors.New("Can only have multi_a/sortedmulti_a inside tr()")
		default:
			return nil, errors.New("Can only have multi/sortedmulti at top level, in sh(), or in wsh()")
		}
	}
	if args, ok := call("wpkh", e); ok {
		if ctx != ctxTop && ctx != ctxP2SH {
			return nil, errors.New("Can only have wpkh() at top level or inside sh()")
		}
		return p.keyNodes(args, ctxP2WPKH, kindWPKH, "wpkh(): ", false)
	}
	if args, ok := call("sh", e); ok {
		if ctx != ctxTop {
			return nil, errors.New("Can only have sh() at top level")
		}
		return p.parseWrapped(args, kindSH, ctxP2SH)
	}
	if args, ok := call("wsh", e); ok {
		if ctx != ctxTop && ctx != ctxP2SH {
			return nil, errors.New("Can only have wsh() at top level or inside sh()")
		}
		return p.parseWrapped(args, kindWSH, ctxP2WSH)
	}
	if args, ok := call("addr", e); ok {
		if ctx != ctxTop {
			return nil, errors.New("Can only have addr() at top level")
		}
		a, err := txscript.DecodeAddress(args, p.net.addressParams())
		if err != nil {
			return nil, errors.New("Address is not valid")
		}
		return []*node{{kind: kindAddr, addr: a}}, nil
	}
	if args, ok := call("tr", e); ok {
		if ctx != ctxTop {
			return nil, errors.New("Can only have tr at top level")
		}
		return p.parseTR(args)
	}
	if args, ok := call("rawtr", e); ok {
		if ctx != ctxTop {
			return nil, errors.New("Can only have rawtr at top level")
		}
		key, rest := splitExpr(args)
		if rest != "" {
			return nil, errors.New("rawtr(): only one key expected.")
		}
		return p.keyNodes(key, ctxP2TR, kindRawTR, "rawtr(): ", false)
	}
	if args, ok := call("raw", e); ok {
		if ctx != ctxTop {
			return nil, errors.New("Can only have raw() at top level")
		}
		if !isHex(args) {
			return nil, errors.New("Raw script is not hex")
		}
		b, _ := hex.DecodeString(args)
		return []*node{{kind: kindRaw, raw: b}}, nil
	}
	if nodes, ok, err := p.parseMiniscript(e, ctx); ok {
		return nodes, err
	}
	switch ctx {
	case ctxP2SH:
		return nil, errors.New("A function is needed within P2SH")
	case ctxP2WSH:
		return nil, errors.New("A function is needed within P2WSH")
	}
	return nil, fmt.Errorf("'%s' is not a valid descriptor function", e)
}

// parseWrapped parses sh(SCRIPT) or wsh(SCRIPT).
func (p *parser) parseWrapped(args string, k kind, inner context) ([]*node, error) {
	subs, rest, err := p.parseScript(args, inner)
	if err != nil {
		return nil, err
	}
	if rest != "" {
		// Core reports trailing text inside sh()/wsh() with an empty
		// message.
		return nil, errors.New("")
	}
	out := make([]*node, len(subs))
	for i, s := range subs {
		out[i] = &node{kind: k, subs: []*node{s}}
	}
	return out, nil
}

// lockstep checks that every multipath list has one element or n, where n
// is the longest, and returns n.
func lockstep(lens []int) (int, bool) {
	n := 1
	for _, l := range lens {
		n = max(n, l)
	}
	for _, l := range lens {
		if l != 1 && l != n {
			return n, false
		}
	}
	return n, true
}

// pick returns list[i], or the only element of a non-multipath list.
func pick[T any](list []T, i int) T {
	if len(list) == 1 {
		return list[0]
	}
	return list[i]
}

// parseMulti parses the arguments of multi(), sortedmulti(), multi_a() and
// sortedmulti_a(): a threshold and keys.
func (p *parser) parseMulti(args string, k kind, ctx context) ([]*node, error) {
	thr, rest := splitExpr(args)
	threshold, ok := parseUint32(thr)
	if !ok {
		return nil, fmt.Errorf("Multi threshold '%s' is not valid", thr)
	}
	var keys [][]*keyExpr
	count, scriptSize := 0, 0
	for rest != "" {
		if !eat(",", &rest) {
			return nil, fmt.Errorf("Multi: expected ',', got '%c'", firstChar(rest))
		}
		var arg string
		arg, rest = splitExpr(rest)
		count++
		if count > maxParsedKeys {
			continue // already too many: only count them
		}
		ks, err := p.parseKey(arg, ctx)
		if err != nil {
			return nil, fmt.Errorf("Multi: %w", err)
		}
		scriptSize += ks[0].size() + 1
		keys = append(keys, ks)
	}
	tapscript := k == kindMultiA || k == kindSortedMultiA
	switch {
	case !tapscript && (count == 0 || count > maxMultisigKeys):
		return nil, fmt.Errorf("Cannot have %d keys in multisig; must have between 1 and %d keys, inclusive", count, maxMultisigKeys)
	case tapscript && (count == 0 || count > maxMultiAKeys):
		return nil, fmt.Errorf("Cannot have %d keys in multi_a; must have between 1 and %d keys, inclusive", count, maxMultiAKeys)
	case threshold < 1:
		return nil, fmt.Errorf("Multisig threshold cannot be %d, must be at least 1", threshold)
	case int64(threshold) > int64(count):
		return nil, fmt.Errorf("Multisig threshold cannot be larger than the number of keys; threshold is %d but only %d keys specified", threshold, count)
	}
	if ctx == ctxTop && count > maxBareMultisigKeys {
		return nil, fmt.Errorf("Cannot have %d pubkeys in bare multisig; only at most %d pubkeys", count, maxBareMultisigKeys)
	}
	if ctx == ctxP2SH && scriptSize+3 > maxScriptElement {
		return nil, fmt.Errorf("P2SH script is too large, %d bytes is larger than %d bytes", scriptSize+3, maxScriptElement)
	}
	lens := make([]int, len(keys))
	for i, ks := range keys {
		lens[i] = len(ks)
	}
	n, ok := lockstep(lens)
	if !ok {
		return nil, errors.New("multi(): Multipath derivation paths have mismatched lengths")
	}
	out := make([]*node, n)
	for i := range out {
		nd := &node{kind: k, threshold: int(threshold), keys: make([]*keyExpr, len(keys))}
		for j, ks := range keys {
			nd.keys[j] = pick(ks, i)
		}
		out[i] = nd
	}
	return out, nil
}

// parseTR parses tr(KEY) and tr(KEY,TREE); TREE's leaves are kept in
// depth-first order with their depths.
func (p *parser) parseTR(args string) ([]*node, error) {
	keyArg, rest := splitExpr(args)
	internal, err := p.parseKey(keyArg, ctxP2TR)
	if err != nil {
		return nil, fmt.Errorf("tr(): %w", err)
	}
	var leaves [][]*node
	var depths []int
	if rest != "" {
		if !eat(",", &rest) {
			return nil, fmt.Errorf("tr: expected ',', got '%c'", firstChar(rest))
		}
		// branches records, for each level of the path from the root,
		// whether the current node is a right branch.
		var branches []bool
		for {
			for eat("{", &rest) {
				branches = append(branches, false)
				if len(branches) > maxTreeDepth {
					return nil, fmt.Errorf("tr() supports at most %d nesting levels", maxTreeDepth)
				}
			}
			var leafArg string
			leafArg, rest = splitExpr(rest)
			leaf, _, err := p.parseScript(leafArg, ctxP2TR)
			if err != nil {
				return nil, err
			}
			leaves = append(leaves, leaf)
			depths = append(depths, len(branches))
			for len(branches) > 0 && branches[len(branches)-1] {
				if !eat("}", &rest) {
					return nil, errors.New("tr(): expected '}' after script expression")
				}
				branches = branches[:len(branches)-1]
			}
			if len(branches) > 0 {
				if !eat(",", &rest) {
					return nil, errors.New("tr(): expected ',' after script expression")
				}
				branches[len(branches)-1] = true
			}
			if len(branches) == 0 {
				break
			}
		}
		if rest != "" {
			return nil, errors.New("tr(): expected ')' after script expression")
		}
	}
	n := len(internal)
	for _, l := range leaves {
		n = max(n, len(l))
	}
	for _, l := range leaves {
		if len(l) != 1 && len(l) != n {
			return nil, errors.New("tr(): Multipath subscripts have mismatched lengths")
		}
	}
	if len(internal) > 1 && len(internal) != n {
		return nil, errors.New("tr(): Multipath internal key mismatches multipath subscripts lengths")
	}
	out := make([]*node, n)
	for i := range out {
		nd := &node{kind: kindTR, keys: []*keyExpr{pick(internal, i)}, depths: depths, subs: make([]*node, len(leaves))}
		for j, l := range leaves {
			nd.subs[j] = pick(l, i)
		}
		out[i] = nd
	}
	return out, nil
}
