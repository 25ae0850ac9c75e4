package peer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/wire"
)

// priority orders the write queue: control messages (handshake, ping,
// feature negotiation, requests) go before data (blocks, transactions,
// headers, responses), which go before trickled transaction announcements.
// A pong is data: it follows the answers to everything the peer sent
// before its ping, as from Core (one send queue), so peers and test
// harnesses can use ping as a barrier after a getdata.
type priority int

const (
	prioControl priority = iota
	prioData
	prioTrickle
	numPrio
)

// priorityOf classifies a message by command.
func priorityOf(cmd string) priority {
	switch cmd {
	case wire.CmdVersion, wire.CmdVerAck, wire.CmdPing,
		wire.CmdWtxidRelay, wire.CmdSendAddrV2, wire.CmdSendHeaders,
		wire.CmdFeeFilter, wire.CmdSendCmpct, wire.CmdGetHeaders,
		wire.CmdGetBlocks, wire.CmdGetData, wire.CmdGetBlockTxn,
		wire.CmdGetCFilters, wire.CmdGetCFHeaders, wire.CmdGetCFCheckpt,
		wire.CmdReject, wire.CmdGetAddr, wire.CmdSendTxRcncl:
		return prioControl
	}
	return prioData
}

// outMsg is an encoded message (header and payload) waiting to be written.
type outMsg struct {
	buf  *[]byte
	cmd  string
	done chan<- struct{}
}

// fifo is a queue of outMsgs that reuses its backing array.
type fifo struct {
	items []outMsg
	head  int
}

func (f *fifo) push(m outMsg) {
	// Reclaim the consumed front once it is half the array, so a queue
	// that never quite empties does not grow without bound.
	if f.head > 0 && (f.head == len(f.items) || (f.head >= 32 && 2*f.head >= len(f.items))) {
		n := copy(f.items, f.items[f.head:])
		clear(f.items[n:])
		f.items, f.head = f.items[:n], 0
	}
	f.items = append(f.items, m)
}

func (f *fifo) pop() (outMsg, bool) {
	if f.head == len(f.items) {
		return outMsg{}, false
	}
	m := f.items[f.head]
	f.items[f.head] = outMsg{}
	f.head++
	return m, true
}

// writeQueue holds encoded messages. bytes counts every queued message and
// the one being written, so a peer that stops reading cannot make us hold
// more than the hard limit.
type writeQueue struct {
	mu     sync.Mutex
	space  *sync.Cond
	q      [numPrio]fifo
	bytes  int
	closed bool
	soft   int
	hard   int
	signal chan struct{}
}

func (w *writeQueue) init(cfg *Config) {
	w.space = sync.NewCond(&w.mu)
	w.soft, w.hard = cfg.SendBufferSize, cfg.MaxQueuedBytes
	w.signal = make(chan struct{}, 1)
}

var errQueueClosed = errors.New("write queue closed")

// push queues m; it fails with ErrSendQueueFull when the hard limit would
// be exceeded.
func (w *writeQueue) push(m outMsg, prio priority) error {
	n := len(*m.buf)
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return errQueueClosed
	}
	if w.bytes+n > w.hard {
		queued := w.bytes
		w.mu.Unlock()
		return fmt.Errorf("%w: %d bytes queued, %d more would exceed %d", ErrSendQueueFull, queued, n, w.hard)
	}
	w.bytes += n
	w.q[prio].push(m)
	w.mu.Unlock()
	select {
	case w.signal <- struct{}{}:
	default:
	}
	return nil
}

func (w *writeQueue) pop() (outMsg, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.q {
		if m, ok := w.q[i].pop(); ok {
			return m, true
		}
	}
	return outMsg{}, false
}

// written releases the accounting of a message that has been written.
func (w *writeQueue) written(n int) {
	w.mu.Lock()
	w.bytes -= n
	w.mu.Unlock()
	w.space.Broadcast()
}

// waitSpace blocks until n more bytes fit under the soft limit (or the
// queue is empty, so one large message always goes) and reports whether
// the queue is still open.
func (w *writeQueue) waitSpace(n int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for !w.closed && w.bytes > 0 && w.bytes+n > w.soft {
		w.space.Wait()
	}
	return !w.closed
}

func (w *writeQueue) queuedBytes() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.bytes
}

func (w *writeQueue) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.space.Broadcast()
}

// release returns queued buffers to the pool and signals their done
// channels once the writer has exited.
func (w *writeQueue) release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.q {
		for {
			m, ok := w.q[i].pop()
			if !ok {
				break
			}
			w.bytes -= len(*m.buf)
			wire.PutBuffer(m.buf)
			if m.done != nil {
				close(m.done)
			}
		}
		w.q[i] = fifo{}
	}
}

// sizeHint estimates a payload's size so encoding rarely regrows the
// pooled buffer.
func sizeHint(msg wire.Message) int {
	switch m := msg.(type) {
	case *wire.MsgBlock:
		return m.SerializeSize()
	case *wire.MsgTx:
		return m.SerializeSize()
	case *wire.MsgHeaders:
		return 3 + 81*len(m.Headers)
	case *wire.MsgInv:
		return 3 + wire.InvVectSize*len(m.InvList)
	case *wire.MsgGetData:
		return 3 + wire.InvVectSize*len(m.InvList)
	case *wire.MsgNotFound:
		return 3 + wire.InvVectSize*len(m.InvList)
	}
	return 256
}

// encode serializes msg with its header into a pooled buffer.
func (p *Peer) encode(msg wire.Message, enc wire.MessageEncoding) (*[]byte, error) {
	cmd := msg.Command()
	if len(cmd) > wire.CommandSize {
		return nil, fmt.Errorf("%w: command %q too long", ErrBadMessage, cmd)
	}
	pver := p.pver.Load()
	bp := wire.GetBuffer(wire.MessageHeaderSize + sizeHint(msg))
	buf, err := msg.BtcEncode((*bp)[:wire.MessageHeaderSize], pver, enc)
	if err != nil {
		wire.PutBuffer(bp)
		return nil, fmt.Errorf("encoding %s: %w", cmd, err)
	}
	payload := buf[wire.MessageHeaderSize:]
	if len(payload) > wire.MaxProtocolMessageLength || uint64(len(payload)) > uint64(msg.MaxPayloadLength(pver)) {
		wire.PutBuffer(bp)
		return nil, fmt.Errorf("%w: %s payload of %d bytes exceeds its limit", ErrBadMessage, cmd, len(payload))
	}
	hdr := wire.MessageHeader{Net: p.cfg.Net, Command: cmd, Length: uint32(len(payload))}
	// A v2 packet carries its own MAC; the v1 checksum is only needed
	// when the message goes out in v1.
	if !p.usesV2() {
		sum := wire.DoubleHashH(payload)
		copy(hdr.Checksum[:], sum[:4])
	}
	hdr.AppendTo(buf[:0])
	*bp = buf
	return bp, nil
}

// QueueMessage queues msg with witness encoding. done, if not nil, is
// closed once the message has been written or dropped. An encoding error
// or a disconnected peer is returned (and done closed); a message that
// would overflow the hard queue limit disconnects the peer.
func (p *Peer) QueueMessage(msg wire.Message, done chan<- struct{}) error {
	return p.queue(msg, wire.WitnessEncoding, priorityOf(msg.Command()), done)
}

// QueueMessageWithEncoding is QueueMessage with a chosen encoding, for
// serving blocks and transactions to peers that asked without witness.
func (p *Peer) QueueMessageWithEncoding(msg wire.Message, enc wire.MessageEncoding, done chan<- struct{}) error {
	return p.queue(msg, enc, priorityOf(msg.Command()), done)
}

// QueueMessageWait queues msg after waiting until the queue is under the
// send buffer size. Listeners serving data (getdata, getheaders) use it so
// a peer asking for more than it reads stalls its own reader, as Bitcoin
// Core stops processing a peer whose send buffer is full.
func (p *Peer) QueueMessageWait(msg wire.Message, enc wire.MessageEncoding) error {
	bp, err := p.encode(msg, enc)
	if err != nil {
		return err
	}
	if !p.wq.waitSpace(len(*bp)) {
		wire.PutBuffer(bp)
		return ErrDisconnected
	}
	return p.push(outMsg{buf: bp, cmd: msg.Command()}, priorityOf(msg.Command()))
}

func (p *Peer) queue(msg wire.Message, enc wire.MessageEncoding, prio priority, done chan<- struct{}) error {
	if !p.Connected() {
		if done != nil {
			close(done)
		}
		return ErrDisconnected
	}
	bp, err := p.encode(msg, enc)
	if err != nil {
		if done != nil {
			close(done)
		}
		return err
	}
	return p.push(outMsg{buf: bp, cmd: msg.Command(), done: done}, prio)
}

func (p *Peer) push(m outMsg, prio priority) error {
	n := len(*m.buf)
	err := p.wq.push(m, prio)
	if err == nil {
		if l := p.cfg.Listeners.OnQueue; l != nil {
			l(p, n, m.cmd)
		}
		return nil
	}
	wire.PutBuffer(m.buf)
	if m.done != nil {
		close(m.done)
	}
	if errors.Is(err, ErrSendQueueFull) {
		p.disconnect(err)
		return err
	}
	return ErrDisconnected
}

// QueuedBytes returns the bytes waiting to be written.
func (p *Peer) QueuedBytes() int { return p.wq.queuedBytes() }

// poissonDelay returns an exponentially distributed delay with the given
// mean, capped at ten means.
func poissonDelay(mean time.Duration) time.Duration {
	d := time.Duration(-math.Log1p(-rand.Float64()) * float64(mean))
	return min(d, 10*mean)
}

// writeLoop writes queued messages, trickles transaction announcements
// and runs the peer's timers (timers.go) on a short tick and whenever the
// node's mock time changes.
func (p *Peer) writeLoop() {
	defer p.wg.Done()
	defer p.disconnect(ErrConnection)
	tick := time.NewTicker(tickInterval)
	defer tick.Stop()
	// The trickle is due by the node clock, so a frozen mock time holds
	// announcements back and moving it forward releases them, as in
	// Core; the timer only wakes the writer when real time would.
	trickle := time.NewTimer(p.maybeTrickle(clock.Now()))
	defer trickle.Stop()
	// Nothing is written before the transport is settled (a v2
	// handshake writes its own bytes).
	if !p.waitTransport(tick.C) {
		return
	}
	handshake := p.handshakeDone
	for {
		if m, ok := p.wq.pop(); ok {
			if !p.write(m) {
				return
			}
			continue
		}
		select {
		case <-p.quit:
			return
		case <-p.wq.signal:
		case <-handshake:
			handshake = nil
			p.timers(clock.Now())
		case <-tick.C:
			p.timers(clock.Now())
		case <-clock.Changed():
			p.timers(clock.Now())
		case <-trickle.C:
			trickle.Reset(p.maybeTrickle(clock.Now()))
		}
	}
}

func (p *Peer) write(m outMsg) bool {
	buf := *m.buf
	if p.debug() {
		p.cfg.Log.Debugf("sending %s (%d bytes) peer=%d", m.cmd, len(buf)-wire.MessageHeaderSize, p.id)
	}
	p.conn.SetWriteDeadline(time.Now().Add(p.cfg.WriteTimeout))
	var n int
	var err error
	if p.v2 != nil {
		n, err = p.v2.WriteMessage(m.cmd, buf[wire.MessageHeaderSize:])
	} else {
		n, err = p.conn.Write(buf)
	}
	if n > 0 && p.v2 != nil {
		p.countMsg(false, m.cmd, n)
	} else if n > 0 {
		p.countSent(m.cmd, n)
	}
	if l := p.cfg.Listeners.OnWrite; l != nil {
		l(p, n, m.cmd, err)
	}
	if l := p.cfg.Listeners.OnCapture; l != nil && err == nil && len(buf) >= wire.MessageHeaderSize {
		l(p, true, m.cmd, buf[wire.MessageHeaderSize:])
	}
	size := len(buf)
	wire.PutBuffer(m.buf)
	if m.done != nil {
		close(m.done)
	}
	p.wq.written(size)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			p.disconnectf(ErrConnection, "write of %s stalled for %v", m.cmd, p.cfg.WriteTimeout)
		} else {
			p.disconnect(fmt.Errorf("%w: write %s: %v", ErrConnection, m.cmd, err))
		}
		return false
	}
	return true
}

// QueueTxInventory schedules a transaction announcement for the next
// trickle. It is dropped if the peer does not want transactions, its fee
// filter is above feePerKvB, or it already knows the transaction. The
// announcement uses the wtxid when the peer negotiated wtxidrelay.
func (p *Peer) QueueTxInventory(txid, wtxid wire.Hash, feePerKvB int64) {
	if !p.handshakeComplete() || !p.Connected() {
		return
	}
	p.mu.Lock()
	relay, byWtxid := p.relayTx, p.wtxidRelay
	p.mu.Unlock()
	if !relay || feePerKvB < p.feeFilter.Load() {
		return
	}
	iv := wire.InvVect{Type: wire.InvTypeTx, Hash: txid}
	if byWtxid {
		iv = wire.InvVect{Type: wire.InvTypeWTx, Hash: wtxid}
	}
	p.invMu.Lock()
	defer p.invMu.Unlock()
	if p.knownInv.has(&iv.Hash) || len(p.pendingInv) >= maxPendingInv {
		return
	}
	if p.pendingSet == nil {
		p.pendingSet = make(map[uint64]struct{})
	}
	key := invKey(&iv.Hash)
	if _, ok := p.pendingSet[key]; ok {
		return
	}
	p.pendingSet[key] = struct{}{}
	p.pendingInv = append(p.pendingInv, iv)
}

// LastTxInvSequence returns what the TxInvSequence hook returned at the
// last trickle of transaction announcements (0 before the first): Core's
// m_last_inv_sequence, below which mempool transactions may be served to
// the peer without leaking ones it was never told about.
func (p *Peer) LastTxInvSequence() uint64 { return p.lastInvSeq.Load() }

// PendingInventory returns the number of transaction announcements
// waiting for the next trickle.
func (p *Peer) PendingInventory() int {
	p.invMu.Lock()
	defer p.invMu.Unlock()
	return len(p.pendingInv)
}

// QueueInventory announces iv (normally a block) at once unless the peer
// already knows it.
func (p *Peer) QueueInventory(iv wire.InvVect) {
	p.invMu.Lock()
	known := p.knownInv.has(&iv.Hash)
	if !known {
		p.knownInv.add(&iv.Hash)
	}
	p.invMu.Unlock()
	if known {
		return
	}
	p.QueueMessage(&wire.MsgInv{InvList: []wire.InvVect{iv}}, nil)
}

// AddKnownInventory records that the peer has h (it announced or sent it),
// so it is not announced back.
func (p *Peer) AddKnownInventory(h wire.Hash) {
	p.invMu.Lock()
	p.knownInv.add(&h)
	p.invMu.Unlock()
}

// flushInventory sends up to MaxInvPerTrickle pending announcements. It
// first reads the TxInvSequence hook, so every transaction that entered
// the mempool before this trickle is one the peer was offered (or chose to
// filter out) and may request.
func (p *Peer) flushInventory() {
	if f := p.cfg.Listeners.TxInvSequence; f != nil {
		p.lastInvSeq.Store(f())
	}
	p.invMu.Lock()
	n := min(len(p.pendingInv), MaxInvPerTrickle)
	if n == 0 {
		p.invMu.Unlock()
		return
	}
	batch := make([]wire.InvVect, 0, n)
	for _, iv := range p.pendingInv[:n] {
		delete(p.pendingSet, invKey(&iv.Hash))
		if p.knownInv.has(&iv.Hash) {
			continue
		}
		p.knownInv.add(&iv.Hash)
		batch = append(batch, iv)
	}
	rest := copy(p.pendingInv, p.pendingInv[n:])
	clear(p.pendingInv[rest:])
	p.pendingInv = p.pendingInv[:rest]
	if rest == 0 && cap(p.pendingInv) > 4*MaxInvPerTrickle {
		// Let a burst's backing array go.
		p.pendingInv, p.pendingSet = nil, nil
	}
	p.invMu.Unlock()
	if len(batch) > 0 {
		p.queue(&wire.MsgInv{InvList: batch}, wire.WitnessEncoding, prioTrickle, nil)
	}
}

// TrickleClock is a Poisson announcement schedule shared by all inbound
// peers, as in Bitcoin Core: an attacker opening many inbound connections
// then learns of a transaction no sooner, and no more precisely, than
// with one.
type TrickleClock struct {
	mu   sync.Mutex
	mean time.Duration
	next time.Time
}

// NewTrickleClock returns a shared schedule with the given mean interval;
// zero means DefaultInboundTrickle.
func NewTrickleClock(mean time.Duration) *TrickleClock {
	if mean <= 0 {
		mean = DefaultInboundTrickle
	}
	return &TrickleClock{mean: mean}
}

// nextAfter returns the next shared announcement time after now.
func (c *TrickleClock) nextAfter(now time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	// The second case is a clock moved back (mock time).
	if !c.next.After(now) || c.next.Sub(now) > 10*c.mean {
		c.next = now.Add(poissonDelay(c.mean))
	}
	return c.next
}

// nextTrickleAfter returns the time of the announcement after now.
func (p *Peer) nextTrickleAfter(now time.Time) time.Time {
	if p.inbound && p.cfg.InboundTrickle != nil {
		return p.cfg.InboundTrickle.nextAfter(now)
	}
	return now.Add(poissonDelay(p.cfg.TrickleInterval))
}

// minTrickleWait bounds how often a writer wakes for a trickle that the
// node clock says is not due yet.
const minTrickleWait = 5 * time.Millisecond

// maybeTrickle sends the pending announcements when the trickle is due at
// now (node clock), scheduling the next one, and returns how long in real
// time until the next is due. It runs on both of the peer's goroutines
// (timers), so a clock jump takes effect before the next message read is
// answered.
func (p *Peer) maybeTrickle(now time.Time) time.Duration {
	p.invMu.Lock()
	next := p.nextTrickle
	// A clock moved far back would hold announcements for as long.
	stale := next.Sub(now) > 10*max(p.cfg.TrickleInterval, DefaultInboundTrickle)
	if next.IsZero() || stale {
		next = p.nextTrickleAfter(now)
		p.nextTrickle = next
	}
	due := !now.Before(next)
	if due {
		next = p.nextTrickleAfter(now)
		p.nextTrickle = next
	}
	p.invMu.Unlock()
	// As Core, a noban peer is told at every chance, whatever the
	// schedule (and the mock clock) says.
	noban := p.perms.Has(PermNoBan)
	if due || noban {
		p.flushInventory()
	}
	if noban {
		return tickInterval
	}
	return max(next.Sub(now), minTrickleWait)
}

// MaxRawPayload bounds QueueRaw's payload: Core's serialization limit
// (MAX_SIZE), well above what a peer accepts, so that a test can send an
// oversized message and watch the peer drop the connection.
const MaxRawPayload = 0x02000000

// QueueRaw queues a message of any command (at most wire.CommandSize
// bytes, possibly empty or unknown) with payload as given, unchecked, for
// regtest's sendmsgtopeer.
func (p *Peer) QueueRaw(cmd string, payload []byte) error {
	if len(cmd) > wire.CommandSize {
		return fmt.Errorf("%w: command %q too long", ErrBadMessage, cmd)
	}
	if len(payload) > MaxRawPayload {
		return fmt.Errorf("%w: payload of %d bytes", ErrBadMessage, len(payload))
	}
	if !p.Connected() {
		return ErrDisconnected
	}
	bp := wire.GetBuffer(wire.MessageHeaderSize + len(payload))
	buf := append((*bp)[:wire.MessageHeaderSize], payload...)
	hdr := wire.MessageHeader{Net: p.cfg.Net, Command: cmd, Length: uint32(len(payload))}
	if !p.usesV2() {
		sum := wire.DoubleHashH(payload)
		copy(hdr.Checksum[:], sum[:4])
	}
	hdr.AppendTo(buf[:0])
	*bp = buf
	return p.push(outMsg{buf: bp, cmd: cmd}, priorityOf(cmd))
}
