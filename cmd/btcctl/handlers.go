package main

import (
	"errors"
	"fmt"
)

// A requestHandler turns the command line into a JSON-RPC request (an
// object, or an array for a batch) and the server's reply into a reply
// object with "result" and "error", as bitcoin-cli's request handlers do.
type requestHandler interface {
	prepare(method string, args []string) (*jval, error)
	process(reply *jval) (*jval, error)
}

// replyObject is a reply made on the client's side.
func replyObject(result, rpcErr *jval) *jval {
	r := jObject()
	r.pushKV("result", result)
	r.pushKV("error", rpcErr)
	r.pushKV("id", jInt(1))
	return r
}

// typeName is UniValue's name for a value's type, for its type errors.
func typeName(v *jval) string {
	switch {
	case v.isNull():
		return "null"
	case v.kind == jBool:
		return "bool"
	case v.kind == jNum:
		return "number"
	case v.kind == jStr:
		return "string"
	case v.kind == jArr:
		return "array"
	}
	return "object"
}

func typeError(v *jval, want string) error {
	return fmt.Errorf("JSON value of type %s is not of expected type %s", typeName(v), want)
}

// defaultHandler makes an ordinary call.
type defaultHandler struct{ named bool }

func (h *defaultHandler) prepare(method string, args []string) (*jval, error) {
	var params *jval
	var err error
	if h.named {
		params, err = convertNamed(method, args)
	} else {
		params, err = convertPositional(method, args)
	}
	if err != nil {
		return nil, err
	}
	return requestObject(method, params, 1), nil
}

func (h *defaultHandler) process(reply *jval) (*jval, error) {
	if !reply.isObj() {
		return nil, typeError(reply, "object")
	}
	return reply, nil
}

// generateHandler is -generate's generatetoaddress call; its result names
// the address mined to.
type generateHandler struct{ address string }

func (h *generateHandler) prepare(_ string, args []string) (*jval, error) {
	h.address = args[1]
	params, err := convertPositional("generatetoaddress", args)
	if err != nil {
		return nil, err
	}
	return requestObject("generatetoaddress", params, 1), nil
}

func (h *generateHandler) process(reply *jval) (*jval, error) {
	if !reply.isObj() {
		return nil, typeError(reply, "object")
	}
	if !reply.get("error").isNull() {
		return reply, nil
	}
	res := jObject()
	res.pushKV("address", jString(h.address))
	res.pushKV("blocks", reply.get("result"))
	return replyObject(res, nil), nil
}

// defaultNBlocks is -generate's default block count.
const defaultNBlocks = "1"

// generateArgs checks -generate's arguments (nblocks, maxtries) and puts
// the address in second place, as generatetoaddress takes them.
func generateArgs(address string, args []string) ([]string, error) {
	if len(args) > 2 {
		return nil, errors.New("too many arguments (maximum 2 for nblocks and maxtries)")
	}
	if len(args) == 0 {
		args = []string{defaultNBlocks}
	} else if args[0] == "0" {
		return nil, errors.New("the first argument (number of blocks to generate, default: " + defaultNBlocks + ") must be an integer value greater than zero")
	}
	out := []string{args[0], address}
	return append(out, args[1:]...), nil
}

// addrinfoHandler is -addrinfo: getaddrmaninfo's totals per network.
type addrinfoHandler struct{}

func (addrinfoHandler) prepare(_ string, args []string) (*jval, error) {
	if len(args) > 0 {
		return nil, errors.New("-addrinfo takes no arguments")
	}
	return requestObject("getaddrmaninfo", nil, 1), nil
}

func (addrinfoHandler) process(reply *jval) (*jval, error) {
	if e := reply.get("error"); !e.isNull() {
		if code, _ := e.get("code").int(); code == rpcMethodNotFound {
			return nil, fmt.Errorf("-addrinfo requires bitcoind v26.0 or later which supports getaddrmaninfo RPC. Please upgrade your node or use %s from the same version.", progName)
		}
		return reply, nil
	}
	res := reply.get("result")
	addresses := jObject()
	for i, network := range res.keysOrNil() {
		total := res.vals[i].get("total")
		if network == "all_networks" {
			network = "total"
		}
		addresses.pushKV(network, total)
	}
	out := jObject()
	out.pushKV("addresses_known", addresses)
	return replyObject(out, nil), nil
}

// keysOrNil returns an object's keys.
func (v *jval) keysOrNil() []string {
	if !v.isObj() {
		return nil
	}
	return v.keys
}
