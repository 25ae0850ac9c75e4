// Package hostport splits host[:port] strings as Bitcoin Core's
// SplitHostPort does, for the options and tools that take Core's syntax
// (bitcoin-cli's -rpcconnect, bitcoind's -proxy and -onion).
package hostport

import "strconv"

// ParsePort is Core's ToIntegral<uint16_t>: decimal digits only, the
// whole string, in range.
func ParsePort(s string) (uint16, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(s, 10, 16)
	return uint16(n), err == nil
}

// Split is Core's SplitHostPort: a port follows the last colon when the
// host is bracketed or has no other colon ("::1" is a host without a
// port). valid is false for a port that is present but not 1-65535; port
// is 0 when none is given. Brackets around the host are removed.
func Split(in string) (host string, port uint16, valid bool) {
	colon := -1
	for i := len(in) - 1; i >= 0; i-- {
		if in[i] == ':' {
			colon = i
			break
		}
	}
	haveColon := colon >= 0
	bracketed := haveColon && colon > 0 && in[0] == '[' && in[colon-1] == ']'
	multiColon := false
	if haveColon && colon != 0 {
		for i := 0; i < colon; i++ {
			if in[i] == ':' {
				multiColon = true
				break
			}
		}
	}
	if haveColon && (colon == 0 || bracketed || !multiColon) {
		p := in[colon+1:]
		// Core's parser takes one leading '+'.
		if len(p) > 0 && p[0] == '+' && !(len(p) > 1 && p[1] == '-') {
			p = p[1:]
		}
		if n, ok := ParsePort(p); ok {
			in = in[:colon]
			port = n
			valid = n != 0
		}
	} else {
		valid = true
	}
	if len(in) >= 2 && in[0] == '[' && in[len(in)-1] == ']' {
		host = in[1 : len(in)-1]
	} else {
		host = in
	}
	return host, port, valid
}
