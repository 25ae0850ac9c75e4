package rpc

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/btcnode/btcd/wire"
)

// ArgType is the declared JSON type of a method argument. The server checks
// every argument against it before calling the handler, with bitcoind's
// "Wrong type passed" message.
type ArgType uint8

// Argument types, as bitcoind's RPCArg::Type.
const (
	ArgStr    ArgType = iota // JSON string
	ArgHex                   // JSON string holding hex
	ArgNum                   // JSON number
	ArgBool                  // JSON boolean
	ArgObj                   // JSON object
	ArgArr                   // JSON array
	ArgAmount                // number or string holding a BTC amount
	ArgAny                   // checked by the handler (legacy multi-type arguments)
)

// expected returns the JSON type name an argument must have, or "" when the
// handler checks it.
func (t ArgType) expected() string {
	switch t {
	case ArgStr, ArgHex:
		return "string"
	case ArgNum:
		return "number"
	case ArgBool:
		return "boolean"
	case ArgObj:
		return "object"
	case ArgArr:
		return "array"
	}
	return ""
}

// helpName is the type as help text prints it.
func (t ArgType) helpName() string {
	switch t {
	case ArgStr:
		return "string"
	case ArgHex:
		return "string"
	case ArgNum:
		return "numeric"
	case ArgBool:
		return "boolean"
	case ArgObj:
		return "json object"
	case ArgArr:
		return "json array"
	case ArgAmount:
		return "numeric or string"
	}
	return "any"
}

// Params holds a call's arguments by position after named arguments have
// been mapped onto their positions. Absent trailing arguments and explicit
// nulls both read as "not given".
type Params struct {
	args []json.RawMessage
}

// Len returns the number of argument slots given (including nulls).
func (p *Params) Len() int { return len(p.args) }

// Has reports whether argument i was given and is not null.
func (p *Params) Has(i int) bool { return i < len(p.args) && !isNull(p.args[i]) }

// Raw returns argument i as raw JSON, nil when absent or null.
func (p *Params) Raw(i int) json.RawMessage {
	if !p.Has(i) {
		return nil
	}
	return p.args[i]
}

// Str returns string argument i, or def when not given.
func (p *Params) Str(i int, def string) (string, error) {
	if !p.Has(i) {
		return def, nil
	}
	var s string
	if err := json.Unmarshal(p.args[i], &s); err != nil {
		return "", typeError(p.args[i], "string")
	}
	return s, nil
}

// Int returns integer argument i, or def when not given. Non-integral or
// out-of-range numbers fail as bitcoind's "JSON integer out of range".
func (p *Params) Int(i int, def int64) (int64, error) {
	if !p.Has(i) {
		return def, nil
	}
	return parseJSONInt(p.args[i])
}

func parseJSONInt(raw json.RawMessage) (int64, error) {
	if jsonKind(raw) != "number" {
		return 0, typeError(raw, "number")
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
	if err != nil {
		return 0, NewError(ErrMisc, "JSON integer out of range")
	}
	return n, nil
}

// Bool returns boolean argument i, or def when not given.
func (p *Params) Bool(i int, def bool) (bool, error) {
	if !p.Has(i) {
		return def, nil
	}
	var b bool
	if err := json.Unmarshal(p.args[i], &b); err != nil {
		return false, typeError(p.args[i], "boolean")
	}
	return b, nil
}

// Hash returns hash argument i (64 hex digits, displayed byte order),
// checked with bitcoind's ParseHashV messages naming the argument.
func (p *Params) Hash(i int, name string) (wire.Hash, error) {
	s, err := p.Str(i, "")
	if err != nil {
		return wire.Hash{}, err
	}
	return parseHashV(s, name)
}

// parseHashV parses a displayed hash as bitcoind's ParseHashV.
func parseHashV(s, name string) (wire.Hash, error) {
	if len(s) != 64 {
		return wire.Hash{}, Errorf(ErrInvalidParam, "%s must be of length 64 (not %d, for '%s')", name, len(s), s)
	}
	if !isHex(s) {
		return wire.Hash{}, Errorf(ErrInvalidParam, "%s must be hexadecimal string (not '%s')", name, s)
	}
	h, err := wire.NewHashFromStr(s)
	if err != nil {
		return wire.Hash{}, Errorf(ErrInvalidParam, "%s must be hexadecimal string (not '%s')", name, s)
	}
	return h, nil
}

// HexBytes returns hex argument i decoded, with bitcoind's ParseHexV
// message naming the argument.
func (p *Params) HexBytes(i int, name string) ([]byte, error) {
	s, err := p.Str(i, "")
	if err != nil {
		return nil, err
	}
	return parseHexV(s, name)
}

func parseHexV(s, name string) ([]byte, error) {
	if !isHex(s) {
		return nil, Errorf(ErrInvalidParam, "%s must be hexadecimal string (not '%s')", name, s)
	}
	return decodeHex(s), nil
}

// isHex reports an even-length string of hex digits, as bitcoind's IsHex
// (which also rejects the empty string).
func isHex(s string) bool {
	if len(s) == 0 || len(s)%2 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if hexVal(s[i]) < 0 {
			return false
		}
	}
	return true
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// decodeHex decodes a string already checked by isHex (or empty).
func decodeHex(s string) []byte {
	b := make([]byte, len(s)/2)
	for i := range b {
		b[i] = byte(hexVal(s[2*i])<<4 | hexVal(s[2*i+1]))
	}
	return b
}

// duplicateKey reports the first key that appears twice in the JSON
// object raw (encoding/json keeps only the last). raw has been decoded
// once already, so it is well-formed.
func duplicateKey(raw json.RawMessage) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return "", false
	}
	seen := make(map[string]struct{})
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", false
		}
		k, _ := t.(string)
		if _, ok := seen[k]; ok {
			return k, true
		}
		seen[k] = struct{}{}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", false
		}
	}
	return "", false
}

// typeError is bitcoind's UniValue type mismatch message.
func typeError(raw json.RawMessage, want string) *Error {
	return Errorf(ErrType, "JSON value of type %s is not of expected type %s", jsonKind(raw), want)
}

// bindParams maps a request's params (array or object) onto the method's
// argument positions, then checks the count and the declared types. Its
// errors are bitcoind's: an unknown named argument is -8, a wrong count is
// -1 carrying the method's help text, a type mismatch is -3 "Wrong type
// passed".
func bindParams(m *Method, raw json.RawMessage) (*Params, *Error) {
	var args []json.RawMessage
	switch jsonKind(raw) {
	case "array":
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, NewError(ErrInvalidRequest, "Params must be an array or object")
		}
	case "object":
		var named map[string]json.RawMessage
		if err := json.Unmarshal(raw, &named); err != nil {
			return nil, NewError(ErrInvalidRequest, "Params must be an array or object")
		}
		if k, dup := duplicateKey(raw); dup {
			// bitcoin-cli -named sends an explicit args=... beside the
			// implicit positional "args"; bitcoind refuses the clash
			// rather than letting one silently win.
			return nil, Errorf(ErrInvalidParam, "Parameter %s specified multiple times", k)
		}
		pos := make(map[string]int, len(m.Args))
		for i, a := range m.Args {
			for _, alias := range strings.Split(a.Name, "|") {
				pos[alias] = i
			}
		}
		// As bitcoind, a named "args" array holds leading positional
		// arguments (clients send it for calls that mix the two), unless
		// the method has an argument of that name.
		if raw, ok := named["args"]; ok {
			if _, isArg := pos["args"]; !isArg {
				if jsonKind(raw) != "array" || json.Unmarshal(raw, &args) != nil {
					return nil, NewError(ErrInvalidParam, "Parameter args must be an array")
				}
				delete(named, "args")
			}
		}
		// Report unknown names in a stable order.
		keys := make([]string, 0, len(named))
		for k := range named {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			i, ok := pos[k]
			if !ok {
				return nil, Errorf(ErrInvalidParam, "Unknown named parameter %s", k)
			}
			for len(args) <= i {
				args = append(args, nil)
			}
			if args[i] != nil {
				return nil, Errorf(ErrInvalidParam, "Parameter %s specified twice both as positional and named argument", k)
			}
			args[i] = named[k]
		}
		// Trailing unset slots are not arguments at all.
		for len(args) > 0 && args[len(args)-1] == nil {
			args = args[:len(args)-1]
		}
	}
	if len(args) > len(m.Args) {
		return nil, NewError(ErrMisc, m.HelpText())
	}
	for i, a := range m.Args {
		if !a.Optional && (i >= len(args) || args[i] == nil) {
			return nil, NewError(ErrMisc, m.HelpText())
		}
	}
	var mismatch []string
	for i := range args {
		a := &m.Args[i]
		want := a.Type.expected()
		if want == "" {
			continue
		}
		got := jsonKind(args[i])
		if got == want || (got == "null" && a.Optional) {
			continue
		}
		mismatch = append(mismatch, "    \"Position "+strconv.Itoa(i+1)+" ("+a.Name+")\": \"JSON value of type "+got+" is not of expected type "+want+"\"")
	}
	if len(mismatch) > 0 {
		return nil, NewError(ErrType, "Wrong type passed:\n{\n"+strings.Join(mismatch, ",\n")+"\n}")
	}
	return &Params{args: args}, nil
}

// amountFromJSON parses a BTC amount (number or numeric string) into
// satoshis with bitcoind's AmountFromValue rules: at most 8 decimals, not
// negative, within the money range.
func amountFromJSON(raw json.RawMessage) (int64, error) {
	var s string
	switch jsonKind(raw) {
	case "number":
		s = strings.TrimSpace(string(raw))
	case "string":
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, NewError(ErrType, "Amount is not a number or string")
		}
	default:
		return 0, NewError(ErrType, "Amount is not a number or string")
	}
	v, ok := parseFixedPoint(s, 8)
	if !ok {
		return 0, NewError(ErrType, "Invalid amount")
	}
	if v < 0 || v > maxMoney {
		return 0, NewError(ErrType, "Amount out of range")
	}
	return v, nil
}

// maxMoney is the consensus money range (21 million BTC in satoshis).
const maxMoney = 21_000_000 * 100_000_000

// parseFixedPoint parses a JSON decimal number (with optional exponent)
// into an integer scaled by 10^decimals, failing when precision would be
// lost or the value exceeds 10^18, as bitcoind's ParseFixedPoint.
func parseFixedPoint(s string, decimals int) (int64, bool) {
	if s == "" {
		return 0, false
	}
	neg := false
	if s[0] == '-' {
		neg = true
		s = s[1:]
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 1000 || e < -1000 {
			return 0, false
		}
		exp = e
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
		if frac == "" {
			return 0, false
		}
	}
	if intPart == "" {
		return 0, false
	}
	digits := intPart + frac
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	// Value = digits * 10^(exp - len(frac) + decimals).
	shift := exp - len(frac) + decimals
	digits = strings.TrimLeft(digits, "0")
	if shift < 0 {
		// The dropped digits must all be zero.
		if -shift > len(digits) {
			if strings.Trim(digits, "0") != "" {
				return 0, false
			}
			return 0, true
		}
		cut := len(digits) + shift
		if strings.Trim(digits[cut:], "0") != "" {
			return 0, false
		}
		digits = digits[:cut]
		shift = 0
	}
	if len(digits)+shift > 18 {
		if digits == "" {
			return 0, true
		}
		return 0, false
	}
	var v int64
	for i := 0; i < len(digits); i++ {
		v = v*10 + int64(digits[i]-'0')
	}
	for ; shift > 0; shift-- {
		v *= 10
	}
	if v > int64(math.Pow10(18))-1 {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// formatBTC renders satoshis as a JSON number with exactly eight decimals,
// as bitcoind's ValueFromAmount.
func formatBTC(sat int64) json.Number {
	neg := sat < 0
	u := uint64(sat)
	if neg {
		u = uint64(-sat)
	}
	s := strconv.FormatUint(u/100_000_000, 10) + "." + pad8(u%100_000_000)
	if neg {
		s = "-" + s
	}
	return json.Number(s)
}

func pad8(v uint64) string {
	s := strconv.FormatUint(v, 10)
	return strings.Repeat("0", 8-len(s)) + s
}
