package node

import (
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
	next  time.Time // on the scheduler's clock
	fn    func()
}

// schedulerTick is how often the scheduler looks for due chores.
const schedulerTick = time.Second

func newScheduler() *scheduler {
	return &scheduler{kick: make(chan struct{}, 1)}
}

// now is the scheduler's clock: real time plus the mocked offset. It does
// not follow setmocktime, as Core's scheduler does not.
func (sc *scheduler) now() time.Time {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return time.Now().Add(sc.offset)
}

// every schedules fn to run every d, first d from now.
func (sc *scheduler) every(name string, d time.Duration, fn func()) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.tasks = append(sc.tasks, &schedTask{name: name, every: d, next: time.Now().Add(sc.offset + d), fn: fn})
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
			t.next = now.Add(t.every)
		}
	}
	sc.mu.Unlock()
	for _, t := range due {
		t.fn()
	}
}

// run runs chores until quit is closed.
func (sc *scheduler) run(quit <-chan struct{}) {
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
