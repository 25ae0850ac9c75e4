package rpc

import (
	"testing"

	"github.com/btcnode/btcd/chaincfg"
)

func benchServer(b *testing.B) *Server {
	s, err := New(Config{DataDir: b.TempDir(), Net: NetParamsOf(&chaincfg.MainNetParams)})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkHandleUptime measures the request path without HTTP: parse,
// dispatch, encode.
func BenchmarkHandleUptime(b *testing.B) {
	s := benchServer(b)
	body := []byte(`{"jsonrpc":"2.0","method":"uptime","params":[],"id":1}`)
	b.ReportAllocs()
	for b.Loop() {
		if st, _ := s.handleBody(body); st != 200 {
			b.Fatal(st)
		}
	}
}

// BenchmarkDecodeRawTransaction decodes a one-input, two-output legacy
// transaction.
func BenchmarkDecodeRawTransaction(b *testing.B) {
	s := benchServer(b)
	body := []byte(`{"jsonrpc":"2.0","method":"decoderawtransaction","params":["` + firstSpendHex + `"],"id":1}`)
	b.ReportAllocs()
	for b.Loop() {
		if st, _ := s.handleBody(body); st != 200 {
			b.Fatal(st)
		}
	}
}

// BenchmarkBatch100 answers a batch of 100 uptime calls.
func BenchmarkBatch100(b *testing.B) {
	s := benchServer(b)
	body := []byte("[")
	for i := 0; i < 100; i++ {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, `{"jsonrpc":"2.0","method":"uptime","id":1}`...)
	}
	body = append(body, ']')
	b.ReportAllocs()
	for b.Loop() {
		if st, _ := s.handleBody(body); st != 200 {
			b.Fatal(st)
		}
	}
}

func BenchmarkScriptToAsm(b *testing.B) {
	script := mustHex("47304402204e45e16932b8af514961a1d3a1a25fdf3f4f7732e9d624c6c61548ab5fb8cd410220181522ec8eca07de4860a4acdd12909d831cc56cbbac4622082221a8768d1d0901")
	b.ReportAllocs()
	for b.Loop() {
		scriptToAsm(script, true)
	}
}
