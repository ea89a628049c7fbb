#!/usr/bin/env bash
# Runs the whole test suite. The storage, poller, API and end-to-end tests
# run on SQLite and on PostgreSQL; they start their own throwaway PostgreSQL
# cluster on 127.0.0.1 from the local server binaries, so those must be
# installed. On Debian, as root, this script installs them when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

have_pg() {
  command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1
}
if ! have_pg; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "PostgreSQL server binaries missing: installing the postgresql package" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  else
    echo "PostgreSQL server binaries are needed (Debian: apt-get install -y postgresql)" >&2
    exit 1
  fi
fi
# Another SQLite build than the daemon's, for the tests of a database file
# shared with other clients (they skip, saying so, without one).
if ! command -v sqlite3 >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "sqlite3 missing: installing Debian's sqlite3 package" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sqlite3 >/dev/null || echo "could not install sqlite3" >&2
fi
# PostgreSQL refuses to run as root; the tests then start it as 'postgres'.
if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
  useradd --system --home-dir /var/lib/postgresql --shell /bin/false postgres
fi

go test -count=1 -timeout 45m ./... "$@"
# The deployment checks are a module of their own (deploy/checks), so the
# libraries only they need stay out of feedpoller's; run them too.
cd deploy/checks
exec go test -count=1 -timeout 20m ./... "$@"
