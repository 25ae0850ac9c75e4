package rpc

import (
	"sort"
	"strings"
)

// Method is one registered RPC method: its help text, arguments and
// handler.
type Method struct {
	// Name is the method name clients call.
	Name string
	// Category groups the method in "help" ("blockchain", "control",
	// "generating", "mining", "network", "rawtransactions", "util").
	Category string
	// Description is the help paragraph under the call line.
	Description string
	// Args are the positional arguments; Name may list aliases
	// separated by "|" for named-argument calls.
	Args []Arg
	// Result documents the result (fields and types) for help.
	Result string
	// Handler computes the result. It may return *Error for a specific
	// code.
	Handler func(s *Server, p *Params) (any, error)
	// Available reports whether the daemon supplied what the handler
	// needs; nil means always available. Unavailable methods answer
	// -32601 "Method not found".
	Available func(s *Server) bool
	// FullHelp, when set, is the whole "help <method>" text, for
	// methods whose help is a message rather than a call description.
	FullHelp string
	// DescribeExtra, when set, is appended to Description in "help
	// <method>" for text that depends on the daemon (logging's list of
	// categories).
	DescribeExtra func(s *Server) string
}

// Arg documents and types one argument.
type Arg struct {
	Name        string
	Type        ArgType
	Optional    bool
	Default     string // shown as "default=..." for optional arguments
	Description string
	// Hidden arguments are accepted but left out of help, as bitcoind's
	// (stop's wait).
	Hidden bool
}

// signature returns the call line as bitcoind's help shows it: string
// arguments quoted, optional ones in parentheses.
func (m *Method) signature() string {
	var b strings.Builder
	b.WriteString(m.Name)
	open := false
	for _, a := range m.Args {
		if a.Hidden {
			continue
		}
		name := strings.SplitN(a.Name, "|", 2)[0]
		if a.Type == ArgStr || a.Type == ArgHex {
			name = `"` + name + `"`
		} else if a.Type == ArgArr {
			name = `[` + name + `,...]`
		} else if a.Type == ArgObj {
			name = `{` + name + `}`
		}
		if a.Optional && !open {
			b.WriteString(" (")
			open = true
		}
		b.WriteString(" ")
		b.WriteString(name)
	}
	if open {
		b.WriteString(" )")
	}
	return b.String()
}

// HelpText returns the full "help <method>" text.
func (m *Method) HelpText() string { return m.helpText("") }

// helpTextFor is HelpText with the daemon-dependent part of the
// description (DescribeExtra) filled in from s.
func (m *Method) helpTextFor(s *Server) string {
	if m.DescribeExtra == nil {
		return m.HelpText()
	}
	return m.helpText(m.DescribeExtra(s))
}

func (m *Method) helpText(extra string) string {
	if m.FullHelp != "" {
		return m.FullHelp
	}
	var b strings.Builder
	b.WriteString(m.signature())
	b.WriteString("\n\n")
	b.WriteString(strings.TrimSpace(m.Description))
	b.WriteString("\n")
	if extra != "" {
		b.WriteString(strings.TrimRight(extra, "\n"))
		b.WriteString("\n")
	}
	visible := 0
	for _, a := range m.Args {
		if !a.Hidden {
			visible++
		}
	}
	if visible > 0 {
		b.WriteString("\nArguments:\n")
		for i, a := range m.Args {
			if a.Hidden {
				continue
			}
			name := strings.SplitN(a.Name, "|", 2)[0]
			req := "required"
			if a.Optional {
				req = "optional"
				if a.Default != "" {
					req += ", default=" + a.Default
				}
			}
			b.WriteString(itoa(i+1) + ". " + name + strings.Repeat(" ", max(1, 20-len(name))) +
				"(" + a.Type.helpName() + ", " + req + ") " + a.Description + "\n")
		}
	}
	if m.Result != "" {
		b.WriteString("\nResult:\n")
		b.WriteString(strings.TrimRight(m.Result, "\n"))
		b.WriteString("\n")
	}
	ex := m.signature()
	if i := strings.Index(ex, " ("); i >= 0 {
		ex = ex[:i]
	}
	b.WriteString("\nExamples:\n> btcctl " + ex + "\n")
	return b.String()
}

// registry holds the methods by name.
type registry map[string]*Method

func (r registry) add(methods ...*Method) {
	for _, m := range methods {
		if _, dup := r[m.Name]; dup {
			panic("rpc: method registered twice: " + m.Name)
		}
		r[m.Name] = m
	}
}

// listing returns the "help" text: every method's call line grouped by
// category in alphabetical order, each group headed "== Category ==".
func (r registry) listing() string {
	ms := make([]*Method, 0, len(r))
	for _, m := range r {
		// As bitcoind, "help" leaves the hidden (test-only) methods out.
		if m.Category == "hidden" {
			continue
		}
		ms = append(ms, m)
	}
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].Category != ms[j].Category {
			return ms[i].Category < ms[j].Category
		}
		return ms[i].Name < ms[j].Name
	})
	var b strings.Builder
	cat := ""
	for _, m := range ms {
		if m.Category != cat {
			if cat != "" {
				b.WriteString("\n")
			}
			cat = m.Category
			b.WriteString("== " + strings.ToUpper(cat[:1]) + cat[1:] + " ==\n")
		}
		b.WriteString(m.signature() + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}
