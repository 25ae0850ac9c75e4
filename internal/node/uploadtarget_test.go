package node

import (
	"testing"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/wire"
)

// TestUploadTarget: the target counts bytes per 24 h of node time, the
// historical limit keeps a maximal block per remaining ten minutes in
// reserve, and a new cycle starts the count again.
func TestUploadTarget(t *testing.T) {
	clock.SetMock(1_700_000_000)
	defer clock.SetMock(0)
	const limit = 800 << 20
	u := &uploadTarget{limit: limit}
	if u.reached(false) || u.reached(true) {
		t.Fatal("reached before anything was sent")
	}
	// A full cycle ahead needs 144 maximal blocks in reserve: 576 MB.
	u.record(limit - 144*wire.MaxBlockSerializedSize + 1)
	if u.reached(false) || !u.reached(true) {
		t.Fatalf("historical limit: reached %v/%v, want false/true", u.reached(false), u.reached(true))
	}
	const day = 24 * 3600
	if !u.refuseBlock(0, 8*day) || u.refuseBlock(7*day, 8*day) {
		t.Fatal("refuseBlock should refuse only blocks more than a week old")
	}
	u.record(limit)
	if !u.reached(false) {
		t.Fatal("target not reached after the whole budget")
	}
	st := u.status()
	if !st.TargetReached || st.ServeHistoricalBlocks || st.BytesLeftInCycle != 0 || st.Target != limit || st.TimeLeftInCycle != day {
		t.Fatalf("status %+v", st)
	}
	clock.SetMock(1_700_000_000 + day + 1)
	if u.reached(false) || u.reached(true) {
		t.Fatal("the next cycle did not start afresh")
	}
	var none *uploadTarget
	none.record(1)
	if none.reached(true) || none.status().Target != 0 {
		t.Fatal("no target: nothing is ever reached")
	}
}
