package torcontrol

import (
	"bufio"
	"crypto/hmac"
	"encoding/hex"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTor is a control port that answers the commands this package
// sends, as Tor does, and records them.
type fakeTor struct {
	l        net.Listener
	methods  string // PROTOCOLINFO's METHODS
	cookie   []byte // SAFECOOKIE's cookie; its file is cookieFile
	cookieFn string
	password string
	socks    string // GETINFO net/listeners/socks's value, as sent
	badHash  bool   // answer AUTHCHALLENGE with a wrong server hash

	mu   sync.Mutex
	cmds []string
}

func startFakeTor(t *testing.T, ft *fakeTor) *fakeTor {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ft.l = l
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go ft.serve(c)
		}
	}()
	return ft
}

func (ft *fakeTor) commands() []string {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	return append([]string(nil), ft.cmds...)
}

func (ft *fakeTor) serve(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReader(c)
	authed := false
	var clientNonce, serverNonce []byte
	say := func(lines ...string) { fmt.Fprint(c, strings.Join(lines, "\r\n")+"\r\n") }
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		ft.mu.Lock()
		ft.cmds = append(ft.cmds, line)
		ft.mu.Unlock()
		cmd, arg, _ := strings.Cut(line, " ")
		switch {
		case cmd == "PROTOCOLINFO":
			say("250-PROTOCOLINFO 1",
				fmt.Sprintf(`250-AUTH METHODS=%s COOKIEFILE=%s`, ft.methods, quote(ft.cookieFn)),
				`250-VERSION Tor="0.4.8.10"`, "250 OK")
		case cmd == "AUTHCHALLENGE":
			nonce, err := hex.DecodeString(strings.TrimPrefix(arg, "SAFECOOKIE "))
			if err != nil {
				say("513 Invalid base16 client nonce")
				continue
			}
			clientNonce, serverNonce = nonce, []byte(strings.Repeat("s", 32))
			h := cookieHMAC(serverToController, ft.cookie, clientNonce, serverNonce)
			if ft.badHash {
				h[0] ^= 1
			}
			say(fmt.Sprintf("250 AUTHCHALLENGE SERVERHASH=%X SERVERNONCE=%X", h, serverNonce))
		case cmd == "AUTHENTICATE":
			ok := false
			switch {
			case ft.password != "":
				ok = arg == quote(ft.password)
			case serverNonce != nil:
				got, _ := hex.DecodeString(arg)
				ok = hmac.Equal(got, cookieHMAC(controllerToServer, ft.cookie, clientNonce, serverNonce))
			default:
				ok = arg == "" && strings.Contains(ft.methods, "NULL")
			}
			if !ok {
				say("515 Authentication failed: Password did not match HashedControlPassword value from configuration")
				return
			}
			authed = true
			say("250 OK")
		case !authed:
			say("514 Authentication required.")
			return
		case line == "GETINFO net/listeners/socks":
			say("250-net/listeners/socks="+ft.socks, "250 OK")
		case cmd == "ADD_ONION":
			key, _, _ := strings.Cut(arg, " ")
			id := strings.Repeat("a", 55) + "d"
			if key == NewKey {
				say("250-ServiceID="+id, "250-PrivateKey=ED25519-V3:c2VjcmV0", "250 OK")
			} else {
				say("250-ServiceID="+id, "250 OK")
			}
		default:
			say(`510 Unrecognized command "` + cmd + `"`)
		}
	}
}

func dialFake(t *testing.T, ft *fakeTor) *Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", ft.l.Addr().String(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	conn := NewConn(c)
	conn.Timeout = 5 * time.Second
	t.Cleanup(func() { conn.Close() })
	return conn
}
