// Package netsync owns block and transaction synchronisation with peers:
// headers-first initial block download (getheaders to one sync peer,
// headers validated through blockchain.ProcessHeaders as they arrive),
// parallel block download from every suitable peer inside a moving window
// ahead of the tip with a per-peer in-flight cap, stall and timeout
// detection that reassigns a peer's blocks and disconnects it, the switch to
// steady state (block announcements by headers or inv, relay of new tips),
// transaction relay through the mempool (inv/getdata/tx with wtxidrelay,
// honouring feefilter), and serving getheaders, getblocks, getdata (blocks
// in witness and base encoding, mempool transactions, notfound) and
// mempool requests.
//
// Blocks that arrive out of order are handed to ProcessBlock at once: their
// headers are already in the tree, so the blockchain stores their data and
// connects them when the parent's data arrives. The manager only has to
// keep the window of requests moving.
//
// One goroutine (the event loop) owns all download state; the peers'
// reader goroutines post events to it through bounded channels, so a peer
// that sends faster than blocks are connected is paused by back-pressure
// rather than buffered without limit. Requests that only read chain or
// mempool state (getheaders, getdata, ...) are served directly on the
// peer's reader goroutine.
//
// Compact blocks (BIP152, version 2 only; cmpct*.go): the manager sends
// sendcmpct(0, 2) to witness peers after verack, asks the last three peers
// that gave it a new tip first for high-bandwidth relay (keeping one
// outbound), pushes new tips as cmpctblock to peers that asked, fetches
// the next block as a compact block when current, serves getdata
// (MSG_CMPCT_BLOCK) and getblocktxn, and rebuilds compact blocks from the
// mempool, fetching missing transactions with getblocktxn and the whole
// block when the rebuilt one does not match its header. The daemon must
// leave peer.Config.SendCmpct nil: the manager negotiates itself.
//
// Headers whose chain would have less work than the minimum chain work
// (or than a day of blocks below the tip) are not stored: the peer's chain
// is first walked with only one salted bit kept per commitment period and
// then downloaded again and checked against those bits, with at most a
// bounded buffer held, before it reaches the blockchain (Core's headers
// presync, headerspresync*.go). A peer whose second walk breaks its
// commitments or the header rules is punished as for an invalid header.
//
// Compact block filters (BIP157) are served when Config.Filters is set.
package netsync
