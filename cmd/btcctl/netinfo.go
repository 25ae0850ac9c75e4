package main

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/btcnode/btcd/internal/hostport"
)

// -netinfo: a peer-connections dashboard built from getpeerinfo and
// getnetworkinfo, at detail levels 0-4.

// netinfoMaxLevel is the highest -netinfo detail level.
const netinfoMaxLevel = 4

// netinfoNetworks are the network names getpeerinfo reports, and
// netinfoShortNames their column headers.
var (
	netinfoNetworks   = []string{"not_publicly_routable", "ipv4", "ipv6", "onion", "i2p", "cjdns", "internal"}
	netinfoShortNames = []string{"npr", "ipv4", "ipv6", "onion", "i2p", "cjdns", "int"}
	// Networks never reachable, shown only when a peer uses them.
	netinfoUnreachable = []int{0, 6}
)

func networkID(name string) int {
	for i, n := range netinfoNetworks {
		if n == name {
			return i
		}
	}
	return -1
}

// netinfoPeer is what the listing shows of one peer.
type netinfoPeer struct {
	addr, subVersion, connType, network, age, services, transport string
	minPing, ping                                                 float64
	addrProcessed, addrRateLimited                                int64
	lastBlock, lastRecv, lastSend, lastTx                         int64
	id, mappedAS, version                                         int64
	addrRelay, hbFrom, hbTo, outbound, txRelay                    bool
}

// netinfoHandler is -netinfo's request handler.
type netinfoHandler struct {
	now          func() time.Time
	chain        string // the selected network, for the header
	level        int
	outboundOnly bool
	counts       [3][8]int // in/out/total by network, index 7 all networks
	blockRelay   int
	manual       int
	peers        []netinfoPeer
	asmap        bool
	// column widths
	addrWidth, addrProcessedWidth, addrRateLimitedWidth, ageWidth, idWidth, servicesWidth int
}

func newNetinfoHandler(now func() time.Time, chain string) *netinfoHandler {
	return &netinfoHandler{now: now, chain: chain, addrProcessedWidth: 5, addrRateLimitedWidth: 6, ageWidth: 5, idWidth: 2, servicesWidth: 6}
}

func (h *netinfoHandler) details() bool       { return h.level > 0 }
func (h *netinfoHandler) addressColumn() bool { return h.level == 2 || h.level == 4 }
func (h *netinfoHandler) versionColumn() bool { return h.level == 3 || h.level == 4 }
func (h *netinfoHandler) helpHint() string {
	return "For more information, run: " + progName + " -netinfo help"
}
func (h *netinfoHandler) chainSuffix() string {
	switch h.chain {
	case "testnet4":
		return " testnet4"
	case "test":
		return " testnet"
	case "signet":
		return " signet"
	case "regtest":
		return " regtest"
	}
	return ""
}

func (h *netinfoHandler) prepare(_ string, args []string) (*jval, error) {
	if len(args) > 0 {
		n, ok := parseUint8(args[0])
		if !ok {
			return nil, fmt.Errorf("invalid -netinfo level argument: %s\n%s", args[0], h.helpHint())
		}
		h.level = min(n, netinfoMaxLevel)
		if len(args) > 1 {
			switch s := args[1]; {
			case n > 0 && (s == "o" || s == "outonly"):
				h.outboundOnly = true
			case n > 0:
				return nil, fmt.Errorf("invalid -netinfo outonly argument: %s\n%s", s, h.helpHint())
			default:
				return nil, fmt.Errorf("invalid -netinfo outonly argument: %s\nThe outonly argument is only valid for a level greater than 0 (the first argument). %s", s, h.helpHint())
			}
		}
	}
	return jArray(requestObject("getpeerinfo", nil, 0), requestObject("getnetworkinfo", nil, 1)), nil
}

// parseUint8 is ToIntegral<uint8_t>: digits only, 0-255.
func parseUint8(s string) (int, bool) {
	n, ok := hostport.ParsePort(s)
	if !ok || n > 255 {
		return 0, false
	}
	return int(n), true
}

// serviceLetters abbreviates service names to a letter each.
func serviceLetters(services *jval) string {
	var b strings.Builder
	for _, s := range services.elems() {
		name := s.valStr()
		switch {
		case name == "NETWORK_LIMITED":
			b.WriteByte('l')
		case name == "P2P_V2":
			b.WriteByte('2')
		case name != "":
			b.WriteString(strings.ToLower(name[:1]))
		}
	}
	return b.String()
}

// servicesList spells the services out in lower case.
func servicesList(services *jval) string {
	var parts []string
	for _, s := range services.elems() {
		parts = append(parts, strings.ToLower(strings.ReplaceAll(s.valStr(), "_", " ")))
	}
	return strings.Join(parts, ", ")
}

func connTypeForNetinfo(t string) string {
	switch t {
	case "outbound-full-relay":
		return "full"
	case "block-relay-only":
		return "block"
	case "manual", "feeler":
		return t
	case "addr-fetch":
		return "addr"
	case "private-broadcast":
		return "priv"
	}
	return ""
}

// pingText is a ping time in whole milliseconds, "" when unknown and "-"
// beyond 999999 ms.
func pingText(seconds float64) string {
	if seconds < 0 {
		return ""
	}
	ms := math.Round(1000 * seconds)
	if ms > 999999 {
		return "-"
	}
	return strconv.FormatFloat(ms, 'f', -1, 64)
}

func intOr(v *jval, def int64) int64 {
	if n, ok := v.int(); ok {
		return n
	}
	return def
}

func floatOr(v *jval, def float64) float64 {
	if v.isNum() {
		return v.float()
	}
	return def
}

func (h *netinfoHandler) process(reply *jval) (*jval, error) {
	batch, err := batchReplies(reply)
	if err != nil {
		return nil, err
	}
	if len(batch) < 2 {
		return nil, fmt.Errorf("Batch member id is larger than batch size")
	}
	if !batch[0].get("error").isNull() {
		return batch[0], nil
	}
	if !batch[1].get("error").isNull() {
		return batch[1], nil
	}
	netinfo := batch[1].get("result")
	// bitcoind before v0.21 lacks fields the dashboard reads. Other
	// servers (btcd) number their versions their own way.
	if v, _ := netinfo.get("version").int(); v < 209900 && strings.HasPrefix(netinfo.get("subversion").valStr(), "/Satoshi:") {
		return nil, fmt.Errorf("-netinfo requires bitcoind server to be running v0.21.0 and up")
	}
	now := h.now().Unix()
	for _, p := range batch[0].get("result").elems() {
		nid := networkID(p.get("network").valStr())
		if nid < 0 {
			continue
		}
		outbound := !p.get("inbound").boolean()
		txRelay := p.get("relaytxes").isNull() || p.get("relaytxes").boolean()
		connType := p.get("connection_type").valStr()
		dir := 0
		if outbound {
			dir = 1
		}
		h.counts[dir][nid]++
		h.counts[dir][len(netinfoNetworks)]++
		h.counts[2][nid]++
		h.counts[2][len(netinfoNetworks)]++
		if connType == "block-relay-only" {
			h.blockRelay++
		}
		if connType == "manual" {
			h.manual++
		}
		if h.outboundOnly && !outbound {
			continue
		}
		if !h.details() {
			continue
		}
		connTime := intOr(p.get("conntime"), 0)
		peer := netinfoPeer{
			addr:            p.get("addr").valStr(),
			subVersion:      p.get("subver").valStr(),
			connType:        connType,
			network:         netinfoShortNames[nid],
			services:        serviceLetters(p.get("servicesnames")),
			transport:       p.get("transport_protocol_type").valStr(),
			minPing:         floatOr(p.get("minping"), -1),
			ping:            floatOr(p.get("pingtime"), -1),
			addrProcessed:   intOr(p.get("addr_processed"), 0),
			addrRateLimited: intOr(p.get("addr_rate_limited"), 0),
			lastBlock:       intOr(p.get("last_block"), 0),
			lastRecv:        intOr(p.get("lastrecv"), 0),
			lastSend:        intOr(p.get("lastsend"), 0),
			lastTx:          intOr(p.get("last_transaction"), 0),
			id:              intOr(p.get("id"), 0),
			mappedAS:        intOr(p.get("mapped_as"), 0),
			version:         intOr(p.get("version"), 0),
			addrRelay:       p.get("addr_relay_enabled").boolean(),
			hbFrom:          p.get("bip152_hb_from").boolean(),
			hbTo:            p.get("bip152_hb_to").boolean(),
			outbound:        outbound,
			txRelay:         txRelay,
		}
		if peer.transport == "" {
			peer.transport = "v1"
		}
		if connTime != 0 {
			peer.age = strconv.FormatInt((now-connTime)/60, 10)
		}
		h.peers = append(h.peers, peer)
		h.addrWidth = max(h.addrWidth, len(peer.addr)+1)
		h.addrProcessedWidth = max(h.addrProcessedWidth, len(strconv.FormatInt(peer.addrProcessed, 10)))
		h.addrRateLimitedWidth = max(h.addrRateLimitedWidth, len(strconv.FormatInt(peer.addrRateLimited, 10)))
		h.ageWidth = max(h.ageWidth, len(peer.age))
		h.idWidth = max(h.idWidth, len(strconv.FormatInt(peer.id, 10)))
		h.servicesWidth = max(h.servicesWidth, len(peer.services))
		h.asmap = h.asmap || peer.mappedAS != 0
	}

	var b strings.Builder
	services := ""
	if h.details() {
		services = " - services " + serviceLetters(netinfo.get("localservicesnames"))
	}
	protocol, _ := netinfo.get("protocolversion").int()
	fmt.Fprintf(&b, "%s client %s%s - server %d%s%s\n\n", clientName, "v"+clientVersion, h.chainSuffix(), protocol, netinfo.get("subversion").valStr(), services)

	if h.details() && len(h.peers) > 0 {
		h.writePeers(&b, now)
	}

	// Peer counts by network: the reachable ones, then unreachable ones
	// in use.
	b.WriteString("     ")
	var columns []int
	for _, n := range netinfo.get("networks").elems() {
		if !n.get("reachable").boolean() {
			continue
		}
		name := n.get("name").valStr()
		id := networkID(name)
		if id < 0 {
			continue
		}
		fmt.Fprintf(&b, "%8s", name)
		columns = append(columns, id)
	}
	for _, id := range netinfoUnreachable {
		if h.counts[2][id] == 0 {
			continue
		}
		fmt.Fprintf(&b, "%8s", netinfoShortNames[id])
		columns = append(columns, id)
	}
	b.WriteString("   total   block")
	if h.manual > 0 {
		b.WriteString("  manual")
	}
	for i, row := range []string{"in", "out", "total"} {
		fmt.Fprintf(&b, "\n%-5s", row)
		for _, id := range columns {
			fmt.Fprintf(&b, "%8d", h.counts[i][id])
		}
		fmt.Fprintf(&b, "   %5d", h.counts[i][len(netinfoNetworks)])
		if i == 1 {
			fmt.Fprintf(&b, "   %5d", h.blockRelay)
			if h.manual > 0 {
				fmt.Fprintf(&b, "   %5d", h.manual)
			}
		}
	}

	if !h.details() {
		fmt.Fprintf(&b, "\n\nLocal services: %s", servicesList(netinfo.get("localservicesnames")))
	}
	b.WriteString("\n\nLocal addresses")
	locals := netinfo.get("localaddresses").elems()
	if len(locals) == 0 {
		b.WriteString(": n/a\n")
	} else {
		width := 0
		for _, a := range locals {
			width = max(width, len(a.get("address").valStr())+1)
		}
		for _, a := range locals {
			fmt.Fprintf(&b, "\n%-*s    port %6d    score %6d", width, a.get("address").valStr(), intOr(a.get("port"), 0), intOr(a.get("score"), 0))
		}
	}
	return replyObject(jString(b.String()), nil), nil
}

// writePeers writes the peers listing, inbound first, each direction by
// minimum ping.
func (h *netinfoHandler) writePeers(b *strings.Builder, now int64) {
	sort.SliceStable(h.peers, func(i, j int) bool {
		a, c := h.peers[i], h.peers[j]
		if a.outbound != c.outbound {
			return !a.outbound
		}
		return a.minPing < c.minPing
	})
	fmt.Fprintf(b, "<->   type   net %*s  v  mping   ping send recv  txn  blk  hb %*s%*s%*s ",
		h.servicesWidth, "serv", h.addrProcessedWidth, "addrp", h.addrRateLimitedWidth, "addrl", h.ageWidth, "age")
	if h.asmap {
		b.WriteString(" asmap ")
	}
	addrWidth, addrHeader, versionHeader := 0, "", ""
	if h.addressColumn() {
		addrWidth, addrHeader = h.addrWidth, "address"
	}
	if h.versionColumn() {
		versionHeader = "version"
	}
	fmt.Fprintf(b, "%*s %-*s%s\n", h.idWidth, "id", addrWidth, addrHeader, versionHeader)
	since := func(t int64, div int64) string {
		if t == 0 {
			return ""
		}
		return strconv.FormatInt((now-t)/div, 10)
	}
	for _, p := range h.peers {
		dir := "in"
		if p.outbound {
			dir = "out"
		}
		transport := " "
		if len(p.transport) == 2 && p.transport[0] == 'v' {
			transport = p.transport[1:]
		}
		txn := since(p.lastTx, 60)
		if p.lastTx == 0 && !p.txRelay {
			txn = "*"
		}
		hb := " "
		if p.hbTo {
			hb = "."
		}
		if p.hbFrom {
			hb += "*"
		} else {
			hb += " "
		}
		addrp := ""
		switch {
		case p.addrProcessed != 0:
			addrp = strconv.FormatInt(p.addrProcessed, 10)
		case !p.addrRelay:
			addrp = "."
		}
		addrl := ""
		if p.addrRateLimited != 0 {
			addrl = strconv.FormatInt(p.addrRateLimited, 10)
		}
		asmapWidth, asmap := 0, ""
		if h.asmap {
			asmapWidth = 7
			if p.mappedAS != 0 {
				asmap = strconv.FormatInt(p.mappedAS, 10)
			}
		}
		addr := ""
		if h.addressColumn() {
			addr = p.addr
		}
		version := ""
		if v := strconv.FormatInt(p.version, 10) + p.subVersion; h.versionColumn() && v != "0" {
			version = v
		}
		fmt.Fprintf(b, "%3s %6s %5s %*s %2s%7s%7s%5s%5s%5s%5s  %2s %*s%*s%*s%*s %*d %-*s%s\n",
			dir, connTypeForNetinfo(p.connType), p.network,
			h.servicesWidth, p.services,
			transport,
			pingText(p.minPing), pingText(p.ping),
			since(p.lastSend, 1), since(p.lastRecv, 1),
			txn, since(p.lastBlock, 60),
			hb,
			h.addrProcessedWidth, addrp,
			h.addrRateLimitedWidth, addrl,
			h.ageWidth, p.age,
			asmapWidth, asmap,
			h.idWidth, p.id,
			addrWidth, addr,
			version)
	}
	fmt.Fprintf(b, "                %*s         ms     ms  sec  sec  min  min                %*s\n\n", h.servicesWidth, "", h.ageWidth, "min")
}

// netinfoHelp is -netinfo help's text.
func netinfoHelp() string {
	p := progName
	return `-netinfo (level [outonly]) | help

Returns a network peer connections dashboard with information from the remote server.
This human-readable interface will change regularly and is not intended to be a stable API.
Under the hood, -netinfo fetches the data by calling getpeerinfo and getnetworkinfo.
An optional argument from 0 to 4 can be passed for different peers listings; values above 4 up to 255 are parsed as 4.
If that argument is passed, an optional additional "outonly" argument may be passed to obtain the listing with outbound peers only.
Pass "help" or "h" to see this detailed help documentation.
If more than two arguments are passed, only the first two are read and parsed.
Suggestion: use -netinfo with the Linux watch(1) command for a live dashboard; see example below.

Arguments:
1. level (integer 0-4, optional)  Specify the info level of the peers dashboard (default 0):
                                  0 - Peer counts for each reachable network as well as for block relay peers
                                      and manual peers, and the list of local addresses and ports
                                  1 - Like 0 but preceded by a peers listing (without address and version columns)
                                  2 - Like 1 but with an address column
                                  3 - Like 1 but with a version column
                                  4 - Like 1 but with both address and version columns
2. outonly ("outonly" or "o", optional) Return the peers listing with outbound peers only, i.e. to save screen space
                                        when a node has many inbound peers. Only valid if a level is passed.

help ("help" or "h", optional) Print this help documentation instead of the dashboard.

Result:

* The peers listing in levels 1-4 displays all of the peers sorted by direction and minimum ping time:

  Column   Description
  ------   -----------
  <->      Direction
           "in"  - inbound connections are those initiated by the peer
           "out" - outbound connections are those initiated by us
  type     Type of peer connection
           "full"   - full relay, the default
           "block"  - block relay; like full relay but does not relay transactions or addresses
           "manual" - peer we manually added using RPC addnode or the -addnode/-connect config options
           "feeler" - short-lived connection for testing addresses
           "addr"   - address fetch; short-lived connection for requesting addresses
           "priv"   - private broadcast; short-lived connection for broadcasting our transactions
  net      Network the peer connected through ("ipv4", "ipv6", "onion", "i2p", "cjdns", or "npr" (not publicly routable))
  serv     Services offered by the peer
           "n" - NETWORK: peer can serve the full block chain
           "b" - BLOOM: peer can handle bloom-filtered connections (see BIP 111)
           "w" - WITNESS: peer can be asked for blocks and transactions with witness data (SegWit)
           "c" - COMPACT_FILTERS: peer can handle basic block filter requests (see BIPs 157 and 158)
           "l" - NETWORK_LIMITED: peer limited to serving only the last 288 blocks (~2 days)
           "2" - P2P_V2: peer supports version 2 P2P transport protocol, as defined in BIP 324
           "u" - UNKNOWN: unrecognized bit flag
  v        Version of transport protocol used for the connection
  mping    Minimum observed ping time, in milliseconds (ms)
  ping     Last observed ping time, in milliseconds (ms)
  send     Time since last message sent to the peer, in seconds
  recv     Time since last message received from the peer, in seconds
  txn      Time since last novel transaction received from the peer and accepted into our mempool, in minutes
           "*" - we do not relay transactions to this peer (getpeerinfo "relaytxes" is false)
  blk      Time since last novel block passing initial validity checks received from the peer, in minutes
  hb       High-bandwidth BIP152 compact block relay
           "." (to)   - we selected the peer as a high-bandwidth peer
           "*" (from) - the peer selected us as a high-bandwidth peer
  addrp    Total number of addresses processed, excluding those dropped due to rate limiting
           "." - we do not relay addresses to this peer (getpeerinfo "addr_relay_enabled" is false)
  addrl    Total number of addresses dropped due to rate limiting
  age      Duration of connection to the peer, in minutes
  asmap    Mapped AS (Autonomous System) number at the end of the BGP route to the peer, used for diversifying
           peer selection (only displayed if the -asmap config option is set)
  id       Peer index, in increasing order of peer connections since node startup
  address  IP address and port of the peer
  version  Peer version and subversion concatenated, e.g. "70016/Satoshi:21.0.0/"

* The peer counts table displays the number of peers for each reachable network as well as
  the number of block relay peers and manual peers.

* The local addresses table lists each local address broadcast by the node, the port, and the score.

Examples:

Peer counts table of reachable networks and list of local addresses
> ` + p + ` -netinfo

The same, preceded by a peers listing without address and version columns
> ` + p + ` -netinfo 1

Full dashboard
> ` + p + ` -netinfo 4

Full dashboard, but with outbound peers only
> ` + p + ` -netinfo 4 outonly

Full live dashboard, adjust --interval or --no-title as needed (Linux)
> watch --interval 1 --no-title ` + p + ` -netinfo 4

See this help
> ` + p + ` -netinfo help`
}
