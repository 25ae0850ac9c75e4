package rpc

import (
	"bytes"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// bitcoind answers HTTP/1.1 requests that carry no Host header (clients
// such as Core's test framework pipeline raw requests without one), while
// Go's net/http refuses them with 400 before any handler runs. hostConn
// sits between the socket and net/http and adds an empty-valued Host
// header to each such request head, following the request framing
// (Content-Length and chunked bodies) so that pipelined requests are
// found too. net/http still parses and limits everything itself; deadlines
// and timeouts reach the socket unchanged because every Read is the
// socket's. Once the stream stops looking like HTTP/1.x framing it is
// passed on untouched and net/http reports the error.

// Bounds on what hostConn buffers: a request head (net/http rejects
// longer ones anyway: it reads at most MaxHeaderBytes plus 4096) and one
// chunk-size or trailer line.
const (
	maxHostConnHead = 4*maxHeaderBytes + 4096 + 1024
	maxHostConnLine = 4096
	hostConnReadBuf = 4096
)

// hostConn states.
const (
	hcHead        = iota // collecting a request head
	hcBody               // passing a Content-Length body on
	hcChunkLine          // collecting a chunk-size line
	hcChunkData          // passing chunk data and its CRLF on
	hcTrailer            // collecting trailer lines up to the empty one
	hcPassthrough        // no longer following the framing
)

// hostListener wraps accepted connections in hostConn.
type hostListener struct{ net.Listener }

// Accept returns the next connection, wrapped.
func (l hostListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &hostConn{Conn: c}, nil
}

// hostConn is a server-side connection whose request heads gain a Host
// header when HTTP/1.1 requires one and the client sent none.
type hostConn struct {
	net.Conn
	state  int
	remain int64  // bytes left in the current body or chunk
	pend   []byte // bytes collected for the current head or line
	out    []byte // processed bytes not yet returned
	raw    []byte // read buffer
}

// CloseWrite half-closes the socket when it can, which net/http uses to
// let the client read an error reply before the connection goes.
func (c *hostConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// Read returns the client's bytes with Host headers added.
func (c *hostConn) Read(p []byte) (int, error) {
	for len(c.out) == 0 {
		if c.state == hcPassthrough {
			return c.Conn.Read(p)
		}
		if c.raw == nil {
			c.raw = make([]byte, hostConnReadBuf)
		}
		n, err := c.Conn.Read(c.raw)
		c.feed(c.raw[:n])
		if err != nil {
			if len(c.out) == 0 && len(c.pend) > 0 {
				// The client stopped mid-head: hand over what came so
				// net/http sees (and answers) the truncated request.
				c.out, c.pend = c.pend, nil
			}
			if len(c.out) == 0 {
				return 0, err
			}
			break
		}
	}
	n := copy(p, c.out)
	c.out = c.out[n:]
	if len(c.out) == 0 {
		c.out = nil
	}
	return n, nil
}

// feed runs b through the framing state machine into c.out.
func (c *hostConn) feed(b []byte) {
	for len(b) > 0 {
		switch c.state {
		case hcPassthrough:
			c.out = append(c.out, b...)
			return
		case hcBody, hcChunkData:
			n := int64(len(b))
			if n > c.remain {
				n = c.remain
			}
			c.out = append(c.out, b[:n]...)
			b = b[n:]
			c.remain -= n
			if c.remain == 0 {
				if c.state == hcBody {
					c.state = hcHead
				} else {
					c.state = hcChunkLine
				}
			}
		case hcHead:
			b = c.collectHead(b)
		case hcChunkLine, hcTrailer:
			b = c.collectLine(b)
		}
	}
}

// collectHead gathers a request head; once it is complete it is fixed up
// and the body framing chosen. It returns the bytes after the head.
func (c *hostConn) collectHead(b []byte) []byte {
	// Empty lines between requests are tolerated by net/http; pass
	// them on as they are.
	for len(c.pend) == 0 && len(b) > 0 && (b[0] == '\r' || b[0] == '\n') {
		c.out = append(c.out, b[0])
		b = b[1:]
	}
	if len(b) == 0 {
		return nil
	}
	start := len(c.pend)
	c.pend = append(c.pend, b...)
	// Look for the blank line from a little before the new bytes, as
	// its terminator may straddle two reads.
	from := max(0, start-3)
	end := -1
	if i := bytes.Index(c.pend[from:], []byte("\n\r\n")); i >= 0 {
		end = from + i + 3
	}
	if i := bytes.Index(c.pend[from:], []byte("\n\n")); i >= 0 && (end < 0 || from+i+2 < end) {
		end = from + i + 2
	}
	if end < 0 || end > maxHostConnHead {
		if len(c.pend) > maxHostConnHead {
			c.passthrough()
		}
		return nil
	}
	head, rest := c.pend[:end], c.pend[end:]
	c.pend = nil
	fixed, state, remain := frameRequest(head)
	c.out = append(c.out, fixed...)
	c.state, c.remain = state, remain
	// rest aliases the old pend buffer, which is no longer used.
	return rest
}

// passthrough stops following the framing and hands on what was held.
func (c *hostConn) passthrough() {
	c.state = hcPassthrough
	c.out = append(c.out, c.pend...)
	c.pend = nil
}

// collectLine gathers one chunk-size or trailer line.
func (c *hostConn) collectLine(b []byte) []byte {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		c.pend = append(c.pend, b...)
		if len(c.pend) > maxHostConnLine {
			c.passthrough()
		}
		return nil
	}
	c.pend = append(c.pend, b[:i+1]...)
	line := c.pend
	c.pend = nil
	c.out = append(c.out, line...)
	text := strings.TrimRight(string(line), "\r\n")
	if c.state == hcTrailer {
		if text == "" {
			c.state = hcHead
		}
		return b[i+1:]
	}
	if semi := strings.IndexByte(text, ';'); semi >= 0 {
		text = text[:semi]
	}
	size, err := strconv.ParseInt(strings.TrimSpace(text), 16, 64)
	switch {
	case err != nil || size < 0 || size > 1<<40:
		c.state = hcPassthrough
	case size == 0:
		c.state = hcTrailer
	default:
		c.state, c.remain = hcChunkData, size+2 // the data's CRLF
	}
	return b[i+1:]
}

// restRawTargetHeader carries to the REST handler the request target of
// a REST request that net/http would refuse: bitcoind answers a URI with
// a '%' that starts no escape through the endpoint (with "URI parsing
// failed" or the endpoint's own error), where net/http sends a bare 400
// before any handler runs. hostConn escapes such a '%' for net/http and
// passes the target as the client sent it in this header; a copy the
// client sent itself is dropped.
const restRawTargetHeader = "X-Btcd-Rest-Target"

// escapeStrayPercent returns a REST request target with every '%' that
// starts no escape written as "%25", and true, when net/http refuses the
// target and accepts the result; otherwise the target unchanged and
// false.
func escapeStrayPercent(target string) (string, bool) {
	if !strings.HasPrefix(target, "/rest/") {
		return target, false
	}
	if _, err := url.ParseRequestURI(target); err == nil {
		return target, false
	}
	var b strings.Builder
	for i := 0; i < len(target); i++ {
		if target[i] == '%' && (i+2 >= len(target) || !isHexDigit(target[i+1]) || !isHexDigit(target[i+2])) {
			b.WriteString("%25")
			continue
		}
		b.WriteByte(target[i])
	}
	fixed := b.String()
	if _, err := url.ParseRequestURI(fixed); err != nil {
		return target, false
	}
	return fixed, true
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// frameRequest adds a Host header to an HTTP/1.1 head without one, makes
// a REST target with a stray '%' acceptable to net/http (see
// restRawTargetHeader) and says how the body that follows is framed: the
// state to enter and, for a Content-Length body, its length.
func frameRequest(head []byte) (fixed []byte, state int, remain int64) {
	lineEnd := bytes.IndexByte(head, '\n')
	reqLine := strings.TrimRight(string(head[:lineEnd]), "\r")
	proto := reqLine[strings.LastIndexByte(reqLine, ' ')+1:]
	if !strings.HasPrefix(proto, "HTTP/1.") {
		return head, hcPassthrough, 0
	}
	var target, escaped string
	rewrite := false
	if sp, last := strings.IndexByte(reqLine, ' '), strings.LastIndexByte(reqLine, ' '); sp < last {
		target = reqLine[sp+1 : last]
		if escaped, rewrite = escapeStrayPercent(target); rewrite {
			reqLine = reqLine[:sp+1] + escaped + reqLine[last:]
		}
	}
	haveHost, chunked, upgrade, clientRaw := false, false, false, false
	length := int64(-1)
	for _, l := range strings.Split(string(head[lineEnd+1:]), "\n") {
		name, val, ok := strings.Cut(strings.TrimRight(l, "\r"), ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "host":
			haveHost = true
		case strings.ToLower(restRawTargetHeader):
			clientRaw = true
		case "upgrade":
			upgrade = upgrade || strings.Contains(strings.ToLower(val), "websocket")
		case "transfer-encoding":
			chunked = chunked || strings.Contains(strings.ToLower(val), "chunked")
		case "content-length":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || n < 0 || (length >= 0 && n != length) {
				// net/http refuses it; stop following the stream.
				return head, hcPassthrough, 0
			}
			length = n
		}
	}
	switch {
	case upgrade:
		// After a websocket upgrade the stream is frames, not HTTP.
		state = hcPassthrough
	case chunked:
		state = hcChunkLine
	case length > 0:
		state, remain = hcBody, length
	default:
		state = hcHead
	}
	addHost := !haveHost && proto != "HTTP/1.0"
	if !addHost && !rewrite && !clientRaw {
		return head, state, remain
	}
	fixed = make([]byte, 0, len(head)+len(target)+32)
	if rewrite {
		fixed = append(fixed, reqLine+"\r\n"...)
	} else {
		fixed = append(fixed, head[:lineEnd+1]...)
	}
	if addHost {
		fixed = append(fixed, "Host:\r\n"...)
	}
	if rewrite {
		fixed = append(fixed, restRawTargetHeader+": "+target+"\r\n"...)
	}
	for rest := head[lineEnd+1:]; len(rest) > 0; {
		n := bytes.IndexByte(rest, '\n') + 1
		if n == 0 {
			n = len(rest)
		}
		line := rest[:n]
		rest = rest[n:]
		if name, _, ok := strings.Cut(string(line), ":"); ok && strings.EqualFold(strings.TrimSpace(name), restRawTargetHeader) {
			continue
		}
		fixed = append(fixed, line...)
	}
	return fixed, state, remain
}
