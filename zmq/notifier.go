package zmq

import (
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/btcnode/btcd/wire"
)

// Sequence labels of the "sequence" topic.
const (
	LabelBlockConnected    = 'C'
	LabelBlockDisconnected = 'D'
	LabelTxAdded           = 'A'
	LabelTxRemoved         = 'R'
)

// publisher is one (topic, address) notifier with its own message counter,
// bitcoind's CZMQAbstractPublishNotifier.
type publisher struct {
	topic   int
	address string
	hwm     int
	sock    *pubSocket

	seq     uint32 // next message number; guarded by Notifier.mu
	dropped atomic.Uint64
}

// Notifier publishes chain and mempool events to ZeroMQ subscribers. Its
// methods are safe for concurrent use, never block on subscribers, and do
// nothing on a nil *Notifier, so the daemon may hold a nil one when no
// -zmqpub* option is set.
type Notifier struct {
	// mu orders events: every message of one event gets its counters and
	// reaches the subscriber queues before the next event's.
	mu      sync.Mutex
	closed  bool
	pubs    []*publisher // getzmqnotifications order
	byTopic [numTopics][]*publisher
	socks   []*pubSocket
	syncing atomic.Bool
	// tip is the last block connected since the last TipChanged, whose
	// hashblock and rawblock that call publishes (rawblock serialized
	// when connected, only if someone listens).
	tip struct {
		hash wire.Hash
		raw  []byte
		ok   bool
	}
}

// New validates cfg, binds every publisher address and returns the
// notifier. It fails with ErrBadAddress or ErrBadHWM naming the option at
// fault, or ErrBind when an address cannot be bound. With no publisher
// configured it returns (nil, nil); a nil *Notifier ignores all calls.
func New(cfg Config) (*Notifier, error) {
	n, errs := build(cfg, false)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return n, nil
}

// NewTolerant is New, except that a publisher whose address is malformed
// or cannot be bound is left out instead of failing: its error is
// returned with the others, and the notifier serves the rest (nil when
// none is left). This is bitcoind's behaviour: a bad -zmqpub option is
// logged and the node runs on.
func NewTolerant(cfg Config) (*Notifier, []error) {
	return build(cfg, true)
}

func build(cfg Config, tolerant bool) (*Notifier, []error) {
	if !cfg.Enabled() {
		return nil, nil
	}
	var errs []error
	addrs, hwms := cfg.lists()
	n := &Notifier{}
	byAddr := make(map[string]*pubSocket)
	for t := range numTopics {
		opt := "zmqpub" + topicNames[t]
		if hwms[t] < 0 {
			return nil, []error{fmt.Errorf("%w: --%shwm=%d must be >= 0", ErrBadHWM, opt, hwms[t])}
		}
		for _, a := range addrs[t] {
			canon, network, laddr, err := ParseAddress(opt, a)
			if err != nil {
				if !tolerant {
					return nil, []error{err}
				}
				errs = append(errs, err)
				continue
			}
			hwm := hwms[t]
			p := &publisher{topic: t, address: canon, hwm: hwm}
			sock := byAddr[canon]
			if sock == nil {
				// Like libzmq, the socket's HWM is set by the first
				// notifier that creates it.
				q := hwm
				if q == 0 {
					q = maxHWM
				}
				sock = &pubSocket{address: canon, network: network, laddr: laddr, hwm: q}
				byAddr[canon] = sock
				n.socks = append(n.socks, sock)
			}
			p.sock = sock
			n.pubs = append(n.pubs, p)
			n.byTopic[t] = append(n.byTopic[t], p)
		}
	}
	var failed map[*pubSocket]bool
	for i, s := range n.socks {
		if err := s.listen(); err != nil {
			err = fmt.Errorf("%w: %s: %v", ErrBind, s.address, err)
			if !tolerant {
				for _, b := range n.socks[:i] {
					b.close()
				}
				return nil, []error{err}
			}
			errs = append(errs, err)
			if failed == nil {
				failed = map[*pubSocket]bool{}
			}
			failed[s] = true
		}
	}
	if failed != nil {
		n.dropSockets(failed)
	}
	if len(n.pubs) == 0 {
		return nil, errs
	}
	for _, p := range n.pubs {
		log.Infof("ZMQ publishing %s on %s (hwm %d)", topicNames[p.topic], p.address, p.hwm)
	}
	return n, errs
}

// dropSockets removes sockets that could not be bound, with their
// publishers.
func (n *Notifier) dropSockets(failed map[*pubSocket]bool) {
	socks := n.socks[:0]
	for _, s := range n.socks {
		if !failed[s] {
			socks = append(socks, s)
		}
	}
	n.socks = socks
	pubs := n.pubs[:0]
	for _, p := range n.pubs {
		if !failed[p.sock] {
			pubs = append(pubs, p)
		}
	}
	n.pubs = pubs
	for t := range n.byTopic {
		kept := n.byTopic[t][:0]
		for _, p := range n.byTopic[t] {
			if !failed[p.sock] {
				kept = append(kept, p)
			}
		}
		n.byTopic[t] = kept
	}
}

// Endpoints returns the active publishers in the shape and order of
// bitcoind's getzmqnotifications RPC (type, address, hwm).
func (n *Notifier) Endpoints() []Endpoint {
	if n == nil {
		return []Endpoint{}
	}
	out := make([]Endpoint, len(n.pubs))
	for i, p := range n.pubs {
		out[i] = Endpoint{Type: "pub" + topicNames[p.topic], Address: p.address, HWM: p.hwm}
	}
	return out
}

// PublisherStats describes one publisher's traffic.
type PublisherStats struct {
	Type        string
	Address     string
	Sequence    uint32 // number of messages published (the next counter)
	Dropped     uint64 // messages dropped at full subscriber queues
	Subscribers int    // subscribers connected to the address
}

// Stats returns per-publisher counters, in Endpoints order.
func (n *Notifier) Stats() []PublisherStats {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]PublisherStats, len(n.pubs))
	for i, p := range n.pubs {
		out[i] = PublisherStats{
			Type:        "pub" + topicNames[p.topic],
			Address:     p.address,
			Sequence:    p.seq,
			Dropped:     p.dropped.Load(),
			Subscribers: p.sock.subscribers(),
		}
	}
	return out
}

// SetSyncing tells the notifier whether the node is in initial block
// download. Like bitcoind, hashblock and rawblock are not published while
// syncing; sequence and the per-transaction topics still are.
func (n *Notifier) SetSyncing(syncing bool) {
	if n != nil {
		n.syncing.Store(syncing)
	}
}

// BlockConnected publishes a block connected to the main chain: hashtx and
// rawtx for each of its transactions and sequence 'C'. Its hashblock and
// rawblock wait for TipChanged: as bitcoind, those topics announce the
// new tip once per chain update, not every block a reorg connects. The
// block must not be modified during the call.
func (n *Notifier) BlockConnected(block *wire.MsgBlock) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	n.blockTxs(block)
	hash := block.BlockHash()
	n.sequence(hash, LabelBlockConnected, 0, false)
	n.tip.hash, n.tip.ok, n.tip.raw = hash, true, nil
	// Serialized now, while the block is the caller's: by TipChanged it
	// may be gone. Not during initial download, which publishes none.
	if n.wants(topicRawBlock) && !n.syncing.Load() {
		n.tip.raw = block.AppendTo(make([]byte, 0, block.SerializeSize()), true)
	}
}

// TipChanged publishes hashblock and rawblock for the tip a chain update
// ended on, when that update connected blocks and the node is not in
// initial block download; an update that only disconnected blocks
// publishes nothing, as in bitcoind.
func (n *Notifier) TipChanged() {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed || !n.tip.ok {
		return
	}
	n.tip.ok = false
	if n.syncing.Load() {
		return
	}
	n.hash(topicHashBlock, n.tip.hash)
	// The bytes go to the subscriber queues as they are: a reorg's
	// earlier block was serialized into a buffer of its own.
	raw := n.tip.raw
	n.tip.raw = nil
	if !n.wants(topicRawBlock) {
		raw = nil
	}
	n.emit(topicRawBlock, raw)
}

// BlockDisconnected publishes a block disconnected from the main chain:
// hashtx and rawtx for each of its transactions (as bitcoind does), then
// sequence 'D'.
func (n *Notifier) BlockDisconnected(block *wire.MsgBlock) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	n.blockTxs(block)
	n.sequence(block.BlockHash(), LabelBlockDisconnected, 0, false)
	n.tip.ok = false // a block connected and then disconnected is no tip
}

// TxAccepted publishes a transaction accepted into the mempool: hashtx,
// rawtx and sequence 'A' with mempoolSeq, the mempool sequence number
// after the addition.
func (n *Notifier) TxAccepted(tx *wire.MsgTx, mempoolSeq uint64) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	// The txid costs a serialization and a hash; skip it when nobody
	// listens (a subscriber arriving meanwhile just misses this event).
	if !n.wants(topicHashTx) && !n.wants(topicSequence) {
		n.emit(topicHashTx, nil)
		n.rawTx(tx)
		n.emit(topicSequence, nil)
		return
	}
	txid := tx.TxHash()
	n.hash(topicHashTx, txid)
	n.rawTx(tx)
	n.sequence(txid, LabelTxAdded, mempoolSeq, true)
}

// TxRemoved publishes sequence 'R' for a transaction that left the mempool
// for any reason other than inclusion in a block (eviction, expiry,
// replacement, conflict, reorg limits). Removals caused by a connected
// block must not be reported here.
func (n *Notifier) TxRemoved(txid wire.Hash, mempoolSeq uint64) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	n.sequence(txid, LabelTxRemoved, mempoolSeq, true)
}

// Close unbinds every address, disconnects subscribers (queued messages
// are discarded, as with bitcoind's zero linger) and waits for the
// package's goroutines. Later calls do nothing.
func (n *Notifier) Close() {
	if n == nil {
		return
	}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return
	}
	n.closed = true
	n.mu.Unlock()
	for _, s := range n.socks {
		s.close()
	}
}

// blockTxs publishes hashtx and rawtx for every transaction of block, in
// order. Called with n.mu held.
func (n *Notifier) blockTxs(block *wire.MsgBlock) {
	if len(n.byTopic[topicHashTx])+len(n.byTopic[topicRawTx]) == 0 {
		return
	}
	var txids []wire.Hash
	if n.wants(topicHashTx) {
		txids = block.TxHashes()
	}
	for i, tx := range block.Transactions {
		if txids != nil {
			n.hash(topicHashTx, txids[i])
		} else {
			n.emit(topicHashTx, nil)
		}
		n.rawTx(tx)
	}
}

// rawTx publishes tx on rawtx. Called with n.mu held.
func (n *Notifier) rawTx(tx *wire.MsgTx) {
	if n.wants(topicRawTx) {
		n.emit(topicRawTx, tx.AppendTo(make([]byte, 0, tx.SerializeSize()), true))
	} else {
		n.emit(topicRawTx, nil)
	}
}

// hash publishes h, byte-reversed as bitcoind sends it, on topic t.
// Called with n.mu held.
func (n *Notifier) hash(t int, h wire.Hash) {
	if !n.wants(t) {
		n.emit(t, nil)
		return
	}
	var b [wire.HashSize]byte
	reverseHash(&b, &h)
	n.emitSmall(t, b[:])
}

// sequence publishes a sequence-topic message. Called with n.mu held.
func (n *Notifier) sequence(h wire.Hash, label byte, mempoolSeq uint64, withSeq bool) {
	if !n.wants(topicSequence) {
		n.emit(topicSequence, nil)
		return
	}
	var b [wire.HashSize + 1 + 8]byte
	reverseHash((*[wire.HashSize]byte)(b[:wire.HashSize]), &h)
	b[wire.HashSize] = label
	size := wire.HashSize + 1
	if withSeq {
		binary.LittleEndian.PutUint64(b[size:], mempoolSeq)
		size += 8
	}
	n.emitSmall(topicSequence, b[:size])
}

func reverseHash(dst *[wire.HashSize]byte, h *wire.Hash) {
	for i := range wire.HashSize {
		dst[i] = h[wire.HashSize-1-i]
	}
}

// wants reports whether any subscriber of any publisher of topic t would
// receive a message now, so bodies nobody reads are never serialized.
func (n *Notifier) wants(t int) bool {
	for _, p := range n.byTopic[t] {
		if p.sock.wants(t) {
			return true
		}
	}
	return false
}

// emitSmall is emit for bodies that fit a message inline; body is copied
// and may live on the caller's stack. Called with n.mu held.
func (n *Notifier) emitSmall(t int, body []byte) {
	for _, p := range n.byTopic[t] {
		seq := p.seq
		p.seq++
		if !p.sock.wants(t) {
			continue
		}
		if d := p.sock.publish(t, newSmallMessage(topicNames[t], body, seq)); d > 0 {
			p.dropped.Add(d)
		}
	}
}

// emit sends body on topic t through each of its publishers. Every
// publisher's counter advances even when nobody listens (or body is nil
// because nobody did a moment ago), exactly as bitcoind counts messages
// handed to a PUB socket without subscribers. Called with n.mu held.
func (n *Notifier) emit(t int, body []byte) {
	for _, p := range n.byTopic[t] {
		seq := p.seq
		p.seq++
		if body == nil || !p.sock.wants(t) {
			continue
		}
		if d := p.sock.publish(t, newMessage(topicNames[t], body, seq)); d > 0 {
			p.dropped.Add(d)
		}
	}
}
