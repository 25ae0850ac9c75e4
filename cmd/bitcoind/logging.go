package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/btcnode/btcd/internal/node"
)

// debugCategories maps bitcoind's -debug categories to the node's log
// subsystems; the logging RPC uses the same table.
var debugCategories = node.DebugCategories

// logLevels are bitcoind's -loglevel names and the node's equivalents.
var logLevels = map[string]string{"trace": "trace", "debug": "debug", "info": "info", "warning": "warn", "error": "error"}

// debugLevel turns -debug, -debugexclude and -loglevel into the node's
// --debuglevel: subsystems of enabled categories log at the -loglevel
// level (debug by default), the others at info. It also records the
// enabled categories for the node's logging RPC.
func debugLevel(a *args) (string, error) {
	given := a.getList("debug")
	// Categories before the last 0/none are disregarded.
	for i := len(given) - 1; i >= 0; i-- {
		if given[i] == "0" || given[i] == "none" {
			given = given[i+1:]
			break
		}
	}
	if a.isNegated("debug") {
		given = nil
	}
	enabled := map[string]bool{}
	cats := map[string]bool{}
	all := false
	for _, c := range given {
		switch c {
		case "", "1", "all":
			all = true
			continue
		}
		subs, ok := debugCategories[c]
		if !ok {
			return "", fmt.Errorf("Unsupported logging category -debug=%s.", c)
		}
		cats[c] = true
		for _, s := range subs {
			enabled[s] = true
		}
	}
	if all {
		for c, subs := range debugCategories {
			cats[c] = true
			for _, s := range subs {
				enabled[s] = true
			}
		}
	}
	for _, c := range a.getList("debugexclude") {
		subs, ok := debugCategories[c]
		if !ok && c != "all" && c != "1" {
			return "", fmt.Errorf("Unsupported logging category -debugexclude=%s.", c)
		}
		if c == "all" || c == "1" {
			enabled = map[string]bool{}
			cats = map[string]bool{}
			continue
		}
		delete(cats, c)
		// Excluding a category spares the subsystems other enabled
		// categories still need only when they were enabled one by one;
		// with -debug=all an excluded category's subsystems are off.
		for _, s := range subs {
			delete(enabled, s)
		}
	}
	// The logging RPC reports categories, which the subsystem levels
	// alone cannot tell apart (http and rpc share one).
	on := make([]string, 0, len(cats))
	for c := range cats {
		on = append(on, c)
	}
	node.SetDebugCategories(on)
	level := "debug"
	perSub := map[string]string{}
	for _, l := range a.getList("loglevel") {
		cat, lv, hasCat := strings.Cut(l, ":")
		if !hasCat || strings.IndexByte(l, ':') < 3 && !hasCat {
			name, ok := logLevels[l]
			if !ok {
				return "", fmt.Errorf("Unsupported global logging level -loglevel=%s. Valid values: info, debug, trace.", l)
			}
			level = name
			continue
		}
		name, ok := logLevels[lv]
		subs, known := debugCategories[cat]
		if !ok || !known {
			return "", fmt.Errorf("Unsupported category-specific logging level -loglevel=%s. Expected -loglevel=<category>:<loglevel>.", l)
		}
		for _, s := range subs {
			perSub[s] = name
		}
	}
	var parts []string
	parts = append(parts, "info")
	subs := make([]string, 0, len(enabled))
	for s := range enabled {
		subs = append(subs, s)
	}
	sort.Strings(subs)
	for _, s := range subs {
		lv := level
		if o, ok := perSub[s]; ok {
			lv = o
		}
		if lv == "info" || lv == "warn" || lv == "error" {
			continue
		}
		parts = append(parts, s+"="+lv)
	}
	return strings.Join(parts, ","), nil
}
