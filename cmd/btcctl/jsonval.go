package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
)

// jkind is a JSON value's type.
type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNum
	jStr
	jArr
	jObj
)

// A jval is a JSON value that keeps what bitcoin-cli's UniValue keeps and
// encoding/json loses: object keys in order (duplicates included, which
// the named "args" parameter relies on) and numbers as the server wrote
// them. A nil *jval reads as null.
type jval struct {
	kind jkind
	s    string // a string's contents or a number's text
	b    bool
	keys []string // objects
	vals []*jval  // array elements or object values
}

func jString(s string) *jval { return &jval{kind: jStr, s: s} }
func jNumber(text string) *jval {
	return &jval{kind: jNum, s: text}
}
func jInt(n int64) *jval      { return jNumber(strconv.FormatInt(n, 10)) }
func jBoolean(b bool) *jval   { return &jval{kind: jBool, b: b} }
func jArray(v ...*jval) *jval { return &jval{kind: jArr, vals: append([]*jval{}, v...)} }
func jObject() *jval          { return &jval{kind: jObj} }

func (v *jval) isNull() bool { return v == nil || v.kind == jNull }
func (v *jval) isStr() bool  { return v != nil && v.kind == jStr }
func (v *jval) isNum() bool  { return v != nil && v.kind == jNum }
func (v *jval) isArr() bool  { return v != nil && v.kind == jArr }
func (v *jval) isObj() bool  { return v != nil && v.kind == jObj }

// orNull turns a missing value into an explicit null, for values that are
// copied into a new object (UniValue copies the null).
func (v *jval) orNull() *jval {
	if v == nil {
		return &jval{}
	}
	return v
}

// pushKV sets key, replacing the first value of that name in place, as
// UniValue's pushKV does.
func (v *jval) pushKV(key string, x *jval) {
	for i, k := range v.keys {
		if k == key {
			v.vals[i] = x.orNull()
			return
		}
	}
	v.pushKVEnd(key, x)
}

// pushKVEnd appends key even when the object already has it.
func (v *jval) pushKVEnd(key string, x *jval) {
	v.keys = append(v.keys, key)
	v.vals = append(v.vals, x.orNull())
}

// push appends an array element.
func (v *jval) push(x *jval) { v.vals = append(v.vals, x.orNull()) }

// get returns the first value of key, or nil when v is not an object or
// lacks it.
func (v *jval) get(key string) *jval {
	if !v.isObj() {
		return nil
	}
	for i, k := range v.keys {
		if k == key {
			return v.vals[i]
		}
	}
	return nil
}

// elems returns an array's elements (an object's values), nil otherwise.
func (v *jval) elems() []*jval {
	if v == nil || (v.kind != jArr && v.kind != jObj) {
		return nil
	}
	return v.vals
}

// valStr is UniValue's getValStr: a string's contents or a number's
// text, "1" for true, and "" for anything else.
func (v *jval) valStr() string {
	switch {
	case v == nil:
		return ""
	case v.kind == jStr || v.kind == jNum:
		return v.s
	case v.kind == jBool && v.b:
		return "1"
	}
	return ""
}

// boolean returns a boolean's value (false for anything else).
func (v *jval) boolean() bool { return v != nil && v.kind == jBool && v.b }

// float returns a number's value, 0 for anything else.
func (v *jval) float() float64 {
	if !v.isNum() {
		return 0
	}
	f, _ := strconv.ParseFloat(v.s, 64)
	return f
}

// int returns a number's value as an integer, and whether v is a number.
func (v *jval) int() (int64, bool) {
	if !v.isNum() {
		return 0, false
	}
	if n, err := strconv.ParseInt(v.s, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(v.s, 64)
	if err != nil || math.IsNaN(f) {
		return 0, true
	}
	return int64(f), true
}

// maxDepth bounds nesting, as UniValue's parser does.
const maxDepth = 512

var errTrailing = errors.New("trailing data after JSON value")

// parseJSON parses one JSON value (any type at the top, surrounding
// whitespace allowed).
func parseJSON(text []byte) (*jval, error) {
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	v, err := decodeJSON(d, 0)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errTrailing
	}
	return v, nil
}

func decodeJSON(d *json.Decoder, depth int) (*jval, error) {
	if depth > maxDepth {
		return nil, errors.New("JSON nested too deeply")
	}
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch x := t.(type) {
	case nil:
		return &jval{}, nil
	case bool:
		return jBoolean(x), nil
	case json.Number:
		return jNumber(string(x)), nil
	case string:
		return jString(x), nil
	case json.Delim:
		switch x {
		case '[':
			v := jArray()
			for d.More() {
				e, err := decodeJSON(d, depth+1)
				if err != nil {
					return nil, err
				}
				v.push(e)
			}
			_, err := d.Token() // ']'
			return v, err
		case '{':
			v := jObject()
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				e, err := decodeJSON(d, depth+1)
				if err != nil {
					return nil, err
				}
				v.pushKVEnd(key, e)
			}
			_, err := d.Token() // '}'
			return v, err
		}
	}
	return nil, errors.New("unexpected JSON token")
}

// write serializes v as UniValue's write(indent) does: compact with
// indent 0; otherwise one element per line, nested levels indented by
// indent spaces, empty arrays and objects still split over two lines.
func (v *jval) write(indent int) string {
	var b strings.Builder
	v.writeTo(&b, indent, 1)
	return b.String()
}

func (v *jval) writeTo(b *strings.Builder, indent, level int) {
	switch {
	case v.isNull():
		b.WriteString("null")
	case v.kind == jBool:
		if v.b {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case v.kind == jNum:
		b.WriteString(v.s)
	case v.kind == jStr:
		writeJSONString(b, v.s)
	case v.kind == jArr || v.kind == jObj:
		open, close := "[", "]"
		if v.kind == jObj {
			open, close = "{", "}"
		}
		b.WriteString(open)
		if indent > 0 {
			b.WriteByte('\n')
		}
		for i, e := range v.vals {
			if indent > 0 {
				b.WriteString(strings.Repeat(" ", indent*level))
			}
			if v.kind == jObj {
				writeJSONString(b, v.keys[i])
				b.WriteByte(':')
				if indent > 0 {
					b.WriteByte(' ')
				}
			}
			e.writeTo(b, indent, level+1)
			if i != len(v.vals)-1 {
				b.WriteByte(',')
			}
			if indent > 0 {
				b.WriteByte('\n')
			}
		}
		if indent > 0 {
			b.WriteString(strings.Repeat(" ", indent*(level-1)))
		}
		b.WriteString(close)
	}
}

// writeJSONString writes s quoted with UniValue's escapes: control
// characters (short forms for \b \t \n \f \r), '"', '\\' and DEL; every
// other byte, UTF-8 included, as is.
func writeJSONString(b *strings.Builder, s string) {
	const hexDigits = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 || c == 0x7f {
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&15])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}
