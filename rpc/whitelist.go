package rpc

import (
	"encoding/json"
	"os"
	"strings"
)

// This file is bitcoind's -rpcwhitelist: per-user lists of the methods a
// user may call. A request naming any other method is refused with HTTP
// 403 before it runs (in a batch, one such call refuses the whole batch).

// whitelist is the parsed -rpcwhitelist configuration.
type whitelist struct {
	users map[string]map[string]bool
	// byDefault refuses every call of a user without a list.
	byDefault bool
}

// parseWhitelist applies the entries in order as Core does: "user:m1,m2"
// gives user those methods (commas and spaces both separate them), a
// later entry for the same user narrows the list to the methods both
// name, and "user" alone makes the user whitelisted (with no methods
// when first seen). def is -rpcwhitelistdefault (nil: on when any entry
// is given).
func parseWhitelist(entries []string, def *bool) *whitelist {
	w := &whitelist{users: map[string]map[string]bool{}, byDefault: len(entries) > 0}
	if def != nil {
		w.byDefault = *def
	}
	for _, e := range entries {
		user, list, hasList := strings.Cut(e, ":")
		old, seen := w.users[user]
		if !seen {
			old = map[string]bool{}
			w.users[user] = old
		}
		if !hasList {
			continue
		}
		set := map[string]bool{}
		for _, m := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
			if !seen || old[m] {
				set[m] = true
			}
		}
		w.users[user] = set
	}
	return w
}

// allows reports whether user may make the calls in body. A body that is
// not JSON, or a call without a string method, is left to the ordinary
// request handling to reject.
func (w *whitelist) allows(user string, body []byte) bool {
	if w == nil {
		return true
	}
	methods, listed := w.users[user]
	var v any
	if json.Unmarshal(body, &v) != nil {
		return true
	}
	if !listed {
		if w.byDefault {
			log.Infof("RPC User %s not allowed to call any methods", user)
			return false
		}
		return true
	}
	check := func(call any) bool {
		o, ok := call.(map[string]any)
		if !ok {
			return true
		}
		m, ok := o["method"].(string)
		if !ok || methods[m] {
			return true
		}
		log.Infof("RPC User %s not allowed to call method %s", user, sanitizeWhitelistLog(m))
		return false
	}
	if batch, ok := v.([]any); ok {
		for _, c := range batch {
			if !check(c) {
				return false
			}
		}
		return true
	}
	return check(v)
}

// sanitizeWhitelistLog keeps a client-chosen method name to printable
// ASCII and a bounded length in the log.
func sanitizeWhitelistLog(s string) string {
	if len(s) > 100 {
		s = s[:100]
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '?'
		}
		return r
	}, s)
}

// CookiePerms maps bitcoind's -rpccookieperms values to file modes.
func CookiePerms(name string) (os.FileMode, bool) {
	switch name {
	case "owner":
		return 0o600, true
	case "group":
		return 0o640, true
	case "all":
		return 0o644, true
	}
	return 0, false
}
