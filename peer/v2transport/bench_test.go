package v2transport

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"testing"
)

// streamConn sends its writes to w.
type streamConn struct {
	net.Conn
	w io.Writer
}

func (c *streamConn) Write(p []byte) (int, error) { return c.w.Write(p) }

// BenchmarkWriteRead encrypts and decrypts one message per iteration
// (the session pair shares keys, as the two ends of a connection).
func BenchmarkWriteRead(b *testing.B) {
	for _, size := range []int{100, 1 << 16, 1 << 20} {
		b.Run(byteSize(size), func(b *testing.B) {
			var wire bytes.Buffer
			keys := fixedKeys()
			w := newSession(&streamConn{w: &wire}, nil, keys, &Config{Initiator: true})
			r := newSession(nil, bufio.NewReaderSize(&wire, 4096), keys, &Config{
				GetBuffer: func(n int) *[]byte { b := make([]byte, n); return &b },
			})
			pool := make([]byte, 0, HeaderLen+size+1+TagLen)
			r.getBuf = func(n int) *[]byte { p := pool[:n]; return &p }
			payload := make([]byte, size)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := w.WriteMessage("block", payload); err != nil {
					b.Fatal(err)
				}
				if _, _, _, err := r.ReadMessageBuf(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return "1MiB"
	case n >= 1<<10:
		return "64KiB"
	}
	return "100B"
}

// BenchmarkHandshake runs both sides of a handshake over a pipe.
func BenchmarkHandshake(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		x, y := net.Pipe()
		done := make(chan error, 1)
		go func() {
			_, err := NewSession(y, &Config{Net: testNet})
			done <- err
		}()
		if _, err := NewSession(x, &Config{Net: testNet, Initiator: true}); err != nil {
			b.Fatal(err)
		}
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		x.Close()
		y.Close()
	}
}
