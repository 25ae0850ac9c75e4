package torcontrol

import (
	"fmt"
	"strings"
)

// splitArgs splits a reply line such as
// `AUTH METHODS=COOKIE,SAFECOOKIE COOKIEFILE="/run/tor/control.authcookie"`
// into its keyword ("AUTH") and its KEY=VALUE arguments. Values may be
// quoted strings with C escapes; arguments without '=' map to "".
func splitArgs(line string) (keyword string, args map[string]string, err error) {
	keyword, rest, _ := strings.Cut(line, " ")
	args, err = parseArgs(rest)
	return keyword, args, err
}

// parseArgs parses space-separated KEY=VALUE arguments.
func parseArgs(s string) (map[string]string, error) {
	args := make(map[string]string)
	for {
		s = strings.TrimLeft(s, " ")
		if s == "" {
			return args, nil
		}
		end := strings.IndexAny(s, "= ")
		if end < 0 {
			args[s] = ""
			return args, nil
		}
		key := s[:end]
		if s[end] == ' ' {
			args[key] = ""
			s = s[end:]
			continue
		}
		s = s[end+1:]
		var val string
		if strings.HasPrefix(s, `"`) {
			var n int
			var err error
			if val, n, err = unquote(s); err != nil {
				return nil, err
			}
			s = s[n:]
		} else {
			val, s, _ = strings.Cut(s, " ")
		}
		args[key] = val
	}
}

// unquote decodes the quoted string at the start of s and returns it
// with the number of bytes it took.
func unquote(s string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), i + 1, nil
		case c != '\\':
			b.WriteByte(c)
			continue
		}
		if i++; i >= len(s) {
			break
		}
		switch c := s[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			// Up to three octal digits.
			v, j := 0, i
			for ; j < len(s) && j < i+3 && '0' <= s[j] && s[j] <= '7'; j++ {
				v = v*8 + int(s[j]-'0')
			}
			if v > 0xff {
				return "", 0, fmt.Errorf("%w: octal escape out of range in %q", ErrProtocol, s)
			}
			b.WriteByte(byte(v))
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, fmt.Errorf("%w: unterminated quoted string %q", ErrProtocol, s)
}

// quote is s as a control-protocol quoted string.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
