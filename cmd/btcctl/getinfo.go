package main

import (
	"errors"
	"fmt"
	"strings"
)

// -getinfo: one batch of getnetworkinfo, getblockchaininfo, getwalletinfo
// and getbalances, summed up in a few human-readable lines. The wallet
// calls may fail (no wallet); the other two may not.

// Batch ids of -getinfo's calls.
const (
	idNetworkInfo = iota
	idBlockchainInfo
	idWalletInfo
	idBalances
)

// getinfoHandler is -getinfo's request handler.
type getinfoHandler struct{}

func (getinfoHandler) prepare(_ string, args []string) (*jval, error) {
	if len(args) > 0 {
		return nil, errors.New("-getinfo takes no arguments")
	}
	return jArray(
		requestObject("getnetworkinfo", nil, idNetworkInfo),
		requestObject("getblockchaininfo", nil, idBlockchainInfo),
		requestObject("getwalletinfo", nil, idWalletInfo),
		requestObject("getbalances", nil, idBalances),
	), nil
}

// batchReplies orders a batch's replies by id, as bitcoin-cli's
// JSONRPCProcessBatchReply does.
func batchReplies(in *jval) ([]*jval, error) {
	if !in.isArr() {
		return nil, errors.New("Batch must be an array")
	}
	out := make([]*jval, len(in.vals))
	for _, rec := range in.vals {
		if !rec.isObj() {
			return nil, errors.New("Batch member must be an object")
		}
		id, ok := rec.get("id").int()
		if !ok {
			return nil, typeError(rec.get("id"), "number")
		}
		if id < 0 || id >= int64(len(out)) {
			return nil, errors.New("Batch member id is larger than batch size")
		}
		out[id] = rec
	}
	return out, nil
}

func (getinfoHandler) process(reply *jval) (*jval, error) {
	batch, err := batchReplies(reply)
	if err != nil {
		return nil, err
	}
	if len(batch) <= idBalances {
		return nil, errors.New("Batch member id is larger than batch size")
	}
	if !batch[idNetworkInfo].get("error").isNull() {
		return batch[idNetworkInfo], nil
	}
	if !batch[idBlockchainInfo].get("error").isNull() {
		return batch[idBlockchainInfo], nil
	}
	net := batch[idNetworkInfo].get("result")
	chain := batch[idBlockchainInfo].get("result")
	wallet := batch[idWalletInfo].get("result")
	balances := batch[idBalances].get("result")

	r := jObject()
	r.pushKV("version", net.get("version"))
	r.pushKV("blocks", chain.get("blocks"))
	r.pushKV("headers", chain.get("headers"))
	r.pushKV("verificationprogress", chain.get("verificationprogress"))
	r.pushKV("timeoffset", net.get("timeoffset"))
	conns := jObject()
	conns.pushKV("in", net.get("connections_in"))
	conns.pushKV("out", net.get("connections_out"))
	conns.pushKV("total", net.get("connections"))
	r.pushKV("connections", conns)
	r.pushKV("networks", net.get("networks"))
	r.pushKV("difficulty", chain.get("difficulty"))
	r.pushKV("chain", chain.get("chain"))
	if !wallet.isNull() {
		r.pushKV("has_wallet", jBoolean(true))
		r.pushKV("keypoolsize", wallet.get("keypoolsize"))
		r.pushKV("walletname", wallet.get("walletname"))
		if u := wallet.get("unlocked_until"); !u.isNull() {
			r.pushKV("unlocked_until", u)
		}
		r.pushKV("paytxfee", wallet.get("paytxfee"))
	}
	if !balances.isNull() {
		r.pushKV("balance", balances.get("mine").get("trusted"))
	}
	r.pushKV("relayfee", net.get("relayfee"))
	r.pushKV("warnings", net.get("warnings"))
	return replyObject(r, nil), nil
}

// walletBalances adds "balances" (each loaded wallet's trusted balance)
// to a -getinfo result when more than one wallet is loaded.
func (c *cli) walletBalances(result *jval) error {
	h := &defaultHandler{}
	list, err := c.connectAndCall(h, "listwallets", nil, nil)
	if err != nil {
		return err
	}
	if !list.get("error").isNull() {
		return nil
	}
	wallets := list.get("result").elems()
	if len(wallets) <= 1 {
		return nil
	}
	balances := jObject()
	for _, w := range wallets {
		if !w.isStr() {
			return typeError(w, "string")
		}
		name := w.s
		reply, err := c.connectAndCall(h, "getbalances", nil, &name)
		if err != nil {
			return err
		}
		balances.pushKV(name, reply.get("result").get("mine").get("trusted"))
	}
	result.pushKV("balances", balances)
	return nil
}

// ANSI colours of -getinfo's headings.
const (
	ansiReset   = "\x1b[0m"
	ansiGreen   = "\x1b[32m"
	ansiBlue    = "\x1b[34m"
	ansiYellow  = "\x1b[33m"
	ansiMagenta = "\x1b[35m"
	ansiCyan    = "\x1b[36m"
)

// shouldColor applies -color: "always", "never", or "auto" (colour when
// standard output is a terminal).
func shouldColor(setting string, tty bool) (bool, error) {
	switch setting {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		return tty, nil
	}
	return false, errors.New("Invalid value for -color option. Valid values: always, auto, never.")
}

// progressBar draws progress (0 to 1) in 5% steps, as bitcoin-cli's
// GetProgressBar does: a cell per started step done, then a cell per
// started step to go.
func progressBar(progress float64) string {
	if progress < 0 || progress > 1 {
		return ""
	}
	const increment = 0.05
	var b strings.Builder
	for i := 0; float64(i) < progress/increment; i++ {
		b.WriteString("\u2592")
	}
	for i := 0; float64(i) < (1-progress)/increment; i++ {
		b.WriteString("\u2591")
	}
	return b.String()
}

// warningsText is the warnings of getnetworkinfo: bitcoind before v28
// sends one string, later ones an array.
func warningsText(w *jval) string {
	if w.isArr() {
		var parts []string
		for _, e := range w.vals {
			if s := e.valStr(); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "; ")
	}
	return w.valStr()
}

// formatGetinfo renders a -getinfo result as bitcoin-cli prints it.
func formatGetinfo(r *jval, color bool) string {
	var reset, green, blue, yellow, magenta, cyan string
	if color {
		reset, green, blue, yellow, magenta, cyan = ansiReset, ansiGreen, ansiBlue, ansiYellow, ansiMagenta, ansiCyan
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%sChain: %s%s\n", blue, r.get("chain").valStr(), reset)
	fmt.Fprintf(&b, "Blocks: %s\n", r.get("blocks").valStr())
	fmt.Fprintf(&b, "Headers: %s\n", r.get("headers").valStr())
	progress := r.get("verificationprogress").float()
	bar := ""
	// The bar is shown only while less than 99% is verified.
	if progress < 0.99 {
		bar = progressBar(progress) + " "
	}
	fmt.Fprintf(&b, "Verification progress: %s%.4f%%\n", bar, progress*100)
	fmt.Fprintf(&b, "Difficulty: %s\n\n", r.get("difficulty").valStr())

	conns := r.get("connections")
	fmt.Fprintf(&b, "%sNetwork: in %s, out %s, total %s%s\n", green,
		conns.get("in").valStr(), conns.get("out").valStr(), conns.get("total").valStr(), reset)
	fmt.Fprintf(&b, "Version: %s\n", r.get("version").valStr())
	fmt.Fprintf(&b, "Time offset (s): %s\n", r.get("timeoffset").valStr())

	// Each proxy once, in order of first use, with the networks using it.
	var proxies []string
	uses := map[string][]string{}
	for _, n := range r.get("networks").elems() {
		p := n.get("proxy").valStr()
		if p == "" {
			continue
		}
		if _, seen := uses[p]; !seen {
			proxies = append(proxies, p)
		}
		uses[p] = append(uses[p], n.get("name").valStr())
	}
	proxyText := "n/a"
	if len(proxies) > 0 {
		parts := make([]string, len(proxies))
		for i, p := range proxies {
			parts[i] = fmt.Sprintf("%s (%s)", p, strings.Join(uses[p], ", "))
		}
		proxyText = strings.Join(parts, ", ")
	}
	fmt.Fprintf(&b, "Proxies: %s\n", proxyText)
	fmt.Fprintf(&b, "Min tx relay fee rate (BTC/kvB): %s\n\n", r.get("relayfee").valStr())

	if !r.get("has_wallet").isNull() {
		name := r.get("walletname").valStr()
		if name == "" {
			name = `""`
		}
		fmt.Fprintf(&b, "%sWallet: %s%s\n", magenta, name, reset)
		fmt.Fprintf(&b, "Keypool size: %s\n", r.get("keypoolsize").valStr())
		if u := r.get("unlocked_until"); !u.isNull() {
			fmt.Fprintf(&b, "Unlocked until: %s\n", u.valStr())
		}
		fmt.Fprintf(&b, "Transaction fee rate (-paytxfee) (BTC/kvB): %s\n\n", r.get("paytxfee").valStr())
	}
	if bal := r.get("balance"); !bal.isNull() {
		fmt.Fprintf(&b, "%sBalance:%s %s\n\n", cyan, reset, bal.valStr())
	}
	if bals := r.get("balances"); !bals.isNull() {
		fmt.Fprintf(&b, "%sBalances%s\n", cyan, reset)
		width := 10
		for _, v := range bals.elems() {
			width = max(width, len(v.valStr()))
		}
		for i, name := range bals.keysOrNil() {
			if name == "" {
				name = `""`
			}
			fmt.Fprintf(&b, "%*s %s\n", width, bals.vals[i].valStr(), name)
		}
		b.WriteString("\n")
	}
	warnings := warningsText(r.get("warnings"))
	if warnings == "" {
		warnings = "(none)"
	}
	fmt.Fprintf(&b, "%sWarnings:%s %s", yellow, reset, warnings)
	return b.String()
}
