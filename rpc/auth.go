package rpc

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// authEntry is one parsed rpcauth entry.
type authEntry struct {
	user string
	salt string
	hmac []byte // 32 bytes; nil for a hash no password can match
}

// parseAuthEntry parses bitcoind's rpcauth format "user:salt$hexhmac".
// As bitcoind, only the shape is checked (one ':' and one '$'); a hash
// that is not 64 lower-case hex digits is kept but matches no password,
// since bitcoind compares the hex text of the HMAC with it.
func parseAuthEntry(s string) (authEntry, error) {
	fields := strings.Split(s, ":")
	if len(fields) != 2 {
		return authEntry{}, kindErrorf(ErrInvalidConfig, "Invalid -rpcauth argument.")
	}
	saltHash := strings.Split(fields[1], "$")
	if len(saltHash) != 2 {
		return authEntry{}, kindErrorf(ErrInvalidConfig, "Invalid -rpcauth argument.")
	}
	e := authEntry{user: fields[0], salt: saltHash[0]}
	if h := saltHash[1]; len(h) == 2*sha256.Size && strings.ToLower(h) == h {
		e.hmac, _ = hex.DecodeString(h)
	}
	return e, nil
}

// authorized checks an Authorization header against the configured
// user:password (or cookie) and the rpcauth entries, in constant time per
// candidate.
func (s *Server) authorized(header string) bool {
	const prefix = "Basic "
	if len(header) < len(prefix) || !strings.EqualFold(header[:len(prefix)], prefix) {
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(header[len(prefix):]))
	if err != nil {
		return false
	}
	s.mu.Lock()
	up := s.userPass
	s.mu.Unlock()
	if up != "" && subtle.ConstantTimeCompare(raw, []byte(up)) == 1 {
		return true
	}
	user, pass, ok := strings.Cut(string(raw), ":")
	if !ok {
		return false
	}
	for _, a := range s.auth {
		if subtle.ConstantTimeCompare([]byte(user), []byte(a.user)) != 1 {
			continue
		}
		m := hmac.New(sha256.New, []byte(a.salt))
		m.Write([]byte(pass))
		if hmac.Equal(m.Sum(nil), a.hmac) {
			return true
		}
	}
	return false
}

// writeCookie writes a fresh "__cookie__:<64 hex>" cookie with mode perm
// (0: 0600) via a temporary file and rename, so a reader never sees a
// partial cookie, and returns the user:password string and the path.
func writeCookie(path string, perm os.FileMode) (string, string, error) {
	if perm == 0 {
		perm = 0o600
	}
	var secret [32]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return "", "", kindErrorf(ErrCookie, "%v", err)
	}
	up := cookieUser + ":" + hex.EncodeToString(secret[:])
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", "", kindErrorf(ErrCookie, "%v", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(up), 0o600); err != nil {
		return "", "", kindErrorf(ErrCookie, "%v", err)
	}
	// WriteFile keeps the mode of an existing file and applies the
	// umask; set the mode asked for.
	if err := os.Chmod(tmp, perm); err != nil {
		os.Remove(tmp)
		return "", "", kindErrorf(ErrCookie, "%v", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return "", "", kindErrorf(ErrCookie, "%v", err)
	}
	return up, path, nil
}

// loadTLS loads the configured certificate, or generates a self-signed one
// in the data directory when none exists yet.
func (s *Server) loadTLS() (*tls.Config, error) {
	certFile, keyFile := s.cfg.CertFile, s.cfg.KeyFile
	if certFile == "" {
		certFile = filepath.Join(s.cfg.DataDir, "rpc.cert")
	}
	if keyFile == "" {
		keyFile = filepath.Join(s.cfg.DataDir, "rpc.key")
	}
	_, errC := os.Stat(certFile)
	_, errK := os.Stat(keyFile)
	if os.IsNotExist(errC) && os.IsNotExist(errK) {
		if err := generateCert(certFile, keyFile, s.cfg.Listeners); err != nil {
			return nil, kindErrorf(ErrTLS, "generate certificate: %v", err)
		}
		log.Infof("RPC: generated TLS certificate %s", certFile)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, kindErrorf(ErrTLS, "%v", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// generateCert writes a self-signed ECDSA P-256 certificate valid for ten
// years for localhost, the loopback addresses, this host's name and the
// listen hosts.
func generateCert(certFile, keyFile string, listeners []string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	dns := []string{"localhost"}
	if host != "" && host != "localhost" {
		dns = append(dns, host)
	}
	ips := []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")}
	for _, l := range listeners {
		h, _, err := net.SplitHostPort(l)
		if err != nil || h == "" {
			continue
		}
		if ip := net.ParseIP(h); ip != nil {
			if !ip.IsUnspecified() {
				ips = append(ips, ip)
			}
		} else {
			dns = append(dns, h)
		}
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"btcd autogenerated cert"}, CommonName: host},
		NotBefore:             now.Add(-24 * time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
		DNSNames:              dns,
		IPAddresses:           ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(certFile), 0o700); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(keyFile), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
}
