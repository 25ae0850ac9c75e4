package torcontrol

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// ErrAuth means no authentication method both sides support could be
// used, or Tor refused the one tried.
var ErrAuth = errors.New("tor control authentication failed")

// cookieLen is the size of Tor's authentication cookie file.
const cookieLen = 32

// The HMAC keys of SAFECOOKIE (control-spec.txt, AUTHCHALLENGE).
const (
	serverToController = "Tor safe cookie authentication server-to-controller hash"
	controllerToServer = "Tor safe cookie authentication controller-to-server hash"
)

// Authenticate asks Tor which methods it accepts and authenticates: with
// password when one is given and Tor takes one (HASHEDPASSWORD), else
// without credentials when Tor allows that (NULL), else with SAFECOOKIE,
// proving knowledge of the cookie file Tor names without sending it. Plain COOKIE is not
// used: it hands the cookie to whatever listens on the port.
func (c *Conn) Authenticate(password string) error {
	rep, err := c.Command("PROTOCOLINFO 1")
	if err != nil {
		return err
	}
	var methods []string
	var cookieFile string
	for _, l := range rep.Lines {
		kw, args, err := splitArgs(l)
		if err != nil {
			return err
		}
		if kw == "AUTH" {
			methods = strings.Split(args["METHODS"], ",")
			cookieFile = args["COOKIEFILE"]
		}
	}
	has := func(m string) bool { return slices.Contains(methods, m) }
	switch {
	case password != "" && has("HASHEDPASSWORD"):
		_, err = c.Command("AUTHENTICATE " + quote(password))
	case has("NULL"):
		_, err = c.Command("AUTHENTICATE")
	case has("SAFECOOKIE"):
		err = c.safeCookie(cookieFile)
	case has("HASHEDPASSWORD"):
		return fmt.Errorf("%w: Tor only accepts a password, and none is set (-torpassword)", ErrAuth)
	default:
		return fmt.Errorf("%w: no supported method (Tor offers %s)", ErrAuth, strings.Join(methods, ","))
	}
	var re *ReplyError
	if errors.As(err, &re) {
		return fmt.Errorf("%w: %v", ErrAuth, err)
	}
	return err
}

// safeCookie runs SAFECOOKIE's challenge and response.
func (c *Conn) safeCookie(cookieFile string) error {
	cookie, err := readCookie(cookieFile)
	if err != nil {
		return err
	}
	clientNonce := make([]byte, 32)
	rand.Read(clientNonce)
	rep, err := c.Command("AUTHCHALLENGE SAFECOOKIE " + strings.ToUpper(hex.EncodeToString(clientNonce)))
	if err != nil {
		return err
	}
	kw, args, err := splitArgs(rep.Lines[len(rep.Lines)-1])
	if err != nil {
		return err
	}
	serverHash, err1 := hex.DecodeString(args["SERVERHASH"])
	serverNonce, err2 := hex.DecodeString(args["SERVERNONCE"])
	if kw != "AUTHCHALLENGE" || err1 != nil || err2 != nil || len(serverHash) != sha256.Size || len(serverNonce) != 32 {
		return fmt.Errorf("%w: malformed AUTHCHALLENGE reply %q", ErrProtocol, rep.Lines[len(rep.Lines)-1])
	}
	if !hmac.Equal(serverHash, cookieHMAC(serverToController, cookie, clientNonce, serverNonce)) {
		return fmt.Errorf("%w: Tor's SAFECOOKIE hash does not match the cookie in %s", ErrAuth, cookieFile)
	}
	_, err = c.Command("AUTHENTICATE " + hex.EncodeToString(cookieHMAC(controllerToServer, cookie, clientNonce, serverNonce)))
	return err
}

func cookieHMAC(key string, cookie, clientNonce, serverNonce []byte) []byte {
	m := hmac.New(sha256.New, []byte(key))
	m.Write(cookie)
	m.Write(clientNonce)
	m.Write(serverNonce)
	return m.Sum(nil)
}

// readCookie reads Tor's cookie file, which must hold exactly
// cookieLen bytes.
func readCookie(path string) ([]byte, error) {
	if path == "" {
		return nil, fmt.Errorf("%w: Tor offers SAFECOOKIE but names no cookie file", ErrAuth)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: reading the cookie: %v", ErrAuth, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, cookieLen+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading the cookie: %v", ErrAuth, err)
	}
	if len(b) != cookieLen {
		return nil, fmt.Errorf("%w: cookie file %s is not %d bytes", ErrAuth, path, cookieLen)
	}
	return b, nil
}
