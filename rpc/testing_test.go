package rpc

import (
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// TestSubmitHeaderTakesBlockHex checks that submitheader reads the header
// from the hex of a whole block, as bitcoind does, and still refuses hex
// shorter than a header.
func TestSubmitHeaderTakesBlockHex(t *testing.T) {
	var got wire.BlockHeader
	_, url := startServer(t, func(c *Config) {
		c.Backend.Mining = &MiningBackend{SubmitHeader: func(h *wire.BlockHeader) error {
			got = *h
			return nil
		}}
	})
	hdr := wire.BlockHeader{Version: 4, Bits: 0x207fffff, Timestamp: 1296688602, Nonce: 7}
	raw := hdr.AppendTo(nil)
	block := append(append([]byte(nil), raw...), 0x01, 0x00, 0x00) // header, then a stub of transactions
	mustResult(t, url, "submitheader", []any{hex.EncodeToString(block)})
	if got != hdr {
		t.Fatalf("submitted header %+v, want %+v", got, hdr)
	}
	mustResult(t, url, "submitheader", []any{hex.EncodeToString(raw)})
	mustError(t, url, "submitheader", []any{hex.EncodeToString(raw[:79])}, ErrDeserialization)
	mustError(t, url, "submitheader", []any{"zz" + hex.EncodeToString(raw)}, ErrDeserialization)
}

// TestRegtestControlMethods covers setmocktime, mockscheduler,
// syncwithvalidationinterfacequeue and stop's hidden wait argument.
func TestRegtestControlMethods(t *testing.T) {
	var mock, forward int64 = -1, 0
	synced := 0
	stopped := make(chan struct{}, 1)
	_, url := startServer(t, func(c *Config) {
		c.Backend.Test = &TestBackend{
			SetMockTime: func(v int64) error {
				if v == 7 {
					return errors.New("setmocktime is for regression testing (-regtest mode) only")
				}
				mock = v
				return nil
			},
			MockScheduler:     func(d int64) error { forward += d; return nil },
			SyncNotifications: func() error { synced++; return nil },
		}
		c.Shutdown = func() { stopped <- struct{}{} }
		c.StopMessage = "Bitcoin Core stopping"
	})
	mustResult(t, url, "setmocktime", []any{1300000000})
	if mock != 1300000000 {
		t.Fatalf("mock time %d", mock)
	}
	mustError(t, url, "setmocktime", []any{-1}, ErrInvalidParam)
	mustError(t, url, "setmocktime", []any{7}, ErrMisc)
	mustError(t, url, "setmocktime", nil, ErrMisc)
	mustResult(t, url, "mockscheduler", []any{3600})
	mustError(t, url, "mockscheduler", []any{3601}, ErrMisc)
	mustError(t, url, "mockscheduler", []any{0}, ErrMisc)
	if forward != 3600 {
		t.Fatalf("scheduler forwarded %d s", forward)
	}
	mustResult(t, url, "syncwithvalidationinterfacequeue", nil)
	if synced != 1 {
		t.Fatalf("synced %d times", synced)
	}
	start := time.Now()
	if v := mustResult(t, url, "stop", []any{200}); v != "Bitcoin Core stopping" {
		t.Fatalf("stop answered %v", v)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("stop with wait=200 answered after %v", d)
	}
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("stop did not call Shutdown")
	}
}

// TestRegtestControlMethodsAbsent checks that without a test backend the
// methods are unknown, as for any backend the daemon does not supply.
func TestRegtestControlMethodsAbsent(t *testing.T) {
	_, url := startServer(t, nil)
	for _, m := range []string{"setmocktime", "mockscheduler", "syncwithvalidationinterfacequeue"} {
		mustError(t, url, m, []any{1}, ErrMethodNotFound)
	}
}
