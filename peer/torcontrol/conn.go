package torcontrol

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// Limits on what the control port may send.
const (
	// MaxLineLen bounds one reply line, CRLF included. Replies to the
	// commands used here are well under a kilobyte.
	MaxLineLen = 16 << 10
	// MaxReplyLines bounds the lines of one reply.
	MaxReplyLines = 256
)

// DefaultTimeout bounds each command's round trip.
const DefaultTimeout = 30 * time.Second

// ErrProtocol means the control port sent something that is not a
// well-formed reply, or one over the limits.
var ErrProtocol = errors.New("tor control protocol error")

// ReplyError is a reply whose status is not 250 (OK).
type ReplyError struct {
	Cmd  string // the command's first word
	Code int
	Text string
}

func (e *ReplyError) Error() string {
	return fmt.Sprintf("tor control: %s: %d %s", e.Cmd, e.Code, e.Text)
}

// Reply is one reply: its status code and its lines, without the code
// and separator. A data line ("+") is followed by its data lines, with
// the dot-stuffing undone.
type Reply struct {
	Code  int
	Lines []string
}

// Conn is a connection to a Tor control port. It is not safe for
// concurrent commands.
type Conn struct {
	c       net.Conn
	r       *bufio.Reader
	Timeout time.Duration // per command; zero means DefaultTimeout
}

// Dial connects to the control port at addr (host:port).
func Dial(ctx context.Context, addr string) (*Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return NewConn(c), nil
}

// NewConn wraps an open connection to a control port.
func NewConn(c net.Conn) *Conn {
	return &Conn{c: c, r: bufio.NewReaderSize(c, 4096)}
}

// Close closes the connection; Tor then removes the onion services it
// created.
func (c *Conn) Close() error { return c.c.Close() }

// Command sends one command line and reads its reply; a status other
// than 250 is a *ReplyError.
func (c *Conn) Command(line string) (Reply, error) {
	if strings.ContainsAny(line, "\r\n") {
		return Reply{}, fmt.Errorf("tor control: command contains a line break")
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	c.c.SetDeadline(time.Now().Add(timeout))
	defer c.c.SetDeadline(time.Time{})
	if _, err := io.WriteString(c.c, line+"\r\n"); err != nil {
		return Reply{}, err
	}
	rep, err := c.readReply()
	if err != nil {
		return Reply{}, err
	}
	if rep.Code != 250 {
		cmd, _, _ := strings.Cut(line, " ")
		return rep, &ReplyError{Cmd: cmd, Code: rep.Code, Text: strings.Join(rep.Lines, " ")}
	}
	return rep, nil
}

// Wait blocks until the connection ends (Tor closed it, or Close was
// called) and returns why. Asynchronous events, which are not asked
// for, are read and dropped. No command may run while Wait does.
func (c *Conn) Wait() error {
	for {
		if _, err := c.readReply(); err != nil {
			return err
		}
	}
}

// readLine reads one line of at most MaxLineLen bytes, without its line
// ending.
func (c *Conn) readLine() (string, error) {
	var buf []byte
	for {
		frag, err := c.r.ReadSlice('\n')
		if len(buf)+len(frag) > MaxLineLen {
			return "", fmt.Errorf("%w: line longer than %d bytes", ErrProtocol, MaxLineLen)
		}
		buf = append(buf, frag...)
		switch {
		case err == nil:
			return string(bytes.TrimRight(buf, "\r\n")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return "", err
		}
	}
}

// readReply reads lines "CODE-text" and "CODE+data" up to the final
// "CODE text"; every line must carry the same code.
func (c *Conn) readReply() (Reply, error) {
	var rep Reply
	for n := 0; ; n++ {
		if n >= MaxReplyLines {
			return Reply{}, fmt.Errorf("%w: reply longer than %d lines", ErrProtocol, MaxReplyLines)
		}
		line, err := c.readLine()
		if err != nil {
			return Reply{}, err
		}
		code, sep, text, err := splitReplyLine(line)
		if err != nil {
			return Reply{}, err
		}
		if n > 0 && code != rep.Code {
			return Reply{}, fmt.Errorf("%w: status %d within a reply of %d", ErrProtocol, code, rep.Code)
		}
		rep.Code = code
		switch sep {
		case ' ':
			rep.Lines = append(rep.Lines, text)
			return rep, nil
		case '-':
			rep.Lines = append(rep.Lines, text)
		case '+':
			// Data follows up to a line holding a single dot; a
			// leading dot on a data line is doubled.
			data := []string{text}
			for {
				if n++; n >= MaxReplyLines {
					return Reply{}, fmt.Errorf("%w: reply longer than %d lines", ErrProtocol, MaxReplyLines)
				}
				d, err := c.readLine()
				if err != nil {
					return Reply{}, err
				}
				if d == "." {
					break
				}
				data = append(data, strings.TrimPrefix(d, "."))
			}
			rep.Lines = append(rep.Lines, strings.Join(data, "\n"))
		}
	}
}

// splitReplyLine splits "250-text" into its code, separator and text.
func splitReplyLine(line string) (code int, sep byte, text string, err error) {
	if len(line) < 4 {
		return 0, 0, "", fmt.Errorf("%w: short reply line %q", ErrProtocol, line)
	}
	code, err = strconv.Atoi(line[:3])
	if err != nil || code < 100 || code > 999 {
		return 0, 0, "", fmt.Errorf("%w: bad status in %q", ErrProtocol, line)
	}
	sep = line[3]
	if sep != ' ' && sep != '-' && sep != '+' {
		return 0, 0, "", fmt.Errorf("%w: bad separator in %q", ErrProtocol, line)
	}
	return code, sep, line[4:], nil
}
