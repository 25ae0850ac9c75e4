package bitcoinconf

import (
	"errors"
	"fmt"
	"strings"
)

// ErrConfInFile is the error for a conf= line in a config file: only the
// command line may name the config file.
var ErrConfInFile = errors.New("conf cannot be set in the configuration file; use includeconf= if you want to include additional config files")

// maxLines bounds how many lines one config file may hold, so a huge or
// hostile file fails cleanly instead of being split without limit.
const maxLines = 1 << 20

// A Line is one key=value of a config file. Key carries the section
// prefix ("regtest.rpcport") when the line sits in a [section].
type Line struct {
	Key, Value string
	Line       int
}

// A Section records a [section] header, or the section named by a
// "section.key=value" line, with the line it was seen on.
type Section struct {
	Name string
	Line int
}

// Parse splits a bitcoin.conf into its settings with bitcoind's syntax:
// '#' starts a comment, [section] starts a network section, every other
// non-empty line is key=value, and "section.key=value" also names a
// section. Errors carry bitcoind's wording.
func Parse(text string) ([]Line, []Section, error) {
	if strings.Count(text, "\n") >= maxLines {
		return nil, nil, fmt.Errorf("too many lines (more than %d)", maxLines)
	}
	var out []Line
	var secs []Section
	prefix := ""
	for n, raw := range strings.Split(text, "\n") {
		line := n + 1
		usedHash := false
		if i := strings.IndexByte(raw, '#'); i >= 0 {
			raw, usedHash = raw[:i], true
		}
		s := strings.Trim(raw, " \t\r\n")
		switch {
		case s == "":
		case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
			sec := s[1 : len(s)-1]
			secs = append(secs, Section{Name: sec, Line: line})
			prefix = sec + "."
		case strings.HasPrefix(s, "-"):
			return nil, nil, fmt.Errorf("parse error on line %d: %s, options in configuration file must be specified without leading -", line, s)
		case strings.Contains(s, "="):
			k, v, _ := strings.Cut(s, "=")
			name := prefix + strings.Trim(k, " \t\r\n")
			if usedHash && strings.Contains(name, "rpcpassword") {
				return nil, nil, fmt.Errorf("parse error on line %d, using # in rpcpassword can be ambiguous and should be avoided", line)
			}
			out = append(out, Line{Key: name, Value: strings.Trim(v, " \t\r\n"), Line: line})
			if j := strings.LastIndexByte(name, '.'); j >= 0 && len(prefix) <= j {
				secs = append(secs, Section{Name: name[:j], Line: line})
			}
		default:
			msg := fmt.Sprintf("parse error on line %d: %s", line, s)
			if strings.HasPrefix(s, "no") {
				msg += fmt.Sprintf(", if you intended to specify a negated option, use %s=1 instead", s)
			}
			return nil, nil, errors.New(msg)
		}
	}
	return out, secs, nil
}
