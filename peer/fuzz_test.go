package peer

import (
	"bytes"
	"net"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

func frameMsg(msg wire.Message) []byte {
	var b bytes.Buffer
	if _, err := wire.WriteMessage(&b, msg, wire.ProtocolVersion, testNet, wire.WitnessEncoding); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// FuzzPeerInput feeds arbitrary bytes to an inbound peer, optionally after
// a valid version and verack. The peer must neither panic nor hang: it
// ends when the input does.
func FuzzPeerInput(f *testing.F) {
	v := (&remote{}).version(77)
	hs := append(frameMsg(v), frameMsg(&wire.MsgVerAck{})...)
	f.Add(false, hs)
	f.Add(true, frameMsg(&wire.MsgPing{Nonce: 1}))
	f.Add(true, okFrame("madeup", []byte{1, 2, 3}))
	f.Add(true, rawFrame(testNet, wire.CmdInv, []byte{0xfd, 0xff, 0xff}, 3, nil))
	f.Add(true, frameMsg(addrMsg(3)))
	f.Add(true, frameMsg(&wire.MsgWtxidRelay{}))
	rc := frameMsg(&wire.MsgSendTxRcncl{Version: 1, Salt: 2})
	f.Add(false, append(append(frameMsg(v), rc...), rc...))
	f.Add(true, rc)
	f.Add(false, []byte("garbage"))
	f.Fuzz(func(t *testing.T, handshake bool, data []byte) {
		c1, c2 := net.Pipe()
		cfg := baseConfig()
		cfg.HandshakeTimeout = 2 * time.Second
		cfg.TxReconciliation = true // so the BIP330 checks see the input too
		p := NewInbound(cfg, withAddr(c1, "203.0.113.1:1"))
		p.Start()
		go func() {
			// Drain whatever the peer says.
			var buf [4096]byte
			for {
				if _, err := c2.Read(buf[:]); err != nil {
					return
				}
			}
		}()
		c2.SetWriteDeadline(time.Now().Add(2 * time.Second))
		if handshake {
			c2.Write(hs)
		}
		c2.Write(data)
		c2.Close()
		select {
		case <-p.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("peer did not finish")
		}
		if q := p.QueuedBytes(); q != 0 {
			t.Fatalf("%d bytes left queued", q)
		}
	})
}
