// Package zmq owns the node's bitcoind-compatible ZeroMQ notifications:
// the -zmqpub* publishers (hashblock, rawblock, hashtx, rawtx, sequence),
// their -zmqpub*hwm high-water marks, the message formats of Bitcoin Core's
// doc/zmq.md, and the getzmqnotifications result.
//
// Every message is three frames: the topic, the body and the publisher's
// 4-byte little-endian message counter. Hashes are sent byte-reversed (the
// order RPC and block explorers display), raw blocks and transactions are
// serialized with witness data, and a sequence body is the hash, a label
// byte ('C', 'D', 'A', 'R') and, for mempool events, the 8-byte
// little-endian mempool sequence. Events publish what bitcoind publishes:
// a connected block sends hashtx/rawtx for each of its transactions, then
// sequence 'C', then hashblock/rawblock (not while SetSyncing(true), as
// bitcoind is silent on them during initial block download; bitcoind also
// sends them only for the final tip of a reorganisation, where this
// package sends them for each connected block); a disconnected block sends
// hashtx/rawtx for each transaction, then sequence 'D'; a mempool
// acceptance sends hashtx, rawtx and sequence 'A'; a removal for any
// reason but block inclusion sends sequence 'R'. Each (topic, address)
// pair counts its own messages, and topics naming the same address share
// one socket, as in bitcoind.
//
// The wire protocol comes from github.com/go-zeromq/zmq4, a pure-Go
// ZeroMQ implementation: the node stays cgo-free (no libzmq) and tools
// written for bitcoind (Lightning nodes, indexers, pyzmq scripts) can
// subscribe unchanged. zmq4 does the ZMTP 3.0 greeting and NULL handshake;
// this package runs the PUB side itself because zmq4's PUB socket writes
// to subscribers one after another on a single goroutine (one stalled
// subscriber stalls all of them) and trusts frame lengths sent by peers.
// Here each subscriber has its own writer goroutine and a queue bounded by
// the high-water mark (and a byte budget); when it is full, messages for
// that subscriber are dropped and counted, as libzmq PUB sockets drop.
// Publishing therefore never blocks the caller: it serializes the message
// (only if some subscriber wants the topic) and appends it to queues.
package zmq
