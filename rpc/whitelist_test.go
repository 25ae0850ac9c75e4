package rpc

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func rpcauthEntry(user, salt, pass string) string {
	m := hmac.New(sha256.New, []byte(salt))
	m.Write([]byte(pass))
	return user + ":" + salt + "$" + hex.EncodeToString(m.Sum(nil))
}

func TestParseWhitelist(t *testing.T) {
	w := parseWhitelist([]string{
		"a:getblockcount,getbestblockhash,",
		"b:getblockcount, getbestblockhash", "b:getblockcount",
		"c", "c:getblockcount",
		"d:",
	}, nil)
	want := map[string]string{"a": "getbestblockhash,getblockcount", "b": "getblockcount", "c": "", "d": ""}
	for user, list := range want {
		var got []string
		for m := range w.users[user] {
			got = append(got, m)
		}
		if strings.Join(slices.Sorted(slices.Values(got)), ",") != list {
			t.Errorf("%s: %v, want %s", user, got, list)
		}
	}
	if !w.byDefault {
		t.Error("whitelisting does not refuse unlisted users by default")
	}
	off := false
	if parseWhitelist([]string{"a:x"}, &off).byDefault {
		t.Error("-rpcwhitelistdefault=0 ignored")
	}
}

func TestWhitelistServer(t *testing.T) {
	on, off := true, false
	for _, def := range []*bool{nil, &on, &off} {
		_, url := startServer(t, func(c *Config) {
			c.AuthEntries = []string{rpcauthEntry("limited", "s1", "pw1"), rpcauthEntry("free", "s2", "pw2")}
			c.Whitelist = []string{"limited:uptime,help", "limited:uptime"}
			c.WhitelistDefault = def
		})
		status := func(user, pass, body string) int {
			st, _ := post(t, url, user, pass, body)
			return st
		}
		if st := status("limited", "pw1", `{"method":"uptime"}`); st != http.StatusOK {
			t.Errorf("listed method: %d", st)
		}
		if st := status("limited", "pw1", `{"method":"help"}`); st != http.StatusForbidden {
			t.Errorf("method dropped by the second entry: %d", st)
		}
		if st := status("limited", "pw1", `[{"method":"uptime"},{"method":"getrpcinfo"}]`); st != http.StatusForbidden {
			t.Errorf("batch with an unlisted method: %d", st)
		}
		if st := status("limited", "pw1", `[{"method":"uptime"}]`); st != http.StatusOK {
			t.Errorf("batch of listed methods: %d", st)
		}
		wantFree := http.StatusForbidden
		if def == &off {
			wantFree = http.StatusOK
		}
		if st := status("free", "pw2", `{"method":"uptime"}`); st != wantFree {
			t.Errorf("default %v: unlisted user got %d, want %d", def, st, wantFree)
		}
		// The password is still checked first.
		if st := status("limited", "bad", `{"method":"uptime"}`); st != http.StatusUnauthorized {
			t.Errorf("bad password: %d", st)
		}
	}
	// The password user (and so the cookie user) can be listed too.
	_, url := startServer(t, func(c *Config) { c.Whitelist = []string{testUser + ":uptime"} })
	if st, _ := post(t, url, testUser, testPass, `{"method":"help"}`); st != http.StatusForbidden {
		t.Errorf("password user: %d", st)
	}
}

func TestCookiePerms(t *testing.T) {
	for name, want := range map[string]os.FileMode{"owner": 0o600, "group": 0o640, "all": 0o644} {
		mode, ok := CookiePerms(name)
		if !ok || mode != want {
			t.Fatalf("%s: %v %v", name, mode, ok)
		}
		dir := t.TempDir()
		s, _ := startServer(t, func(c *Config) { c.Pass, c.DataDir, c.CookiePerms = "", dir, mode })
		st, err := os.Stat(filepath.Join(dir, ".cookie"))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s: cookie mode %v, want %v", name, st.Mode().Perm(), want)
		}
		s.Stop()
	}
	if _, ok := CookiePerms("world"); ok {
		t.Error("unknown permission accepted")
	}
}
