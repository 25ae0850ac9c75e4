package torcontrol

import (
	"fmt"
	"strings"
)

// NewKey asks ADD_ONION for a fresh v3 service key.
const NewKey = "NEW:ED25519-V3"

// Onion is an onion service Tor created.
type Onion struct {
	// ServiceID is the address without ".onion": 56 base32 letters.
	ServiceID string
	// PrivateKey is "ED25519-V3:<base64>", given back only for a new key;
	// passing it to AddOnion again recreates the same address.
	PrivateKey string
}

// AddOnion creates an ephemeral onion service that forwards its port
// virtPort to target (host:port) and lives as long as this connection.
// key is NewKey or a PrivateKey from an earlier call.
func (c *Conn) AddOnion(key string, virtPort uint16, target string) (Onion, error) {
	if key == "" || strings.ContainsAny(key, " \r\n") || strings.ContainsAny(target, " \r\n") {
		return Onion{}, fmt.Errorf("tor control: bad ADD_ONION key or target")
	}
	rep, err := c.Command(fmt.Sprintf("ADD_ONION %s Port=%d,%s", key, virtPort, target))
	if err != nil {
		return Onion{}, err
	}
	var o Onion
	for _, l := range rep.Lines {
		args, err := parseArgs(l)
		if err != nil {
			return Onion{}, err
		}
		if v, ok := args["ServiceID"]; ok {
			o.ServiceID = v
		}
		if v, ok := args["PrivateKey"]; ok {
			o.PrivateKey = v
		}
	}
	if !validServiceID(o.ServiceID) {
		return Onion{}, fmt.Errorf("%w: ADD_ONION gave service ID %q", ErrProtocol, o.ServiceID)
	}
	return o, nil
}

// validServiceID reports whether id is 56 characters of base32.
func validServiceID(id string) bool {
	if len(id) != 56 {
		return false
	}
	for _, c := range id {
		if !('a' <= c && c <= 'z' || '2' <= c && c <= '7') {
			return false
		}
	}
	return true
}

// SOCKSListeners returns the addresses of Tor's SOCKS ports
// (GETINFO net/listeners/socks), as host:port or unix:path.
func (c *Conn) SOCKSListeners() ([]string, error) {
	rep, err := c.Command("GETINFO net/listeners/socks")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range rep.Lines {
		rest, ok := strings.CutPrefix(l, "net/listeners/socks=")
		if !ok {
			continue
		}
		for rest = strings.TrimLeft(rest, " "); rest != ""; rest = strings.TrimLeft(rest, " ") {
			if !strings.HasPrefix(rest, `"`) {
				v, r, _ := strings.Cut(rest, " ")
				out, rest = append(out, v), r
				continue
			}
			v, n, err := unquote(rest)
			if err != nil {
				return nil, err
			}
			out, rest = append(out, v), rest[n:]
		}
	}
	return out, nil
}
