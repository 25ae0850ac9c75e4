// Package banmgr owns the node's list of banned addresses and subnets and
// the whitelist of ranges that are never banned. Bans expire after a
// configurable duration and persist across restarts in banlist.json in the
// data directory, written atomically (temporary file, sync, rename) so a
// crash never leaves a half-written list.
//
// The peer package reports misbehaviour here; the connection manager asks
// IsBanned before accepting or dialing an address.
package banmgr
