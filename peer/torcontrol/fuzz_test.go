package torcontrol

import (
	"testing"
)

// FuzzReadReply feeds arbitrary bytes from the control port to the
// reply reader and the argument parser: no panic, and every reply read
// keeps to the limits.
func FuzzReadReply(f *testing.F) {
	f.Add([]byte("250-PROTOCOLINFO 1\r\n250-AUTH METHODS=NULL COOKIEFILE=\"/x\"\r\n250 OK\r\n"))
	f.Add([]byte("250+data\r\n..x\r\n.\r\n250 OK\r\n"))
	f.Add([]byte("250 AUTHCHALLENGE SERVERHASH=00 SERVERNONCE=\"\\1\\\"\"\r\n"))
	f.Add([]byte("650 STATUS_CLIENT NOTICE CIRCUIT_ESTABLISHED\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c := replyConn(string(b))
		for range 4 {
			rep, err := c.readReply()
			if err != nil {
				return
			}
			if len(rep.Lines) > MaxReplyLines || rep.Code < 100 || rep.Code > 999 {
				t.Fatalf("reply %+v", rep)
			}
			for _, l := range rep.Lines {
				splitArgs(l)
			}
		}
	})
}
