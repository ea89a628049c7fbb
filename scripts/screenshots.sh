#!/usr/bin/env bash
# Writes PNG screenshots of the web console's main pages, at a desktop
# and a phone width, into DIR (default: a new temporary directory), from
# the real binary in headless Chromium over a loopback feed farm. They
# are for looking at, not committed.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-$(mktemp -d -t feedpoller-screenshots-XXXXXX)}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
if ! command -v chromium >/dev/null 2>&1; then
  echo "Chromium is needed (Debian: apt-get install -y chromium)" >&2
  exit 1
fi
FEEDPOLLER_SCREENSHOTS="$dir" go test -count=1 -run 'TestScreenshots$' ./console/e2e
echo "screenshots in $dir"
