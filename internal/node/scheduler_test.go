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

func TestSchedulerJitter(t *testing.T) {
	sc := newScheduler()
	runs := 0
	sc.everyJittered("jittered", 10*time.Minute, 5*time.Minute, func() { runs++ })
	sc.mockForward(10*time.Minute - time.Second)
	if runs != 0 {
		t.Fatalf("ran before its base interval")
	}
	sc.mockForward(5*time.Minute + time.Second)
	if runs != 1 {
		t.Fatalf("not run within interval plus jitter: %d runs", runs)
	}
	// The next run is again between 10 and 15 minutes away.
	sc.mockForward(10*time.Minute - time.Second)
	if runs != 1 {
		t.Fatalf("rescheduled too early")
	}
	sc.mockForward(5*time.Minute + time.Second)
	if runs != 2 {
		t.Fatalf("second run missing: %d runs", runs)
	}
}
