package clock

import (
	"testing"
	"time"
)

func TestMockFreezesAndReleases(t *testing.T) {
	defer SetMock(0)
	if Mock() != 0 {
		t.Fatalf("mock set at start: %d", Mock())
	}
	if d := time.Since(Now()); d < -time.Second || d > time.Second {
		t.Fatalf("real Now off by %v", d)
	}
	ch := Changed()
	SetMock(1_300_000_000)
	select {
	case <-ch:
	default:
		t.Fatal("Changed not closed by SetMock")
	}
	if Unix() != 1_300_000_000 || Now().Unix() != 1_300_000_000 {
		t.Fatalf("mock not applied: %d %v", Unix(), Now())
	}
	time.Sleep(5 * time.Millisecond)
	if Unix() != 1_300_000_000 {
		t.Fatal("mock time advanced")
	}
	if got := Since(time.Unix(1_299_999_990, 0)); got != 10*time.Second {
		t.Fatalf("Since = %v, want 10s", got)
	}
	SetMock(0)
	if d := time.Since(Now()); d < -time.Second || d > time.Second {
		t.Fatalf("Now after release off by %v", d)
	}
}
