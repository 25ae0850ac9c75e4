package main

import (
	"fmt"
	"strings"

	"github.com/btcnode/btcd/rpc"
)

// Parameter conversion. bitcoin-cli sends a parameter as JSON when its
// table of non-string parameters (src/rpc/client.cpp) lists it and as a
// string otherwise. btcctl derives the same answer from the server's own
// method table (rpc.LookupMethod): string arguments are strings, other
// declared types must be JSON, multi-type (ArgAny) arguments are JSON when
// they parse. Methods the table does not know (the wallet's, a newer
// server's) get the same lenient rule.

// stringMethods are methods whose arguments are all strings although the
// server declares them ArgAny: bitcoin-cli's table leaves echo out on
// purpose (echojson is the converting twin).
var stringMethods = map[string]bool{"echo": true}

// parseJSONArg parses a parameter that must be JSON, with bitcoin-cli's
// error text.
func parseJSONArg(s string) (*jval, error) {
	v, err := parseJSON([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("Error parsing JSON: %s", s)
	}
	return v, nil
}

// lenientArg is JSON when s parses as JSON, else a string.
func lenientArg(s string) *jval {
	if v, err := parseJSON([]byte(s)); err == nil {
		return v
	}
	return jString(s)
}

// convertArg converts one parameter of method: the argument declared at
// index, or under name when index is negative.
func convertArg(method string, m *rpc.Method, index int, name, s string) (*jval, error) {
	if stringMethods[method] {
		return jString(s), nil
	}
	if m == nil {
		return lenientArg(s), nil
	}
	var arg *rpc.Arg
	if index >= 0 {
		if index < len(m.Args) {
			arg = &m.Args[index]
		}
	} else {
		for i := range m.Args {
			for _, alias := range strings.Split(m.Args[i].Name, "|") {
				if alias == name {
					arg = &m.Args[i]
				}
			}
		}
	}
	switch {
	case arg == nil:
		// Not an argument the method declares: bitcoin-cli's table
		// cannot list it either, so it goes as a string.
		return jString(s), nil
	case arg.Type == rpc.ArgStr || arg.Type == rpc.ArgHex:
		return jString(s), nil
	case arg.Type == rpc.ArgAny:
		return lenientArg(s), nil
	}
	return parseJSONArg(s)
}

// convertPositional is bitcoin-cli's RPCConvertValues: the params array.
func convertPositional(method string, args []string) (*jval, error) {
	m := rpc.LookupMethod(method)
	out := jArray()
	for i, a := range args {
		v, err := convertArg(method, m, i, "", a)
		if err != nil {
			return nil, err
		}
		out.push(v)
	}
	return out, nil
}

// convertNamed is bitcoin-cli's RPCConvertNamedValues: name=value
// arguments become object members (a later value for a name replaces an
// earlier one), and arguments without '=' are positional ones, sent as an
// "args" array appended after the others. An explicit args=... is kept
// too, so the server reports the clash.
func convertNamed(method string, args []string) (*jval, error) {
	m := rpc.LookupMethod(method)
	out := jObject()
	positional := jArray()
	for _, a := range args {
		name, val, ok := strings.Cut(a, "=")
		if !ok {
			v, err := convertArg(method, m, len(positional.vals), "", a)
			if err != nil {
				return nil, err
			}
			positional.push(v)
			continue
		}
		v, err := convertArg(method, m, -1, name, val)
		if err != nil {
			return nil, err
		}
		out.pushKV(name, v)
	}
	if len(positional.vals) > 0 {
		out.pushKVEnd("args", positional)
	}
	return out, nil
}

// requestObject is bitcoin-cli's JSON-RPC 2.0 request object.
func requestObject(method string, params *jval, id int64) *jval {
	r := jObject()
	r.pushKV("method", jString(method))
	r.pushKV("params", params)
	r.pushKV("id", jInt(id))
	r.pushKV("jsonrpc", jString("2.0"))
	return r
}
