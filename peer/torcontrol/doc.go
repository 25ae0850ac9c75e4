// Package torcontrol speaks as much of Tor's control protocol
// (control-spec.txt) as a node needs to publish itself as an onion
// service, as bitcoind's -listenonion does: authenticate to the control
// port (no authentication, a password, or SAFECOOKIE), ask Tor for its
// SOCKS listener, and create an ephemeral v3 onion service with
// ADD_ONION.
//
// Tor removes an ephemeral service when the control connection that made
// it closes, so a caller keeps the Conn open for as long as the service
// should exist and watches Wait for its end.
//
// Everything Tor sends is read under hard limits (MaxLineLen,
// MaxReplyLines) and a deadline per command.
package torcontrol
