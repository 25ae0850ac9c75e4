package i2p

import (
	"bufio"
	"crypto/rand"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// newDest returns a random private destination and its public part, in
// the layout real routers use (a 4-byte key certificate).
func newDest() (priv, pub []byte) {
	pub = make([]byte, destFixedLen+4)
	rand.Read(pub)
	pub[destFixedLen-3] = 5
	binary.BigEndian.PutUint16(pub[destFixedLen-2:], 4)
	priv = append(append([]byte(nil), pub...), make([]byte, 64)...)
	rand.Read(priv[len(pub):])
	return priv, pub
}

// fakeSAM is a SAM 3.1 bridge on loopback: it keeps sessions, answers
// naming lookups for the peers it knows, echoes the bytes of outbound
// streams and delivers inbound ones on demand.
type fakeSAM struct {
	t *testing.T
	l net.Listener

	// override, when set, answers a line in place of the protocol; it
	// returns the raw bytes to send (nil: handle normally) and whether
	// to close the connection afterwards.
	override func(line string) ([]byte, bool)

	mu        sync.Mutex
	peers     map[string][]byte // b32 name -> public destination
	sessions  map[string]net.Conn
	generated [][]byte
	creates   []string // SESSION CREATE DESTINATION= values
	incoming  chan []byte
	conns     []net.Conn
}

func newFakeSAM(t *testing.T) *fakeSAM {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeSAM{t: t, l: l, peers: map[string][]byte{}, sessions: map[string]net.Conn{}, incoming: make(chan []byte, 4)}
	go f.serve()
	t.Cleanup(func() {
		l.Close()
		f.mu.Lock()
		for _, c := range f.conns {
			c.Close()
		}
		f.mu.Unlock()
	})
	return f
}

func (f *fakeSAM) addr() string { return f.l.Addr().String() }

// addPeer makes a destination known to NAMING LOOKUP and returns its name.
func (f *fakeSAM) addPeer() (string, []byte) {
	_, pub := newDest()
	name := B32Address(pub)
	f.mu.Lock()
	f.peers[name] = pub
	f.mu.Unlock()
	return name, pub
}

func (f *fakeSAM) serve() {
	for {
		c, err := f.l.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conns = append(f.conns, c)
		f.mu.Unlock()
		go f.handle(c)
	}
}

func args(line string) map[string]string {
	m := map[string]string{}
	for _, w := range strings.Fields(line) {
		if k, v, ok := strings.Cut(w, "="); ok {
			m[k] = v
		}
	}
	return m
}

func (f *fakeSAM) handle(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	reply := func(s string) { c.Write([]byte(s + "\n")) }
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimSpace(line)
		if f.override != nil {
			if out, closeAfter := f.override(line); out != nil || closeAfter {
				c.Write(out)
				if closeAfter {
					return
				}
				continue
			}
		}
		a := args(line)
		switch {
		case strings.HasPrefix(line, "HELLO VERSION"):
			reply("HELLO REPLY RESULT=OK VERSION=3.1")
		case strings.HasPrefix(line, "DEST GENERATE"):
			priv, pub := newDest()
			f.mu.Lock()
			f.generated = append(f.generated, priv)
			f.mu.Unlock()
			reply("DEST REPLY PUB=" + i2pBase64.EncodeToString(pub) + " PRIV=" + i2pBase64.EncodeToString(priv))
		case strings.HasPrefix(line, "SESSION CREATE"):
			dest := a["DESTINATION"]
			f.mu.Lock()
			f.creates = append(f.creates, dest)
			f.sessions[a["ID"]] = c
			f.mu.Unlock()
			if dest == "TRANSIENT" {
				priv, _ := newDest()
				dest = i2pBase64.EncodeToString(priv)
			}
			reply("SESSION STATUS RESULT=OK DESTINATION=" + dest)
		case strings.HasPrefix(line, "NAMING LOOKUP"):
			f.mu.Lock()
			pub, ok := f.peers[a["NAME"]]
			f.mu.Unlock()
			if !ok {
				reply("NAMING REPLY RESULT=KEY_NOT_FOUND NAME=" + a["NAME"])
				continue
			}
			reply("NAMING REPLY RESULT=OK NAME=" + a["NAME"] + " VALUE=" + i2pBase64.EncodeToString(pub))
		case strings.HasPrefix(line, "STREAM CONNECT"):
			f.mu.Lock()
			_, okID := f.sessions[a["ID"]]
			known := false
			for _, pub := range f.peers {
				known = known || i2pBase64.EncodeToString(pub) == a["DESTINATION"]
			}
			f.mu.Unlock()
			switch {
			case !okID:
				reply("STREAM STATUS RESULT=INVALID_ID")
			case !known:
				reply(`STREAM STATUS RESULT=CANT_REACH_PEER MESSAGE="no such peer"`)
			default:
				// The greeting rides in the same write as the status,
				// as a fast peer's first bytes may.
				c.Write([]byte("STREAM STATUS RESULT=OK\nhello\n"))
				io.Copy(c, r)
				return
			}
		case strings.HasPrefix(line, "STREAM ACCEPT"):
			f.mu.Lock()
			_, okID := f.sessions[a["ID"]]
			f.mu.Unlock()
			if !okID {
				reply("STREAM STATUS RESULT=INVALID_ID")
				continue
			}
			reply("STREAM STATUS RESULT=OK")
			pub, ok := <-f.incoming
			if !ok {
				return
			}
			c.Write([]byte(i2pBase64.EncodeToString(pub) + " FROM_PORT=0 TO_PORT=0\nhello\n"))
			io.Copy(c, r)
			return
		default:
			reply("SESSION STATUS RESULT=I2P_ERROR MESSAGE=\"unknown command\"")
		}
	}
}

// closeSessions closes every control connection, as a restarting router
// would.
func (f *fakeSAM) closeSessions() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, c := range f.sessions {
		c.Close()
		delete(f.sessions, id)
	}
}

func (f *fakeSAM) counts() (generated, creates int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.generated), len(f.creates)
}

// testSession returns a session on f with short timeouts.
func testSession(f *fakeSAM, keyFile string) *Session {
	return New(Config{SAMAddr: f.addr(), KeyFile: keyFile, Timeout: 2 * time.Second})
}
