#!/usr/bin/env bash
# Runs the whole test suite: gofmt, vet and staticcheck; every package's
# tests (fuzz targets run their seed corpus as ordinary tests); the
# packages with goroutines of their own again under the race detector; then
# a subset of Bitcoin Core's own functional tests against the bitcoind
# front end (cmd/bitcoind).
# Tests that need the shared consensus vectors (../shared/vectors) or Core's
# tests (../shared/corefunc) skip with a message when those are absent.
set -euo pipefail
cd "$(dirname "$0")"
# Formatting and static analysis (staticcheck.conf says which checks).
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*'))
if [ -n "$unformatted" ]; then
	echo "gofmt: these files need formatting:" >&2
	echo "$unformatted" >&2
	exit 1
fi
go vet ./...
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
go test -count=1 -timeout 20m ./...
# The signature verifiers against libsecp256k1 too, where it is installed
# (Debian libsecp256k1-dev; .ci/run installs it).
if [ -f /usr/include/secp256k1_schnorrsig.h ]; then
	go test -count=1 -tags libsecp256k1 ./internal/secp256k1/...
else
	echo "libsecp256k1 not installed: the libsecp differential tests are skipped"
fi
# The race detector over the packages with goroutines of their own.
go test -race -short -count=1 -timeout 10m ./database/... ./blockchain/... ./peer/... ./mempool/... ./rpc/... ./zmq/...

# Core's functional tests: the subset in test/corefunc-subset.txt, chosen
# to pass and to run in a few minutes. The full suite is a documented
# command (README, "Bitcoin Core's functional tests").
if [ -x ../shared/corefunc/run.sh ] && [ -x /usr/bin/python3 ]; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	WORK="$work" ../shared/corefunc/run.sh --timeout 300 --list test/corefunc-subset.txt | tee "$work/summary.txt"
	last=$(tail -n 1 "$work/summary.txt")
	if ! [[ "$last" =~ ^[0-9]+\ passed,\ 0\ failed ]]; then
		echo "Core functional tests failed: $last (logs: a failing test's log is kept below)" >&2
		for f in $(grep -E ' (fail|timeout) ' "$work/summary.txt" | awk '{print $1}'); do
			echo "==== ${f%.py}.log" >&2
			tail -n 60 "$work/logs/${f%.py}.log" >&2 || true
		done
		exit 1
	fi
else
	echo "Bitcoin Core's functional tests not present (../shared/corefunc) or no /usr/bin/python3: skipped"
fi
