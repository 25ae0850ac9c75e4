package node

import (
	"math/rand/v2"
	"sync"
	"time"
)

// scheduler runs the node's periodic chores (mempool expiry, saving the
// fee estimates) from one goroutine, as Core's CScheduler. Its clock can
// be moved forward without waiting (the mockscheduler RPC), so tests can
// make an hour's chores happen at once.
type scheduler struct {
	mu     sync.Mutex
	tasks  []*schedTask
	offset time.Duration // how far mockscheduler has moved the clock
	kick   chan struct{}
}

// schedTask is one chore and when it is next due.
type schedTask struct {
	name  string
	every time.Duration
	// jitter, when positive, adds a random delay below it to each
	// interval, so the chore's timing does not identify the node.
	jitter time.Duration
	next   time.Time // on the scheduler's clock
	fn     func()
}

// interval returns the delay until the task's next run.
func (t *schedTask) interval() time.Duration {
	if t.jitter <= 0 {
		return t.every
	}
	return t.every + rand.N(t.jitter)
}

// schedulerTick is how often the scheduler looks for due chores.
const schedulerTick = time.Second

func newScheduler() *scheduler {
	return &scheduler{kick: make(chan struct{}, 1)}
}

// every schedules fn to run every d, first d from now.
func (sc *scheduler) every(name string, d time.Duration, fn func()) {
	sc.everyJittered(name, d, 0, fn)
}

// everyJittered schedules fn to run after d plus a random delay below
// jitter, again and again (Core's chores that reschedule themselves at a
// random time).
func (sc *scheduler) everyJittered(name string, d, jitter time.Duration, fn func()) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	t := &schedTask{name: name, every: d, jitter: jitter, fn: fn}
	t.next = time.Now().Add(sc.offset + t.interval())
	sc.tasks = append(sc.tasks, t)
}

// mockForward moves the scheduler's clock forward by d and runs what has
// become due before returning.
func (sc *scheduler) mockForward(d time.Duration) {
	sc.mu.Lock()
	sc.offset += d
	sc.mu.Unlock()
	sc.runDue()
}

// runDue runs every chore that is due, once each, in the order they were
// scheduled.
func (sc *scheduler) runDue() {
	sc.mu.Lock()
	now := time.Now().Add(sc.offset)
	var due []*schedTask
	for _, t := range sc.tasks {
		if !t.next.After(now) {
			due = append(due, t)
			t.next = now.Add(t.interval())
		}
	}
	sc.mu.Unlock()
	for _, t := range due {
		t.fn()
	}
}

// run runs chores until quit is closed.
func (sc *scheduler) run(quit <-chan struct{}) {
	// Core's thread lines, which tools wait for.
	srvrLog.Info("scheduler thread start")
	defer srvrLog.Info("scheduler thread exit")
	t := time.NewTicker(schedulerTick)
	defer t.Stop()
	for {
		select {
		case <-quit:
			return
		case <-t.C:
			sc.runDue()
		}
	}
}
