package i2p

import (
	"strings"
	"testing"
)

// FuzzParseReply feeds arbitrary bridge lines to the reply parser: it
// must never panic, and what it accepts must have a two-word topic and
// named arguments.
func FuzzParseReply(f *testing.F) {
	f.Add("HELLO REPLY RESULT=OK VERSION=3.1")
	f.Add(`STREAM STATUS RESULT=I2P_ERROR MESSAGE="no tunnels"`)
	f.Fuzz(func(t *testing.T, line string) {
		r, err := ParseReply(line)
		if err != nil {
			return
		}
		if strings.Count(r.Topic, " ") != 1 {
			t.Fatalf("topic %q", r.Topic)
		}
		for k := range r.Args {
			if k == "" {
				t.Fatal("empty key")
			}
		}
	})
}
