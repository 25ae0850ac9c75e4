package node

import (
	"sync"
	"testing"
)

// TestGenerateBlockConcurrently: generateblock calls racing each other all
// succeed, as in bitcoind; a call whose tip moved while its block was
// checked is not refused.
func TestGenerateBlockConcurrently(t *testing.T) {
	n := newTestNode(t)
	n.mine(t, 1)
	const workers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan string, workers*each)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if _, rerr := n.rpcCall(t, "generateblock", "raw(51)", []string{}); rerr != nil {
					errs <- rerr.Message
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("generateblock: %s", err)
	}
}
