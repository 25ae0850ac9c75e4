package rpc

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// This file is btcd's websocket endpoint: /ws on the RPC listeners, for
// btcwallet, lnd's btcd backend and btcd's rpcclient. A connection is
// authenticated either by the upgrade request's basic-auth header or by an
// "authenticate" call as its first message; then every JSON-RPC method
// works over it (the same dispatcher as HTTP) together with btcd's
// websocket-only methods (wsnotify.go, wsrescan.go), whose notifications
// arrive on the same connection as JSON-RPC 1.0 requests with a null id.

// Websocket limits. A message may be as large as an HTTP body; what a
// client has not read yet is bounded per client, and a client that lets
// it overflow is dropped rather than buffered without end.
const (
	// DefaultMaxWebsockets is btcd's --rpcmaxwebsockets default.
	DefaultMaxWebsockets = 25
	// wsMaxConcurrent bounds one client's calls in progress (btcd's
	// --rpcmaxconcurrentreqs); further messages wait unread.
	wsMaxConcurrent = 20
	// wsQueueMessages and wsQueueBytes bound the replies and
	// notifications queued for one client.
	wsQueueMessages = 4096
	wsQueueBytes    = 64 << 20
	// wsWriteTimeout drops a client that stops reading.
	wsWriteTimeout = 60 * time.Second
	// wsPingInterval keeps idle connections probed, so a vanished client
	// is noticed by a failing write.
	wsPingInterval = 60 * time.Second
)

// wsAuthTimeout is how long, in nanoseconds, a client without
// credentials in its upgrade request has to send "authenticate" (btcd's
// RPC authentication time-out, 10 s); a variable so tests can shorten it.
var wsAuthTimeout = func() *atomic.Int64 {
	var v atomic.Int64
	v.Store(int64(10 * time.Second))
	return &v
}()

// wsClient is one websocket connection.
type wsClient struct {
	s         *Server
	conn      *websocket.Conn
	addr      string
	sessionID uint64

	// user is the authenticated user name; authed is set once the
	// client has logged in (only the reader goroutine changes them
	// before requests start).
	user   string
	authed bool

	sem       chan struct{}
	quit      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup

	// The outgoing queue, drained by writeLoop.
	qmu    sync.Mutex
	queue  [][]byte
	qbytes int
	wake   chan struct{} // capacity 1: something was queued
	space  chan struct{} // capacity 1: something was written

	// Subscriptions, guarded by the hub's mutex (wsnotify.go).
	sub wsSubscriptions
}

// wsUpgrader upgrades /ws requests. Its default origin check refuses a
// browser page of another origin (which cannot supply credentials, but
// could try to guess them through "authenticate").
var wsUpgrader = websocket.Upgrader{ReadBufferSize: 4096, WriteBufferSize: 4096}

// serveWebsocket handles GET /ws: authentication by header when one is
// sent, the client limit, then the upgrade.
func (s *Server) serveWebsocket(w http.ResponseWriter, r *http.Request) {
	authed, user := false, ""
	if hdr := r.Header.Get("Authorization"); hdr != "" {
		if !s.authorized(hdr) {
			log.Warnf("RPC: incorrect password attempt from %s (websocket)", r.RemoteAddr)
			time.Sleep(s.cfg.AuthFailDelay)
			w.Header().Set("WWW-Authenticate", `Basic realm="jsonrpc"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		authed, user = true, authUser(hdr)
	}
	hub := s.hub()
	if !hub.reserve(s.maxWebsockets()) {
		log.Infof("Max websocket clients exceeded [%d] - refusing client %s", s.maxWebsockets(), r.RemoteAddr)
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	conn, err := wsUpgrader.Upgrade(w, r, nil)
	if err != nil {
		hub.release()
		log.Debugf("RPC: websocket upgrade from %s failed: %v", r.RemoteAddr, err)
		return
	}
	conn.SetReadLimit(s.cfg.MaxRequestBytes)
	if !authed {
		conn.SetReadDeadline(time.Now().Add(time.Duration(wsAuthTimeout.Load())))
	}
	var id [8]byte
	rand.Read(id[:])
	c := &wsClient{
		s:         s,
		conn:      conn,
		addr:      r.RemoteAddr,
		sessionID: binary.LittleEndian.Uint64(id[:]),
		user:      user,
		authed:    authed,
		sem:       make(chan struct{}, wsMaxConcurrent),
		quit:      make(chan struct{}),
		wake:      make(chan struct{}, 1),
		space:     make(chan struct{}, 1),
	}
	if !hub.add(c) {
		// The server is stopping.
		hub.release()
		conn.Close()
		return
	}
	log.Infof("New websocket client %s", c.addr)
	c.wg.Add(1)
	go c.writeLoop()
	c.readLoop()
	c.close()
	// The slot is free at once; calls still running (a long rescan, a
	// waitfornewblock) end on their own.
	hub.remove(c)
	c.wg.Wait()
	log.Infof("Disconnected websocket client %s", c.addr)
}

// maxWebsockets is the configured client limit (0: none allowed).
func (s *Server) maxWebsockets() int {
	switch {
	case s.cfg.MaxWebsockets < 0:
		return 0
	case s.cfg.MaxWebsockets == 0:
		return DefaultMaxWebsockets
	}
	return s.cfg.MaxWebsockets
}

// close ends the connection once; the loops notice and return.
func (c *wsClient) close() {
	c.closeOnce.Do(func() {
		close(c.quit)
		if c.conn != nil {
			c.conn.Close()
		}
	})
}

// send queues one message for the client and reports whether it was
// queued. A client whose queue is full is disconnected: it is not reading
// and the node must not hold its backlog.
func (c *wsClient) send(msg []byte) bool {
	c.qmu.Lock()
	// One message larger than the byte budget (a verbose getblock of a
	// big block) may still go out alone.
	if len(c.queue) >= wsQueueMessages || (len(c.queue) > 0 && c.qbytes+len(msg) > wsQueueBytes) {
		c.qmu.Unlock()
		log.Warnf("Websocket client %s is not reading its notifications; disconnecting", c.addr)
		c.close()
		return false
	}
	c.queue = append(c.queue, msg)
	c.qbytes += len(msg)
	c.qmu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return true
}

// sendPaced queues a message once the queue is at most half full, waiting
// for the client to read: long scans (rescan) produce messages as fast as
// the client takes them instead of overflowing its queue. It reports
// false when the client went away.
func (c *wsClient) sendPaced(msg []byte) bool {
	for {
		c.qmu.Lock()
		room := len(c.queue) < wsQueueMessages/2 && c.qbytes+len(msg) <= wsQueueBytes/2
		c.qmu.Unlock()
		if room || len(msg) > wsQueueBytes/2 {
			return c.send(msg)
		}
		select {
		case <-c.space:
		case <-c.quit:
			return false
		}
	}
}

// writeLoop writes queued messages in order, and pings the client when
// idle.
func (c *wsClient) writeLoop() {
	defer c.wg.Done()
	ping := time.NewTicker(wsPingInterval)
	defer ping.Stop()
	for {
		c.qmu.Lock()
		var msg []byte
		if len(c.queue) > 0 {
			msg = c.queue[0]
			c.queue[0] = nil
			c.queue = c.queue[1:]
			c.qbytes -= len(msg)
			if len(c.queue) == 0 {
				c.queue = nil
			}
		}
		c.qmu.Unlock()
		if msg != nil {
			c.conn.SetWriteDeadline(time.Now().Add(wsWriteTimeout))
			if err := c.conn.WriteMessage(websocket.TextMessage, msg); err != nil {
				c.close()
				return
			}
			select {
			case c.space <- struct{}{}:
			default:
			}
			continue
		}
		select {
		case <-c.wake:
		case <-ping.C:
			if err := c.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(wsWriteTimeout)); err != nil {
				c.close()
				return
			}
		case <-c.quit:
			return
		}
	}
}

// readLoop reads messages until the connection ends or the client breaks
// the login rules (btcd's: an unauthenticated client's first message must
// be a valid "authenticate", and an authenticated one must not send it).
func (c *wsClient) readLoop() {
	for {
		_, msg, err := c.conn.ReadMessage()
		if err != nil {
			return
		}
		if !c.authed {
			if !c.login(msg) {
				return
			}
			continue
		}
		select {
		case c.sem <- struct{}{}:
		case <-c.quit:
			return
		}
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			defer func() { <-c.sem }()
			if out := c.handleMessage(msg); out != nil {
				c.send(out)
			}
		}()
	}
}

// login checks an unauthenticated client's first message, which must be
// "authenticate" with a valid user and password, and answers it.
func (c *wsClient) login(msg []byte) bool {
	single, _, isBatch, perr := parseBody(msg, 1)
	if perr != nil || isBatch {
		return false
	}
	req, rerr := parseRequest(single)
	if rerr != nil || req.Method != "authenticate" || req.ID == nil {
		log.Warnf("Unauthenticated websocket message received from %s", c.addr)
		return false
	}
	var args []string
	if json.Unmarshal(req.Params, &args) != nil || len(args) != 2 {
		return false
	}
	hdr := "Basic " + base64.StdEncoding.EncodeToString([]byte(args[0]+":"+args[1]))
	if !c.s.authorized(hdr) {
		log.Warnf("RPC: incorrect password attempt from %s (websocket)", c.addr)
		time.Sleep(c.s.cfg.AuthFailDelay)
		return false
	}
	c.authed, c.user = true, args[0]
	if c.conn != nil {
		c.conn.SetReadDeadline(time.Time{})
	}
	return c.send(appendReply(nil, req.Version, req.ID, nil, nil))
}

// handleMessage answers one message (a call or a batch) and returns the
// reply, nil when none is due.
func (c *wsClient) handleMessage(msg []byte) (out []byte) {
	defer func() {
		if p := recover(); p != nil {
			log.Errorf("RPC: panic handling websocket message: %v\n%s", p, debug.Stack())
			out = appendReply(nil, jsonV1, json.RawMessage("null"), nil, NewError(ErrInternal, "Internal error"))
		}
	}()
	single, batch, isBatch, perr := parseBody(msg, c.s.cfg.MaxBatch)
	if perr != nil {
		return appendReply(nil, jsonV1, json.RawMessage("null"), nil, perr)
	}
	if !c.s.wl.allows(c.user, msg) {
		return appendReply(nil, jsonV1, json.RawMessage("null"), nil, NewError(ErrInvalidParams, "limited user not authorized for this method"))
	}
	if !isBatch {
		req, rerr := parseRequest(single)
		if rerr != nil {
			return appendReply(nil, req.Version, req.replyID(), nil, rerr)
		}
		res, rerr := c.execute(req)
		if req.isNotification() {
			return nil
		}
		return appendReply(nil, req.Version, req.replyID(), res, rerr)
	}
	out = []byte{'['}
	n := 0
	for _, raw := range batch {
		req, rerr := parseRequest(raw)
		var res json.RawMessage
		if rerr == nil {
			res, rerr = c.execute(req)
		}
		if req.isNotification() {
			continue
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = appendReply(out, req.Version, req.replyID(), res, rerr)
		n++
	}
	if n == 0 && len(batch) > 0 {
		return nil
	}
	return append(out, ']')
}

// wsMethod is a websocket-only method: its help and arguments, and a
// handler that needs the connection.
type wsMethod struct {
	*Method
	handle func(c *wsClient, p *Params) (any, error)
}

// wsMethods are btcd's websocket-only methods by name (wsnotify.go,
// wsrescan.go). Over HTTP they do not exist, as in btcd.
var wsMethods = sync.OnceValue(func() map[string]*wsMethod {
	m := map[string]*wsMethod{}
	for _, w := range append(wsNotifyMethods(), wsRescanMethods()...) {
		m[w.Name] = w
	}
	m["session"] = &wsMethod{
		Method: &Method{Name: "session", Category: "websocket",
			Description: "Return details regarding a websocket client's current connection session.",
			Result:      "{ \"sessionid\": n   (numeric) The unique session ID for a client's websocket connection }"},
		handle: func(c *wsClient, _ *Params) (any, error) {
			return map[string]uint64{"sessionid": c.sessionID}, nil
		},
	}
	m["authenticate"] = &wsMethod{
		Method: &Method{Name: "authenticate", Category: "websocket",
			Description: "Authenticate the websocket with the RPC server. This is only required if the credentials were not already supplied via HTTP auth headers. It must be the first command sent or you will be disconnected.",
			Args: []Arg{{Name: "username", Type: ArgStr, Description: "The username"},
				{Name: "passphrase", Type: ArgStr, Description: "The passphrase"}}},
		handle: func(c *wsClient, _ *Params) (any, error) {
			// btcd drops a client that authenticates twice.
			c.close()
			return nil, nil
		},
	}
	return m
})

// execute runs one call from the client: a websocket-only method, help
// for one, or any method of the server.
func (c *wsClient) execute(req *request) (json.RawMessage, *Error) {
	w := wsMethods()[req.Method]
	if w == nil && req.Method == "help" {
		var args []json.RawMessage
		if json.Unmarshal(req.Params, &args) == nil && len(args) == 1 {
			var name string
			if json.Unmarshal(args[0], &name) == nil && wsMethods()[name] != nil {
				b, _ := encodeJSON(wsMethods()[name].HelpText())
				return b, nil
			}
		}
	}
	if w == nil {
		return c.s.execute(req, c.user)
	}
	log.Debugf("ThreadRPCServer method=%s user=%s (websocket)", sanitizeLogString(req.Method), c.user)
	p, rerr := bindParams(w.Method, req.Params)
	if rerr != nil {
		return nil, rerr
	}
	m := *w.Method
	m.Handler = func(*Server, *Params) (any, error) { return w.handle(c, p) }
	res, err := c.s.call(&m, p)
	if err != nil {
		return nil, toRPCError(err)
	}
	b, err := encodeJSON(res)
	if err != nil {
		return nil, NewError(ErrInternal, "Internal error")
	}
	return b, nil
}
