// Package connmgr owns the node's connections below the P2P protocol: the
// listeners that accept inbound connections within the inbound limit
// (asking the server to evict a peer, chosen by SelectEviction as Bitcoin
// Core chooses, when full), the outbound connections to --connect and
// --addpeer peers (retried with exponential back-off), the automatic
// outbound connections that keep the target number of full-relay and
// block-relay-only peers with at most one per network group, and the
// SOCKS5 client used for --proxy and --onion. It also holds the pure rules
// that derive whether to listen, DNS-seed and connect automatically from
// the daemon's options.
//
// The package hands established net.Conns to the server, which wraps them
// in peers; closing such a conn tells the manager the slot is free again.
package connmgr
