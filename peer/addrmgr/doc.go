// Package addrmgr owns the node's table of known peer addresses: where
// they came from (addr/addrv2 relay, DNS seeds, fixed seeds), how they
// fared (attempts, successes), and which to try next.
//
// Addresses live in Bitcoin Core's two bucketed tables. "New" holds
// addresses heard about but never connected to, in 1024 buckets of 64
// chosen by the network group (/16 for IPv4, /32 for IPv6) of the address
// and of the peer that sent it; "tried" holds addresses we connected to, in
// 256 buckets of 64 chosen by the address's group. Bucket and slot come
// from hashing with a secret random key kept in peers.dat, so an attacker
// cannot predict which of our entries its addresses would evict and cannot
// fill the tables from a few network groups: an eclipse attack needs
// addresses from many groups. Selection favours tried addresses half the
// time and weighs each entry by its recent failures.
//
// It also keeps our own addresses with Core's scores (--externalip,
// addresses outbound peers report seeing us at), from which the best one
// for each peer's network is announced, and the fixed seed lists taken
// from Bitcoin Core's contrib/seeds (fixedseeds.go).
//
// The tables are bounded by construction (at most 65536 new and 16384
// tried entries) and persist to peers.dat in the data directory, in
// Bitcoin Core's format (peersdat.go), written atomically.
package addrmgr
