module github.com/btcnode/btcd

go 1.26

require (
	github.com/btcsuite/btcd/btcec/v2 v2.3.6
	github.com/btcsuite/btclog v1.0.0
	github.com/jessevdk/go-flags v1.6.1
	github.com/syndtr/goleveldb v1.0.1-0.20220721030215-126854af5e6d
)

require (
	github.com/btcsuite/btcd/chaincfg/chainhash v1.0.1 // indirect
	github.com/decred/dcrd/crypto/blake256 v1.0.1 // indirect
	github.com/decred/dcrd/dcrec/secp256k1/v4 v4.3.0 // indirect
	github.com/golang/snappy v0.0.4 // indirect
	golang.org/x/sys v0.21.0 // indirect
)
