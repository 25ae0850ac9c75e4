package bitcoinconf

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// A Value is one setting as bitcoind stores it: a string, or a negation
// (-noname is false; the double negative -noname=0 is true).
type Value struct {
	Str     string
	Negated bool // -noname
	Double  bool // -noname=0: a negation that means true
}

// IsFalse reports a plain negation.
func (v Value) IsFalse() bool { return v.Negated && !v.Double }

// String returns the value as GetArg does: a negation is "0", a double
// negative "1".
func (v Value) String() string {
	switch {
	case v.Negated && v.Double:
		return "1"
	case v.Negated:
		return "0"
	}
	return v.Str
}

// JSON prints the value as bitcoind's settings do: a negation as false, a
// double negative as true, a string quoted.
func (v Value) JSON() string {
	switch {
	case v.Negated && v.Double:
		return "true"
	case v.Negated:
		return "false"
	}
	q, _ := json.Marshal(v.Str)
	return string(q)
}

// Bool returns the value as GetBoolArg does.
func (v Value) Bool() bool {
	if v.Negated {
		return v.Double
	}
	return InterpretBool(v.Str)
}

// Int returns the value as GetIntArg does.
func (v Value) Int() int64 {
	if v.Negated {
		if v.Double {
			return 1
		}
		return 0
	}
	return Atoi64(v.Str)
}

// InterpretBool is bitcoind's InterpretBool: the empty string is true,
// otherwise the leading integer is compared with zero.
func InterpretBool(s string) bool {
	return s == "" || Atoi64(s) != 0
}

// Atoi64 parses a leading decimal integer as C's atoll (and bitcoind's
// LocaleIndependentAtoi) do: optional spaces and one sign, digits, rest
// ignored; no digits is 0, overflow saturates.
func Atoi64(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\r\f\v")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end == 0 {
		return 0
	}
	n, err := strconv.ParseInt(s[:end], 10, 64)
	if err != nil {
		if neg {
			return -1 << 63
		}
		return 1<<63 - 1
	}
	if neg {
		return -n
	}
	return n
}

// A Span is the values one source (the command line, one config section)
// gave an option, in order.
type Span []Value

// LastNegated reports whether the source's last word on the option is a
// plain negation.
func (s Span) LastNegated() bool { return len(s) > 0 && s[len(s)-1].IsFalse() }

// AfterNegation returns the values after the last plain negation: a
// negation discards what came before it in the same source.
func (s Span) AfterNegation() Span {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i].IsFalse() {
			return s[i+1:]
		}
	}
	return s
}

// Strings lists the span's string values after its last negation; double
// negatives add none.
func (s Span) Strings() []string {
	var out []string
	for _, v := range s.AfterNegation() {
		if !v.Negated {
			out = append(out, v.Str)
		}
	}
	return out
}

// A Key is an option key as written: [section.][no]name.
type Key struct {
	Section, Name string
	Negated       bool
}

// ParseKey splits "[section.][no]name".
func ParseKey(key string) Key {
	var k Key
	if i := strings.IndexByte(key, '.'); i >= 0 {
		k.Section, key = key[:i], key[i+1:]
	}
	if strings.HasPrefix(key, "no") {
		key, k.Negated = key[2:], true
	}
	k.Name = key
	return k
}

// SplitArg splits a command-line argument "-key[=value]" (one or two
// dashes) into its key and value; value is nil when no '=' was given.
func SplitArg(arg string) (key string, value *string) {
	key = strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	if k, v, ok := strings.Cut(key, "="); ok {
		return k, &v
	}
	return key, nil
}

// Interpret makes a Value of a key and its value (nil when none was
// given) with the negation rules: -noname is false, -noname=<false> is a
// double negative (true, reported so callers can warn about it), and
// options that forbid negation refuse both.
func Interpret(k Key, val *string, noNegation bool) (v Value, doubleNegative bool, err error) {
	if k.Negated {
		if noNegation {
			return Value{}, false, fmt.Errorf("Negating of -%s is meaningless and therefore forbidden", k.Name)
		}
		if val != nil && !InterpretBool(*val) {
			return Value{Negated: true, Double: true}, true, nil
		}
		return Value{Negated: true}, false, nil
	}
	if val == nil {
		return Value{}, false, nil
	}
	return Value{Str: *val}, false, nil
}
