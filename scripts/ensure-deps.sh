#!/usr/bin/env bash
# Shared set-up for `npm start` and `npm test`: install npm packages when they are missing or
# stale, and Debian's redis-server when no REDIS_URL is given and it is not installed.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -d node_modules ] || [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "› installing npm packages (npm ci)…"
  npm ci --no-audit --no-fund --loglevel=error
fi

if [ -z "${REDIS_URL:-}" ] && ! command -v redis-server >/dev/null 2>&1 && [ ! -x /usr/bin/redis-server ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "› installing redis-server from Debian's packages…"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends redis-server >/dev/null 2>&1 || {
      apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends redis-server >/dev/null
    }
  else
    echo "redis-server is not installed and cannot be installed automatically here." >&2
    echo "Install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis)," >&2
    echo "or set REDIS_URL to an existing Redis 6.2+ server." >&2
    exit 1
  fi
fi

# `npm test` only (--browser): the web suite drives Debian's Chromium headless; no browser is
# ever downloaded by npm (playwright-core ships none).
if [ "${1:-}" = "--browser" ] && [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "› installing chromium from Debian's packages (for the browser tests)…"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends chromium >/dev/null 2>&1 || {
      apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends chromium >/dev/null
    }
  else
    echo "Chromium is not installed at /usr/bin/chromium and cannot be installed automatically here." >&2
    echo "Install it (Debian/Ubuntu: sudo apt-get install chromium) to run test/web." >&2
    exit 1
  fi
fi
