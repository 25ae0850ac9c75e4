package rpc

import (
	"bytes"
	"encoding/json"
)

// jsonVersion is the JSON-RPC dialect of one request: bitcoind answers a
// request without "jsonrpc" (or with "1.0") in the legacy 1.0 style and a
// "2.0" request strictly per the 2.0 specification.
type jsonVersion uint8

const (
	jsonV1 jsonVersion = iota
	jsonV2
)

// request is one parsed JSON-RPC call.
type request struct {
	Method  string
	Params  json.RawMessage // a JSON array or object; nil when absent or null
	ID      json.RawMessage // nil when the "id" member is absent
	Version jsonVersion
}

// isNotification reports a JSON-RPC 2.0 call without an id, which gets no
// reply. (A 1.0 call without id is answered, without an "id" member.)
func (r *request) isNotification() bool { return r.Version == jsonV2 && r.ID == nil }

// replyID returns the id to echo: the request's id, nil (no "id" member)
// for a request object without one, and null when there was no request
// object at all, as bitcoind (v28+) answers.
func (r *request) replyID() json.RawMessage {
	if r == nil {
		return json.RawMessage("null")
	}
	return r.ID
}

// jsonKind returns the JSON type of a raw value by its first byte, with
// bitcoind's type names ("null", "object", "array", "string", "number",
// "boolean").
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return "null"
	}
	switch raw[0] {
	case 'n':
		return "null"
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	}
	return "number"
}

// isNull reports an absent or JSON null value.
func isNull(raw json.RawMessage) bool { return jsonKind(raw) == "null" }

// parseBody splits an HTTP body into one request object or a batch. A body
// that is not JSON is a parse error; valid JSON that is neither an object
// nor an array is bitcoind's "Top-level object parse error". maxBatch
// bounds the batch length before any element is decoded further.
func parseBody(body []byte, maxBatch int) (single json.RawMessage, batch []json.RawMessage, isBatch bool, rerr *Error) {
	if !json.Valid(body) {
		return nil, nil, false, NewError(ErrParse, "Parse error")
	}
	switch jsonKind(body) {
	case "object":
		return json.RawMessage(bytes.TrimSpace(body)), nil, false, nil
	case "array":
		// Count elements first so a huge batch is refused before its
		// elements are materialized.
		dec := json.NewDecoder(bytes.NewReader(body))
		if _, err := dec.Token(); err != nil {
			return nil, nil, true, NewError(ErrParse, "Parse error")
		}
		for dec.More() {
			if len(batch) >= maxBatch {
				return nil, nil, true, Errorf(ErrInvalidRequest, "Batch too large (more than %d requests)", maxBatch)
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, nil, true, NewError(ErrParse, "Parse error")
			}
			batch = append(batch, raw)
		}
		return nil, batch, true, nil
	}
	return nil, nil, false, NewError(ErrParse, "Top-level object parse error")
}

// parseRequest parses one request object with bitcoind's checks and
// messages. The returned request is non-nil even on error so the reply can
// carry the id and use the request's JSON-RPC version.
func parseRequest(raw json.RawMessage) (*request, *Error) {
	req := &request{}
	if jsonKind(raw) != "object" {
		return req, NewError(ErrInvalidRequest, "Invalid Request object")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return req, NewError(ErrInvalidRequest, "Invalid Request object")
	}
	if id, ok := obj["id"]; ok {
		req.ID = id
	}
	if v, ok := obj["jsonrpc"]; ok && !isNull(v) {
		var s string
		if jsonKind(v) != "string" || json.Unmarshal(v, &s) != nil {
			return req, NewError(ErrInvalidRequest, "jsonrpc field must be a string")
		}
		switch s {
		case "1.0":
		case "2.0":
			req.Version = jsonV2
		default:
			return req, NewError(ErrInvalidRequest, "JSON-RPC version not supported")
		}
	}
	m, ok := obj["method"]
	if !ok || isNull(m) {
		return req, NewError(ErrInvalidRequest, "Missing method")
	}
	if jsonKind(m) != "string" || json.Unmarshal(m, &req.Method) != nil {
		return req, NewError(ErrInvalidRequest, "Method must be a string")
	}
	p := obj["params"]
	switch jsonKind(p) {
	case "null":
	case "array", "object":
		req.Params = p
	default:
		return req, NewError(ErrInvalidRequest, "Params must be an array or object")
	}
	return req, nil
}

// encodeJSON marshals v without HTML escaping, as bitcoind writes JSON.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// appendReply appends one reply object. A 1.0 reply always carries
// "result" and "error"; a 2.0 reply carries exactly one of result or
// error. Either carries "id" unless id is nil.
func appendReply(dst []byte, version jsonVersion, id json.RawMessage, result json.RawMessage, rerr *Error) []byte {
	if result == nil {
		result = json.RawMessage("null")
	}
	if version == jsonV2 {
		dst = append(dst, `{"jsonrpc":"2.0",`...)
		if rerr != nil {
			e, _ := encodeJSON(rerr)
			dst = append(dst, `"error":`...)
			dst = append(dst, e...)
		} else {
			dst = append(dst, `"result":`...)
			dst = append(dst, result...)
		}
		return appendID(dst, id)
	}
	dst = append(dst, `{"result":`...)
	if rerr != nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, result...)
	}
	dst = append(dst, `,"error":`...)
	if rerr != nil {
		e, _ := encodeJSON(rerr)
		dst = append(dst, e...)
	} else {
		dst = append(dst, "null"...)
	}
	return appendID(dst, id)
}

// appendID closes a reply object, with its "id" member unless id is nil.
func appendID(dst []byte, id json.RawMessage) []byte {
	if id != nil {
		dst = append(dst, `,"id":`...)
		dst = append(dst, id...)
	}
	return append(dst, '}')
}
