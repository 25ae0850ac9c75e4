package rpc

import (
	"encoding/binary"
	"fmt"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/btcnode/btcd/wire"
)

// This file and rest_exec.go serve bitcoind's REST interface (-rest): GET
// /rest/... on the JSON-RPC listeners, without authentication, answering
// .bin, .hex or .json. Parsing (here) is pure and fuzzed; execution
// (rest_exec.go) reuses the JSON-RPC result builders so JSON bodies have
// the RPC results' shapes. Errors are plain text with CRLF, with bitcoind's
// status codes and messages.

// REST limits, as bitcoind's rest.cpp.
const (
	// MaxRESTOutpoints bounds the outpoints of one getutxos request.
	MaxRESTOutpoints = 15
	// MaxRESTHeaders bounds the count of a headers or blockfilterheaders
	// request.
	MaxRESTHeaders = 2000
	// restDefaultCount is the headers count when the query gives none.
	restDefaultCount = "5"
	// restMempoolHeight is the height getutxos reports for an output of
	// a mempool transaction (bitcoind's MEMPOOL_HEIGHT).
	restMempoolHeight = 0x7fffffff
	// outPointSize is a serialized outpoint: txid and index.
	outPointSize = wire.HashSize + 4
)

// restFormat is the response format chosen by the URI's extension.
type restFormat uint8

const (
	restUndef restFormat = iota // no or unknown extension
	restBin                     // .bin: raw bytes
	restHex                     // .hex: the bytes in hex and a newline
	restJSON                    // .json
)

// restEndpoint names a REST resource.
type restEndpoint uint8

const (
	epNone restEndpoint = iota
	epTx
	epBlock
	epBlockNoTx
	epBlockFilter
	epFilterHeaders
	epChainInfo
	epMempool
	epHeaders
	epGetUTXOs
	epDeployment
	epBlockHashByHeight
	epSpentTxOuts
)

// restRoutes are matched in order against the request URI's start (the
// order matters: notxdetails before block), as bitcoind registers them.
var restRoutes = [...]struct {
	prefix string
	ep     restEndpoint
}{
	{"/rest/tx/", epTx},
	{"/rest/block/notxdetails/", epBlockNoTx},
	{"/rest/block/", epBlock},
	{"/rest/blockfilter/", epBlockFilter},
	{"/rest/blockfilterheaders/", epFilterHeaders},
	{"/rest/chaininfo", epChainInfo},
	{"/rest/mempool/", epMempool},
	{"/rest/headers/", epHeaders},
	{"/rest/getutxos", epGetUTXOs},
	{"/rest/deploymentinfo/", epDeployment},
	{"/rest/deploymentinfo", epDeployment},
	{"/rest/blockhashbyheight/", epBlockHashByHeight},
	{"/rest/spenttxouts/", epSpentTxOuts}, // rest_spenttxouts.go
}

// restRequest is a parsed REST request: everything bitcoind checks before
// it looks at chain state. The executor (rest_exec.go) does the lookups and
// the remaining checks in bitcoind's order, so that for example an unknown
// block is reported before an unknown extension.
type restRequest struct {
	ep     restEndpoint
	format restFormat
	// param is the URI part after the prefix, without query and
	// extension (echoed in error messages).
	param string
	// hash is the tx, block or start block; hasHash is false for
	// deploymentinfo at the tip.
	hash    wire.Hash
	hasHash bool
	// count is the headers/blockfilterheaders count.
	count int
	// height is blockhashbyheight's height.
	height int32
	// filterType is blockfilter(headers)' type name.
	filterType string
	// info is set for mempool/info, else mempool/contents.
	info                bool
	verbose, mempoolSeq bool
	// checkMempool and outpoints are getutxos' query.
	checkMempool bool
	outpoints    []wire.OutPoint
}

// restReply is an HTTP answer: status, content type and body.
type restReply struct {
	status      int
	contentType string
	body        []byte
}

// restErr is bitcoind's plain-text REST error: the message and CRLF.
func restErr(status int, msg string) restReply {
	return restReply{status: status, contentType: "text/plain", body: []byte(msg + "\r\n")}
}

// restNoRoute is the empty 404 bitcoind's HTTP server sends when no handler
// matches the path.
var restNoRoute = restReply{status: http.StatusNotFound}

// errFormatAll and errFormatJSON are the unknown-extension errors.
func errFormatAll() restReply {
	return restErr(http.StatusNotFound, "output format not found (available: .bin, .hex, .json)")
}

func errFormatJSON() restReply {
	return restErr(http.StatusNotFound, "output format not found (available: json)")
}

// errQueryParse is bitcoind's message when the query string cannot be
// parsed.
const errQueryParse = "URI parsing failed, it likely contained RFC 3986 invalid characters"

// parseDataFormat removes the query string and a known extension from a
// URI part, as bitcoind's ParseDataFormat: an unknown extension is left in
// place and gives restUndef.
func parseDataFormat(part string) (string, restFormat) {
	if i := strings.LastIndexByte(part, '?'); i >= 0 {
		part = part[:i]
	}
	dot := strings.LastIndexByte(part, '.')
	if dot < 0 {
		return part, restUndef
	}
	switch part[dot+1:] {
	case "bin":
		return part[:dot], restBin
	case "hex":
		return part[:dot], restHex
	case "json":
		return part[:dot], restJSON
	}
	return part, restUndef
}

// parseRESTHash parses a 64-digit hex hash (either case), as uint256's
// FromHex: no shorter forms.
func parseRESTHash(s string) (wire.Hash, bool) {
	if len(s) != 2*wire.HashSize || !isHex(s) {
		return wire.Hash{}, false
	}
	h, err := wire.NewHashFromStr(s)
	return h, err == nil
}

// parseDecimal parses an unsigned decimal of ASCII digits only (no sign,
// no spaces) that fits bits, as bitcoind's ToIntegral for unsigned types.
func parseDecimal(s string, bits int) (uint64, bool) {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, bits)
	return v, err == nil
}

// parseInt32 parses an optionally negative decimal int32, as bitcoind's
// ToIntegral<int32_t> (no '+', no spaces).
func parseInt32(s string) (int32, bool) {
	neg := strings.HasPrefix(s, "-")
	digits := s
	if neg {
		digits = s[1:]
	}
	if digits == "" || digits[0] < '0' || digits[0] > '9' {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 32)
	return int32(v), err == nil
}

// sanitizeURI keeps the characters bitcoind's SAFE_CHARS_URI allows, for
// echoing user input in an error.
func sanitizeURI(s string) string {
	const safe = "!*'();:@&=+$,/?#[]-_.~%"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(safe, c) >= 0 {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// queryParam returns the first value of key in uri's query string, or def
// when absent; ok is false when the query cannot be parsed. As bitcoind,
// which parses the whole URI to read a parameter, it also fails when the
// path breaks RFC 3986.
func queryParam(uri, key, def string) (string, bool) {
	if !validURIChars(uri) {
		return "", false
	}
	i := strings.IndexByte(uri, '?')
	if i < 0 {
		return def, true
	}
	vals, err := url.ParseQuery(uri[i+1:])
	if err != nil {
		return "", false
	}
	if v, ok := vals[key]; ok && len(v) > 0 {
		return v[0], true
	}
	return def, true
}

// validURIChars reports whether uri (path, query, fragment) holds only
// the characters RFC 3986 allows in each part, every '%' starting a
// two-digit escape.
func validURIChars(uri string) bool {
	const other = "-._~!$&'()*+,;=:@/"
	fragment := false
	for i := 0; i < len(uri); i++ {
		c := uri[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(other, c) >= 0:
		case c == '?':
			// Ends the path; allowed in the query and the fragment.
		case c == '#' && !fragment:
			fragment = true
		case c == '%' && i+2 < len(uri) && isHexDigit(uri[i+1]) && isHexDigit(uri[i+2]):
			i += 2
		default:
			return false
		}
	}
	return true
}

// parseREST parses a REST request URI (path and query, undecoded) and body
// without touching chain state. A non-nil reply is the answer to send.
func parseREST(uri string, body []byte) (*restRequest, *restReply) {
	req := &restRequest{}
	var part string
	for _, r := range restRoutes {
		if strings.HasPrefix(uri, r.prefix) {
			req.ep, part = r.ep, uri[len(r.prefix):]
			break
		}
	}
	fail := func(r restReply) (*restRequest, *restReply) { return nil, &r }
	if req.ep == epNone {
		return fail(restNoRoute)
	}
	req.param, req.format = parseDataFormat(part)
	switch req.ep {
	case epTx, epBlock, epBlockNoTx:
		h, ok := parseRESTHash(req.param)
		if !ok {
			return fail(restErr(http.StatusBadRequest, "Invalid hash: "+req.param))
		}
		req.hash, req.hasHash = h, true
	case epHeaders:
		return parseHeaders(req, uri)
	case epFilterHeaders:
		return parseFilterHeaders(req, uri)
	case epBlockFilter:
		parts := strings.Split(req.param, "/")
		if len(parts) != 2 {
			return fail(restErr(http.StatusBadRequest, "Invalid URI format. Expected /rest/blockfilter/<filtertype>/<blockhash>"))
		}
		h, ok := parseRESTHash(parts[1])
		if !ok {
			return fail(restErr(http.StatusBadRequest, "Invalid hash: "+parts[1]))
		}
		if parts[0] != "basic" {
			return fail(restErr(http.StatusBadRequest, "Unknown filtertype "+parts[0]))
		}
		req.hash, req.hasHash, req.filterType, req.param = h, true, parts[0], parts[1]
	case epChainInfo:
		if req.format != restJSON {
			return fail(errFormatJSON())
		}
	case epDeployment:
		if req.format != restJSON {
			return fail(errFormatJSON())
		}
		if req.param != "" {
			h, ok := parseRESTHash(req.param)
			if !ok {
				return fail(restErr(http.StatusBadRequest, "Invalid hash: "+req.param))
			}
			req.hash, req.hasHash = h, true
		}
	case epBlockHashByHeight:
		n, ok := parseInt32(req.param)
		if !ok || n < 0 {
			return fail(restErr(http.StatusBadRequest, "Invalid height: "+sanitizeURI(req.param)))
		}
		req.height = n
	case epMempool:
		return parseMempool(req, uri)
	case epGetUTXOs:
		return parseGetUTXOs(req, body)
	case epSpentTxOuts:
		return parseSpentTxOuts(req)
	}
	return req, nil
}

// parseCount checks a headers count: 1 to MaxRESTHeaders.
func parseCount(raw string) (int, *restReply) {
	n, ok := parseDecimal(raw, 64)
	if !ok || n < 1 || n > MaxRESTHeaders {
		r := restErr(http.StatusBadRequest, fmt.Sprintf("Header count is invalid or out of acceptable range (1-%d): %s", MaxRESTHeaders, raw))
		return 0, &r
	}
	return int(n), nil
}

// parseHeaders handles /rest/headers/<hash>.<ext>?count=<n> and the
// deprecated /rest/headers/<n>/<hash>.<ext>.
func parseHeaders(req *restRequest, uri string) (*restRequest, *restReply) {
	n, h, raw, rerr := parseCountHash(strings.Split(req.param, "/"), 0, uri,
		"Invalid URI format. Expected /rest/headers/<hash>.<ext>?count=<count>")
	if rerr != nil {
		return nil, rerr
	}
	req.count, req.hash, req.hasHash, req.param = n, h, true, raw
	return req, nil
}

// parseFilterHeaders handles /rest/blockfilterheaders/<type>/<hash>.<ext>
// ?count=<n> and the deprecated /rest/blockfilterheaders/<type>/<n>/<hash>.
func parseFilterHeaders(req *restRequest, uri string) (*restRequest, *restReply) {
	parts := strings.Split(req.param, "/")
	n, h, raw, rerr := parseCountHash(parts, 1, uri,
		"Invalid URI format. Expected /rest/blockfilterheaders/<filtertype>/<blockhash>.<ext>?count=<count>")
	if rerr != nil {
		return nil, rerr
	}
	if parts[0] != "basic" {
		r := restErr(http.StatusBadRequest, "Unknown filtertype "+parts[0])
		return nil, &r
	}
	req.count, req.hash, req.hasHash, req.filterType, req.param = n, h, true, parts[0], raw
	return req, nil
}

// parseCountHash reads the count and hash of the headers endpoints from
// parts[skip:]: either <hash> with ?count=<n> (default 5) or the
// deprecated <n>/<hash>. usage is the error for any other shape.
func parseCountHash(parts []string, skip int, uri, usage string) (int, wire.Hash, string, *restReply) {
	var rawCount, rawHash string
	switch len(parts) - skip {
	case 2:
		rawCount, rawHash = parts[skip], parts[skip+1]
	case 1:
		rawHash = parts[skip]
		var ok bool
		if rawCount, ok = queryParam(uri, "count", restDefaultCount); !ok {
			r := restErr(http.StatusBadRequest, errQueryParse)
			return 0, wire.Hash{}, "", &r
		}
	default:
		r := restErr(http.StatusBadRequest, usage)
		return 0, wire.Hash{}, "", &r
	}
	n, rerr := parseCount(rawCount)
	if rerr != nil {
		return 0, wire.Hash{}, "", rerr
	}
	h, ok := parseRESTHash(rawHash)
	if !ok {
		r := restErr(http.StatusBadRequest, "Invalid hash: "+rawHash)
		return 0, wire.Hash{}, "", &r
	}
	return n, h, rawHash, nil
}

// parseMempool handles /rest/mempool/info.json and
// /rest/mempool/contents.json?verbose=<bool>&mempool_sequence=<bool>.
func parseMempool(req *restRequest, uri string) (*restRequest, *restReply) {
	fail := func(r restReply) (*restRequest, *restReply) { return nil, &r }
	if req.param != "contents" && req.param != "info" {
		return fail(restErr(http.StatusBadRequest, "Invalid URI format. Expected /rest/mempool/<info|contents>.json"))
	}
	if req.format != restJSON {
		return fail(errFormatJSON())
	}
	if req.param == "info" {
		req.info = true
		return req, nil
	}
	verbose, ok := queryParam(uri, "verbose", "true")
	if !ok {
		return fail(restErr(http.StatusBadRequest, errQueryParse))
	}
	if verbose != "true" && verbose != "false" {
		return fail(restErr(http.StatusBadRequest, `The "verbose" query parameter must be either "true" or "false".`))
	}
	seq, ok := queryParam(uri, "mempool_sequence", "false")
	if !ok {
		return fail(restErr(http.StatusBadRequest, errQueryParse))
	}
	if seq != "true" && seq != "false" {
		return fail(restErr(http.StatusBadRequest, `The "mempool_sequence" query parameter must be either "true" or "false".`))
	}
	req.verbose, req.mempoolSeq = verbose == "true", seq == "true"
	if req.verbose && req.mempoolSeq {
		return fail(restErr(http.StatusBadRequest, `Verbose results cannot contain mempool sequence values. (hint: set "verbose=false")`))
	}
	return req, nil
}

// parseGetUTXOs handles /rest/getutxos[/checkmempool]/<txid>-<n>/... with
// outpoints in the URI, or (bin and hex) in the body as BIP64's request: a
// checkmempool byte and a CompactSize-counted outpoint vector.
func parseGetUTXOs(req *restRequest, body []byte) (*restRequest, *restReply) {
	fail := func(status int, msg string) (*restRequest, *restReply) {
		r := restErr(status, msg)
		return nil, &r
	}
	var parts []string
	if len(req.param) > 1 {
		// bitcoind skips the first character unseen (normally '/').
		parts = strings.Split(req.param[1:], "/")
	}
	if len(body) == 0 && len(parts) == 0 {
		return fail(http.StatusBadRequest, "Error: empty request")
	}
	fromURI := false
	if len(parts) > 0 {
		if parts[0] == "checkmempool" {
			req.checkMempool = true
			parts = parts[1:]
		}
		if len(parts) > MaxRESTOutpoints {
			// Still every part must parse, as bitcoind parses them all
			// before counting; the count is bounded by the URI length.
			for _, p := range parts {
				if _, ok := parseOutpointPart(p); !ok {
					return fail(http.StatusBadRequest, "Parse error")
				}
			}
		} else {
			req.outpoints = make([]wire.OutPoint, 0, len(parts))
			for _, p := range parts {
				op, ok := parseOutpointPart(p)
				if !ok {
					return fail(http.StatusBadRequest, "Parse error")
				}
				req.outpoints = append(req.outpoints, op)
			}
		}
		if len(parts) == 0 {
			return fail(http.StatusBadRequest, "Error: empty request")
		}
		fromURI = true
	}
	tried := len(parts)
	switch req.format {
	case restHex, restBin:
		if req.format == restHex {
			body = parseHexBody(body)
		}
		if len(body) > 0 {
			if fromURI {
				return fail(http.StatusBadRequest, "Combination of URI scheme inputs and raw post data is not allowed")
			}
			var ok bool
			if tried, ok = decodeUTXORequest(req, body); !ok {
				return fail(http.StatusBadRequest, "Parse error")
			}
		}
	case restJSON:
		if !fromURI {
			return fail(http.StatusBadRequest, "Error: empty request")
		}
	default:
		r := errFormatAll()
		return nil, &r
	}
	if tried > MaxRESTOutpoints {
		return fail(http.StatusBadRequest, fmt.Sprintf("Error: max outpoints exceeded (max: %d, tried: %d)", MaxRESTOutpoints, tried))
	}
	return req, nil
}

// parseOutpointPart parses "<txid>-<n>".
func parseOutpointPart(p string) (wire.OutPoint, bool) {
	txid, idx, ok := strings.Cut(p, "-")
	if !ok || strings.IndexByte(idx, '-') >= 0 {
		return wire.OutPoint{}, false
	}
	h, ok := parseRESTHash(txid)
	if !ok {
		return wire.OutPoint{}, false
	}
	n, ok := parseDecimal(idx, 32)
	if !ok {
		return wire.OutPoint{}, false
	}
	return wire.OutPoint{Hash: h, Index: uint32(n)}, true
}

// parseHexBody decodes a hex body as bitcoind's ParseHex: whitespace
// before each byte is skipped, and anything malformed gives no bytes.
func parseHexBody(b []byte) []byte {
	out := make([]byte, 0, len(b)/2)
	for i := 0; ; {
		for i < len(b) && isSpaceByte(b[i]) {
			i++
		}
		if i == len(b) {
			return out
		}
		if i+1 >= len(b) {
			return nil
		}
		hi, lo := hexVal(b[i]), hexVal(b[i+1])
		if hi < 0 || lo < 0 {
			return nil
		}
		out = append(out, byte(hi<<4|lo))
		i += 2
	}
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// maxCompactSize is bitcoind's MAX_SIZE, the largest vector length a
// CompactSize may announce.
const maxCompactSize = 0x02000000

// decodeUTXORequest decodes BIP64's binary request into req and returns
// the number of outpoints it announces. Outpoints are only stored when
// there are at most MaxRESTOutpoints; the count is checked against the
// bytes present before anything is allocated. Trailing bytes are ignored,
// as bitcoind does.
func decodeUTXORequest(req *restRequest, b []byte) (int, bool) {
	if len(b) < 1 {
		return 0, false
	}
	req.checkMempool = b[0] != 0
	n, used, err := wire.ReadVarInt(b[1:])
	if err != nil || n > maxCompactSize {
		return 0, false
	}
	rest := b[1+used:]
	if n > uint64(len(rest)/outPointSize) {
		return 0, false
	}
	if n > MaxRESTOutpoints {
		return int(n), true
	}
	req.outpoints = make([]wire.OutPoint, n)
	for i := range req.outpoints {
		o := rest[i*outPointSize:]
		copy(req.outpoints[i].Hash[:], o[:wire.HashSize])
		req.outpoints[i].Index = binary.LittleEndian.Uint32(o[wire.HashSize:])
	}
	return int(n), true
}

// isRESTPath reports a request for the REST interface (served, or refused
// with 404 when REST is off, never treated as JSON-RPC).
func isRESTPath(r *http.Request) bool {
	return strings.HasPrefix(r.URL.EscapedPath(), "/rest/")
}

// serveREST answers a REST request: unauthenticated, as bitcoind, but
// under the JSON-RPC server's concurrency, body-size and time limits.
func (s *Server) serveREST(w http.ResponseWriter, r *http.Request) {
	if !s.cfg.REST {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut:
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, ok := s.admit(w, r, "REST", func() {
		writeREST(w, restErr(http.StatusServiceUnavailable, "Work queue depth exceeded"))
	})
	if !ok {
		return
	}
	// The raw request target keeps bitcoind's view of the URI: not
	// percent-decoded.
	uri := r.RequestURI
	if raw := r.Header.Get(restRawTargetHeader); raw != "" && r.TLS == nil {
		// Set by hostConn, which drops a client's own (hostconn.go);
		// TLS connections do not pass through it.
		uri = raw
	} else if !strings.HasPrefix(uri, "/") {
		uri = r.URL.RequestURI()
	}
	writeREST(w, answerWithin(s, func() restReply { return s.handleREST(uri, body) },
		func(p any) restReply {
			log.Errorf("REST: panic handling %s: %v\n%s", uri, p, debug.Stack())
			return restErr(http.StatusInternalServerError, "Internal error")
		}, restErr(http.StatusInternalServerError, "Request timed out")))
}

func writeREST(w http.ResponseWriter, rep restReply) {
	if rep.contentType != "" {
		w.Header().Set("Content-Type", rep.contentType)
	}
	w.WriteHeader(rep.status)
	w.Write(rep.body)
}

// handleREST parses and answers one REST request.
func (s *Server) handleREST(uri string, body []byte) restReply {
	req, rep := parseREST(uri, body)
	if rep != nil {
		return *rep
	}
	return s.execREST(req)
}
