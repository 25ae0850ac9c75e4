package node

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestI2PAcceptIncomingOption(t *testing.T) {
	if cfg := mustLoad(t); !cfg.i2pAcceptIncoming() {
		t.Error("--i2pacceptincoming is not on by default")
	}
	if cfg := mustLoad(t, "--i2pacceptincoming=0"); cfg.i2pAcceptIncoming() {
		t.Error("--i2pacceptincoming=0 left it on")
	}
	if cfg := mustLoad(t, "--i2pacceptincoming"); !cfg.i2pAcceptIncoming() {
		t.Error("bare --i2pacceptincoming is not on")
	}
	_, args := testArgs(t, "--i2pacceptincoming=maybe")
	if _, err := loadConfig(args); err == nil || !strings.Contains(err.Error(), "--i2pacceptincoming") {
		t.Errorf("bad value: %v", err)
	}
}

// --i2pacceptincoming picks a persistent session keyed in the data
// directory, with a listener for inbound streams; =0 a transient one with
// none; no --i2psam, no session.
func TestSetupI2P(t *testing.T) {
	cfg := mustLoad(t, "--i2psam=127.0.0.1")
	s := &server{cfg: cfg}
	s.setupI2P()
	if s.i2p == nil || !s.i2p.Persistent() || s.i2pListener == nil {
		t.Fatalf("persistent session not set up: %+v", s.i2p)
	}
	if s.i2p.SAMAddr() != "127.0.0.1:7656" {
		t.Errorf("SAM address %q", s.i2p.SAMAddr())
	}
	if dc := s.dialConfig(); dc.I2P == nil {
		t.Error("dialer has no I2P session")
	}
	if want := filepath.Join(cfg.DataDir, "i2p_private_key"); s.i2p.KeyFile() != want {
		t.Errorf("key file %q, want %q", s.i2p.KeyFile(), want)
	}
	s.i2p.Close()

	s = &server{cfg: mustLoad(t, "--i2psam=127.0.0.1:7000", "--i2pacceptincoming=0")}
	s.setupI2P()
	if s.i2p == nil || s.i2p.Persistent() || s.i2pListener != nil {
		t.Errorf("transient session not set up")
	}
	s = &server{cfg: mustLoad(t)}
	s.setupI2P()
	if s.i2p != nil || s.dialConfig().I2P != nil {
		t.Error("session without --i2psam")
	}
}
