package zmq

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Per-socket resource limits. libzmq has none of these, but a node must not
// let a subscriber (or a crowd of them) exhaust its memory or goroutines.
const (
	maxSubscribers = 128
	// maxQueueBytes bounds what one subscriber may have queued; with 4 MB
	// blocks it still holds dozens of rawblock messages.
	maxQueueBytes = 256 << 20
	// maxHWM replaces a high-water mark of 0, which bitcoind (libzmq)
	// treats as "no limit".
	maxHWM = 1 << 20
)

// message is one encoded three-frame notification. Its buffers are shared
// by every subscriber it is queued for and never modified.
type message struct {
	parts [3][]byte
	size  int
	// inline holds the frame headers, topic and counter, and the whole
	// message when the body is small (hashes, sequence bodies), so most
	// messages cost one allocation.
	inline [inlineSize]byte
}

// inlineSize fits the longest topic, a 41-byte sequence body and every
// frame header.
const inlineSize = 2 + 9 + 2 + 41 + 2 + 4 + 4

// appendTail appends the counter frame.
func appendTail(b []byte, seq uint32) []byte {
	b = appendFrameHeader(b, 4, false)
	return binary.LittleEndian.AppendUint32(b, seq)
}

// newSmallMessage encodes a message whose body fits inline, copying body
// (so the caller's array may live on its stack).
func newSmallMessage(topic string, body []byte, seq uint32) *message {
	m := &message{}
	b := appendFrameHeader(m.inline[:0], len(topic), true)
	b = append(b, topic...)
	b = appendFrameHeader(b, len(body), true)
	b = append(b, body...)
	b = appendTail(b, seq)
	m.parts[0] = b
	m.size = len(b)
	return m
}

// newMessage encodes a message that shares body (which must not change).
func newMessage(topic string, body []byte, seq uint32) *message {
	if len(body)+len(topic)+2+2+9+6 <= inlineSize {
		return newSmallMessage(topic, body, seq)
	}
	m := &message{}
	b := appendFrameHeader(m.inline[:0], len(topic), true)
	b = append(b, topic...)
	b = appendFrameHeader(b, len(body), true)
	h := len(b)
	b = appendTail(b, seq)
	m.parts[0], m.parts[1], m.parts[2] = b[:h], body, b[h:]
	m.size = len(b) + len(body)
	return m
}

// pubSocket is one bound PUB endpoint, shared by every publisher that
// names its address.
type pubSocket struct {
	address string // as configured (after unix: → ipc:// rewriting)
	network string // "tcp" or "unix"
	laddr   string
	hwm     int // queue length per subscriber, from the first publisher
	ln      net.Listener

	mu     sync.Mutex
	conns  map[net.Conn]struct{} // every open connection, for Close
	subs   map[*subscriber]struct{}
	closed bool

	// interest[t] counts subscribers that want topic t, so publishers can
	// skip serializing what nobody reads.
	interest [numTopics]atomic.Int32
	wg       sync.WaitGroup
}

// listen binds the socket. A stale ipc socket file (left by a crashed
// process, nothing accepting on it) is removed, as libzmq does on bind.
func (s *pubSocket) listen() error {
	ln, err := net.Listen(s.network, s.laddr)
	if err != nil && s.network == "unix" && errors.Is(err, syscall.EADDRINUSE) {
		if fi, serr := os.Lstat(s.laddr); serr == nil && fi.Mode()&os.ModeSocket != 0 {
			if c, derr := net.DialTimeout("unix", s.laddr, time.Second); derr == nil {
				c.Close()
			} else if os.Remove(s.laddr) == nil {
				ln, err = net.Listen(s.network, s.laddr)
			}
		}
	}
	if err != nil {
		return err
	}
	s.ln = ln
	s.conns = make(map[net.Conn]struct{})
	s.subs = make(map[*subscriber]struct{})
	s.wg.Add(1)
	go s.acceptLoop()
	return nil
}

func (s *pubSocket) acceptLoop() {
	defer s.wg.Done()
	var backoff time.Duration
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if s.isClosed() || errors.Is(err, net.ErrClosed) {
				return
			}
			// Transient (e.g. out of file descriptors): back off rather
			// than spin.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		s.mu.Lock()
		if s.closed || len(s.conns) >= maxSubscribers {
			s.mu.Unlock()
			c.Close()
			continue
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c)
	}
}

func (s *pubSocket) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// serve owns one connection: handshake, then subscription updates until
// the peer leaves or breaks the protocol.
func (s *pubSocket) serve(c net.Conn) {
	defer s.wg.Done()
	defer s.drop(c, nil)
	if err := handshake(c); err != nil {
		log.Debugf("ZMQ %s: handshake with %s failed: %v", s.address, c.RemoteAddr(), err)
		return
	}
	log.Debugf("ZMQ %s: subscriber %s connected", s.address, c.RemoteAddr())
	sub := &subscriber{
		sock:  s,
		conn:  c,
		hwm:   s.hwm,
		wake:  make(chan struct{}, 1),
		done:  make(chan struct{}),
		count: make(map[string]int),
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.subs[sub] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.drop(c, sub)
	go sub.writeLoop()
	err := sub.readLoop()
	log.Debugf("ZMQ %s: subscriber %s disconnected: %v", s.address, c.RemoteAddr(), err)
}

// drop forgets a connection (and its subscriber) and closes it.
func (s *pubSocket) drop(c net.Conn, sub *subscriber) {
	s.mu.Lock()
	delete(s.conns, c)
	if sub != nil {
		if _, ok := s.subs[sub]; ok {
			delete(s.subs, sub)
			s.setMask(sub, 0)
			close(sub.done)
		}
	}
	s.mu.Unlock()
	c.Close()
}

// setMask records which topics sub wants. Called with s.mu held.
func (s *pubSocket) setMask(sub *subscriber, mask uint32) {
	old := sub.mask.Swap(mask)
	for t := range numTopics {
		was, now := old&(1<<t) != 0, mask&(1<<t) != 0
		switch {
		case now && !was:
			s.interest[t].Add(1)
		case was && !now:
			s.interest[t].Add(-1)
		}
	}
}

// wants reports whether any subscriber currently wants topic t.
func (s *pubSocket) wants(t int) bool { return s.interest[t].Load() > 0 }

// publish queues m for every subscriber that wants topic t and returns how
// many of them had to drop it. It never blocks on the network.
func (s *pubSocket) publish(t int, m *message) (dropped uint64) {
	bit := uint32(1) << t
	s.mu.Lock()
	for sub := range s.subs {
		if sub.mask.Load()&bit != 0 && !sub.enqueue(m) {
			dropped++
		}
	}
	s.mu.Unlock()
	return dropped
}

// subscribers returns the number of connected subscribers.
func (s *pubSocket) subscribers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.subs)
}

// close stops accepting, disconnects everyone and waits for the socket's
// goroutines.
func (s *pubSocket) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.ln.Close()
	s.wg.Wait()
}

// subscriber is one connected SUB (or XSUB) peer.
type subscriber struct {
	sock *pubSocket
	conn net.Conn
	hwm  int
	mask atomic.Uint32 // topics wanted, bit per topic id
	// warned is set once the first drop has been logged.
	warned atomic.Bool

	// count holds the peer's subscriptions with ZeroMQ's reference
	// counting (subscribing twice needs two cancels). Reader goroutine only.
	count map[string]int

	qmu    sync.Mutex
	queue  []*message
	qbytes int
	wake   chan struct{}
	done   chan struct{}
}

// enqueue adds m unless the queue is at its high-water mark or byte budget.
func (sub *subscriber) enqueue(m *message) bool {
	sub.qmu.Lock()
	if len(sub.queue) >= sub.hwm || (len(sub.queue) > 0 && sub.qbytes+m.size > maxQueueBytes) {
		sub.qmu.Unlock()
		if !sub.warned.Swap(true) {
			log.Warnf("ZMQ %s: subscriber %s is not keeping up; dropping messages",
				sub.sock.address, sub.conn.RemoteAddr())
		}
		return false
	}
	sub.queue = append(sub.queue, m)
	sub.qbytes += m.size
	sub.qmu.Unlock()
	select {
	case sub.wake <- struct{}{}:
	default:
	}
	return true
}

// writeLoop sends queued messages, batching everything queued into one
// vectored write.
func (sub *subscriber) writeLoop() {
	defer sub.sock.wg.Done()
	var batch []*message
	var bufs net.Buffers
	for {
		select {
		case <-sub.wake:
		case <-sub.done:
			return
		}
		for {
			sub.qmu.Lock()
			batch, sub.queue = sub.queue, batch[:0]
			sub.qbytes = 0
			sub.qmu.Unlock()
			if len(batch) == 0 {
				break
			}
			bufs = bufs[:0]
			for _, m := range batch {
				for _, p := range m.parts {
					if len(p) > 0 {
						bufs = append(bufs, p)
					}
				}
			}
			clear(batch) // let sent messages be collected
			w := bufs    // WriteTo consumes its receiver
			if _, err := w.WriteTo(sub.conn); err != nil {
				sub.conn.Close() // makes readLoop return and drop us
				return
			}
			clear(bufs)
		}
	}
}

// readLoop applies the peer's subscription messages until it disconnects
// and returns why it stopped.
func (sub *subscriber) readLoop() error {
	fr := frameReader{r: sub.conn}
	frames := 0
	for {
		fl, body, err := fr.readFrame()
		if err != nil {
			return err
		}
		frames++
		if fl&flagMore != 0 {
			// Part of a multi-frame message: PUB sockets ignore those,
			// but a peer may not stream them forever.
			if frames >= maxInboundFrames {
				return fmt.Errorf("%w: %d-frame message", ErrProtocol, frames)
			}
			continue
		}
		single := frames == 1
		frames = 0
		if !single {
			continue
		}
		ch, ok := parseSubscription(fl, body)
		if !ok {
			continue
		}
		if !sub.apply(ch) {
			return fmt.Errorf("%w: over %d subscriptions", ErrProtocol, maxSubscriptions)
		}
	}
}

// apply updates the subscription set and the topic mask. It returns false
// when the peer holds too many distinct subscriptions.
func (sub *subscriber) apply(ch subChange) bool {
	if ch.subscribe {
		if _, ok := sub.count[ch.topic]; !ok && len(sub.count) >= maxSubscriptions {
			return false
		}
		sub.count[ch.topic]++
	} else if n, ok := sub.count[ch.topic]; ok {
		if n <= 1 {
			delete(sub.count, ch.topic)
		} else {
			sub.count[ch.topic] = n - 1
		}
	}
	var mask uint32
	for t := range numTopics {
		for prefix := range sub.count {
			if strings.HasPrefix(topicNames[t], prefix) {
				mask |= 1 << t
				break
			}
		}
	}
	s := sub.sock
	s.mu.Lock()
	if _, ok := s.subs[sub]; ok {
		s.setMask(sub, mask)
	}
	s.mu.Unlock()
	return true
}
