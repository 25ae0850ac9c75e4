// Command btcd is a Bitcoin full node daemon with btcd's command line
// (go-flags options, btcd.conf). The node itself lives in internal/node;
// cmd/bitcoind runs the same node with bitcoind's command line.
package main

import (
	"os"

	"github.com/btcnode/btcd/internal/node"
)

func main() {
	os.Exit(node.BtcdMain(os.Args[1:], os.Stdout, os.Stderr))
}
