package node

import (
	"testing"
	"time"
)

func TestSchedulerMockForward(t *testing.T) {
	sc := newScheduler()
	var hourly, minutely int
	sc.every("hourly", time.Hour, func() { hourly++ })
	sc.every("minutely", time.Minute, func() { minutely++ })
	sc.runDue()
	if hourly != 0 || minutely != 0 {
		t.Fatalf("ran before due: %d %d", hourly, minutely)
	}
	sc.mockForward(59 * time.Minute)
	if hourly != 0 || minutely != 1 {
		t.Fatalf("after 59m: hourly %d minutely %d, want 0 1", hourly, minutely)
	}
	sc.mockForward(time.Minute)
	if hourly != 1 {
		t.Fatalf("after 60m: hourly %d, want 1", hourly)
	}
	sc.mockForward(time.Hour)
	if hourly != 2 {
		t.Fatalf("after 120m: hourly %d, want 2", hourly)
	}
}
