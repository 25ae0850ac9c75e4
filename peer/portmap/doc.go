// Package portmap asks the home router to forward the node's listening
// port, as bitcoind's -natpmp does: with PCP (RFC 6887) and, when the
// gateway speaks only its predecessor, NAT-PMP (RFC 6886). A mapping
// lasts for the lifetime the gateway grants and is renewed by asking
// again before it ends.
//
// Replies are fixed-size datagrams, parsed with length checks and
// matched to the request (opcode, nonce, ports); anything else is
// ignored until the attempt's deadline.
package portmap
