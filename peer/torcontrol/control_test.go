package torcontrol

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeCookie(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "control_auth_cookie")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Each method is chosen as Tor offers it: a password when one is set,
// else NULL, else SAFECOOKIE; plain COOKIE never.
func TestAuthenticate(t *testing.T) {
	cookie := []byte(strings.Repeat("c", cookieLen))
	path := writeCookie(t, cookie)
	for _, tc := range []struct {
		name     string
		ft       *fakeTor
		password string
		wantErr  error
		first    string // the AUTHENTICATE or AUTHCHALLENGE sent, by prefix
	}{
		{"null", &fakeTor{methods: "NULL"}, "", nil, "AUTHENTICATE"},
		{"password", &fakeTor{methods: "HASHEDPASSWORD", password: `pa"ss`}, `pa"ss`, nil, `AUTHENTICATE "pa\"ss"`},
		{"wrong password", &fakeTor{methods: "HASHEDPASSWORD", password: "right"}, "wrong", ErrAuth, `AUTHENTICATE "wrong"`},
		{"password not taken, NULL is", &fakeTor{methods: "NULL"}, "pw", nil, "AUTHENTICATE"},
		{"password needed", &fakeTor{methods: "HASHEDPASSWORD", password: "pw"}, "", ErrAuth, ""},
		{"safecookie", &fakeTor{methods: "COOKIE,SAFECOOKIE", cookie: cookie, cookieFn: path}, "", nil, "AUTHCHALLENGE SAFECOOKIE "},
		{"server does not know the cookie", &fakeTor{methods: "SAFECOOKIE", cookie: cookie, cookieFn: path, badHash: true}, "", ErrAuth, "AUTHCHALLENGE SAFECOOKIE "},
		{"cookie only", &fakeTor{methods: "COOKIE", cookie: cookie, cookieFn: path}, "", ErrAuth, ""},
		{"short cookie file", &fakeTor{methods: "SAFECOOKIE", cookie: cookie, cookieFn: writeCookie(t, cookie[:31])}, "", ErrAuth, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ft := startFakeTor(t, tc.ft)
			err := dialFake(t, ft).Authenticate(tc.password)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
			cmds := ft.commands()
			if cmds[0] != "PROTOCOLINFO 1" {
				t.Fatalf("first command %q", cmds[0])
			}
			if tc.first != "" && (len(cmds) < 2 || !strings.HasPrefix(cmds[1], tc.first)) {
				t.Fatalf("commands %q, want the second to start %q", cmds, tc.first)
			}
			if tc.first == "" && len(cmds) > 1 {
				t.Fatalf("sent %q after PROTOCOLINFO", cmds[1:])
			}
			if tc.ft.badHash && len(cmds) > 2 {
				t.Fatalf("answered a server that did not prove the cookie: %q", cmds[2])
			}
		})
	}
}

// ADD_ONION sends the key and the port mapping, and reads back the
// service ID and, for a new key, the private key.
func TestAddOnion(t *testing.T) {
	ft := startFakeTor(t, &fakeTor{methods: "NULL", socks: `"127.0.0.1:9050" "unix:/run/tor/socks"`})
	c := dialFake(t, ft)
	if err := c.Authenticate(""); err != nil {
		t.Fatal(err)
	}
	o, err := c.AddOnion(NewKey, 8333, "127.0.0.1:8334")
	if err != nil {
		t.Fatal(err)
	}
	if o.ServiceID != strings.Repeat("a", 55)+"d" || o.PrivateKey != "ED25519-V3:c2VjcmV0" {
		t.Fatalf("onion %+v", o)
	}
	if o2, err := c.AddOnion(o.PrivateKey, 8333, "127.0.0.1:8334"); err != nil || o2.ServiceID != o.ServiceID || o2.PrivateKey != "" {
		t.Fatalf("again with the key: %+v %v", o2, err)
	}
	socks, err := c.SOCKSListeners()
	if err != nil || !slices.Equal(socks, []string{"127.0.0.1:9050", "unix:/run/tor/socks"}) {
		t.Fatalf("socks listeners %q %v", socks, err)
	}
	cmds := ft.commands()
	if !slices.Contains(cmds, "ADD_ONION NEW:ED25519-V3 Port=8333,127.0.0.1:8334") ||
		!slices.Contains(cmds, "ADD_ONION ED25519-V3:c2VjcmV0 Port=8333,127.0.0.1:8334") {
		t.Fatalf("commands %q", cmds)
	}
	if _, err := c.Command("SIGNAL NEWNYM"); err == nil {
		t.Fatal("an error status was not an error")
	} else if re := (*ReplyError)(nil); !errors.As(err, &re) || re.Code != 510 {
		t.Fatalf("err %v", err)
	}
	if _, err := c.AddOnion("NEW:ED25519-V3 Flags=Detach", 1, "x:1"); err == nil {
		t.Fatal("a key with a space was sent")
	}
}

func replyConn(s string) *Conn {
	return &Conn{r: bufio.NewReaderSize(strings.NewReader(s), 4096)}
}

// Replies are read line by line within the limits; data lines lose
// their dot-stuffing.
func TestReadReply(t *testing.T) {
	rep, err := replyConn("250-a=1\r\n250+data\r\nline1\r\n..dot\r\n.\r\n250 OK\r\n").readReply()
	if err != nil || rep.Code != 250 || !slices.Equal(rep.Lines, []string{"a=1", "data\nline1\n.dot", "OK"}) {
		t.Fatalf("%+v %v", rep, err)
	}
	for name, in := range map[string]string{
		"long line":    "250 " + strings.Repeat("x", MaxLineLen) + "\r\n",
		"many lines":   strings.Repeat("250-x\r\n", MaxReplyLines) + "250 OK\r\n",
		"mixed codes":  "250-x\r\n251 OK\r\n",
		"bad code":     "2x0 OK\r\n",
		"bad sep":      "250/OK\r\n",
		"short":        "25\r\n",
		"endless data": "250+x\r\n" + strings.Repeat("y\r\n", MaxReplyLines),
	} {
		if _, err := replyConn(in).readReply(); !errors.Is(err, ErrProtocol) {
			t.Errorf("%s: %v, want ErrProtocol", name, err)
		}
	}
}

func TestParseArgs(t *testing.T) {
	kw, args, err := splitArgs(`AUTH METHODS=COOKIE,SAFECOOKIE COOKIEFILE="/a b/\"c\"\\\101\n" FLAG`)
	if err != nil || kw != "AUTH" || args["METHODS"] != "COOKIE,SAFECOOKIE" || args["COOKIEFILE"] != "/a b/\"c\"\\A\n" {
		t.Fatalf("%q %q %v", kw, args, err)
	}
	if _, ok := args["FLAG"]; !ok {
		t.Fatal("a bare argument was dropped")
	}
	if _, err := parseArgs(`X="open`); !errors.Is(err, ErrProtocol) {
		t.Fatalf("unterminated quote: %v", err)
	}
	if _, err := parseArgs(`X="\777"`); !errors.Is(err, ErrProtocol) {
		t.Fatalf("octal escape over 255: %v", err)
	}
	for _, s := range []string{"", "plain", `q"u\o\te`, "line\nbreak\r"} {
		if got, n, err := unquote(quote(s)); err != nil || got != s || n != len(quote(s)) {
			t.Errorf("quote/unquote %q: %q %d %v", s, got, n, err)
		}
	}
}
