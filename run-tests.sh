#!/usr/bin/env bash
# Runs the whole test suite: vet, then every package's tests (fuzz targets
# run their seed corpus as ordinary tests). Tests that need the shared
# consensus vectors (../shared/vectors) skip with a message when absent.
set -euo pipefail
cd "$(dirname "$0")"
go vet ./...
go test -count=1 -timeout 20m ./...
