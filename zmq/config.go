package zmq

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// DefaultHWM is bitcoind's default outbound high-water mark
// (DEFAULT_ZMQ_SNDHWM) for every -zmqpub*hwm option.
const DefaultHWM = 1000

// Topic ids, in the order bitcoind lists its notifier types (sorted by
// option name), which is also the order getzmqnotifications reports and
// the order messages of one event leave a shared socket.
const (
	topicHashBlock = iota
	topicHashTx
	topicRawBlock
	topicRawTx
	topicSequence
	numTopics
)

// topicNames are the ZeroMQ topics (first frame) of bitcoind's notifiers.
var topicNames = [numTopics]string{"hashblock", "hashtx", "rawblock", "rawtx", "sequence"}

// Config selects the publishers. Each list holds the addresses given for
// one -zmqpub<topic> option (it may repeat, and several topics may name
// the same address, which then share one socket). Addresses are tcp://
// (tcp://127.0.0.1:28332, tcp://[::1]:28333, tcp://*:28332 for all
// interfaces) or ipc:///path (bitcoind's unix:/path spelling is accepted).
//
// The HWM fields are the matching -zmqpub<topic>hwm values: the number of
// messages queued per subscriber before further ones are dropped. The
// daemon should default them to DefaultHWM; 0 means "no limit" as in
// bitcoind, which here is capped by internal memory limits.
type Config struct {
	PubHashBlock []string
	PubHashTx    []string
	PubRawBlock  []string
	PubRawTx     []string
	PubSequence  []string

	PubHashBlockHWM int
	PubHashTxHWM    int
	PubRawBlockHWM  int
	PubRawTxHWM     int
	PubSequenceHWM  int
}

// Enabled reports whether any publisher is configured.
func (c *Config) Enabled() bool {
	return len(c.PubHashBlock)+len(c.PubHashTx)+len(c.PubRawBlock)+len(c.PubRawTx)+len(c.PubSequence) > 0
}

// lists returns the configured addresses and HWMs indexed by topic id.
func (c *Config) lists() ([numTopics][]string, [numTopics]int) {
	return [numTopics][]string{c.PubHashBlock, c.PubHashTx, c.PubRawBlock, c.PubRawTx, c.PubSequence},
		[numTopics]int{c.PubHashBlockHWM, c.PubHashTxHWM, c.PubRawBlockHWM, c.PubRawTxHWM, c.PubSequenceHWM}
}

// Endpoint is one entry of bitcoind's getzmqnotifications result.
type Endpoint struct {
	// Type is the notifier type, e.g. "pubhashblock".
	Type string `json:"type"`
	// Address is the publisher address as configured.
	Address string `json:"address"`
	// HWM is the configured outbound high-water mark.
	HWM int `json:"hwm"`
}

// maxIPCPath is the longest socket path a sockaddr_un holds (Linux).
const maxIPCPath = 107

// ParseAddress checks a publisher address given for option (e.g.
// "zmqpubhashblock") and returns it normalised (unix: rewritten to ipc://,
// as bitcoind does) with the Go network and address to bind. Only tcp://
// and ipc:// endpoints are supported.
func ParseAddress(option, addr string) (canon, network, laddr string, err error) {
	bad := func(why string) (string, string, string, error) {
		return "", "", "", fmt.Errorf("%w: --%s=%q: %s", ErrBadAddress, option, addr, why)
	}
	canon = addr
	if rest, ok := strings.CutPrefix(addr, "unix:"); ok {
		canon = "ipc://" + rest
	}
	switch {
	case strings.HasPrefix(canon, "tcp://"):
		hostport := canon[len("tcp://"):]
		host, port, err := net.SplitHostPort(hostport)
		if err != nil {
			return bad("want tcp://host:port")
		}
		if strings.ContainsAny(host, "/ \t") {
			return bad("bad host")
		}
		if host == "*" {
			host = "" // libzmq's wildcard: all interfaces
		} else if host == "" {
			return bad("missing host (use * for all interfaces)")
		}
		if port == "*" {
			port = "0" // libzmq's wildcard: an ephemeral port
		}
		p, err := strconv.ParseUint(port, 10, 16)
		if err != nil || (p == 0 && port != "0") {
			return bad("bad port")
		}
		return canon, "tcp", net.JoinHostPort(host, port), nil
	case strings.HasPrefix(canon, "ipc://"):
		path := canon[len("ipc://"):]
		switch {
		case path == "" || path == "*":
			return bad("missing socket path")
		case len(path) > maxIPCPath:
			return bad("socket path too long")
		case strings.IndexByte(path, 0) >= 0:
			return bad("NUL in socket path")
		}
		return canon, "unix", path, nil
	}
	return bad("only tcp:// and ipc:// addresses are supported")
}
