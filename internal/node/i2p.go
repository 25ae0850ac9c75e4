package node

import (
	"path/filepath"

	"github.com/btcnode/btcd/peer/i2p"
)

// i2pKeyFileName is where a persistent SAM session keeps its private key,
// in the data directory (bitcoind's name for it).
const i2pKeyFileName = "i2p_private_key"

// i2pAcceptIncoming reports whether --i2pacceptincoming is on (the
// default): a persistent session whose address takes inbound peers,
// rather than transient ones for outbound streams only.
func (cfg *Config) i2pAcceptIncoming() bool {
	return cfg.I2PAcceptIncoming != "0" && cfg.I2PAcceptIncoming != "false"
}

// setupI2P creates the SAM session of --i2psam, and with
// --i2pacceptincoming the listener for its inbound streams. The bridge is
// first contacted when a stream is needed, so a bridge that is not up yet
// does not stop the node.
func (s *server) setupI2P() {
	if s.cfg.I2PSAM == "" {
		return
	}
	sc := i2p.Config{SAMAddr: proxyText(s.cfg.I2PSAM, defaultSAMPort)}
	if s.cfg.i2pAcceptIncoming() {
		sc.KeyFile = filepath.Join(s.cfg.DataDir, i2pKeyFileName)
	}
	s.i2p = i2p.New(sc)
	if s.i2p.Persistent() {
		s.i2pListener, _ = s.i2p.Listen()
	}
}
