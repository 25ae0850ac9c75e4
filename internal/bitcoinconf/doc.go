// Package bitcoinconf holds what bitcoind and bitcoin-cli share in reading
// their settings: the bitcoin.conf syntax (network sections, '#' comments,
// key=value lines), option keys with their section prefix and "no"
// negation, and the values and per-source value lists on which the
// ArgsManager precedence rules are built. Which options exist, and how
// sources are ranked, stays with each front end.
package bitcoinconf
