#!/usr/bin/env bash
# Runs golangci-lint with the repository's .golangci.yml, at the version
# pinned below, built from the Go module proxy (the first run takes a few
# minutes; the binary is kept in a cache directory for the next ones).
# Arguments go to `golangci-lint run`; without any, the whole module.
set -euo pipefail
cd "$(dirname "$0")/.."

version=v2.15.0
dir="${FEEDPOLLER_TOOLS_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/feedpoller-tools}/golangci-lint-$version"
bin="$dir/golangci-lint"
if [ ! -x "$bin" ]; then
  echo "building golangci-lint $version into $dir (a few minutes, once)" >&2
  mkdir -p "$dir"
  GOBIN="$dir" go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$version"
fi
"$bin" version >&2
if [ $# -eq 0 ]; then
  set -- ./...
fi
exec "$bin" run "$@"
