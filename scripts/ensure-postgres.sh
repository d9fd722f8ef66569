#!/usr/bin/env bash
# Makes sure a PostgreSQL server (major 14 or newer) with the pgvector extension is installed on
# this machine, so `npm start` and `npm test` run on the production engine rather than PGlite.
#
#  1. A server that already has pgvector (any major ≥ 14): nothing to do. This is the path on
#     every run after the first, and it only looks at files.
#  2. As root with apt-get: the distribution's postgresql-N-pgvector package if it has one
#     (Debian trixie, Ubuntu 24.04, the PGDG repository); otherwise (Debian bookworm) pgvector is
#     built from Debian trixie's *source* package, fetched with a private apt configuration so the
#     system's own sources are not changed (see docs/operations.md).
#  3. Otherwise: says what is missing and exits 1. Callers decide whether that is fatal
#     (`npm test` on the real server) or means the PGlite fallback (`npm start`).
#
# Prints the chosen bin directory on stdout as `PG_BINDIR=<dir>` (progress goes to stderr).
# `--check` only looks (the launcher and the test harness use it to find the server): it never
# installs anything and exits 1, saying why, when there is no usable server.
set -euo pipefail
CHECK_ONLY=false
[ "${1:-}" = "--check" ] && CHECK_ONLY=true

MIN_MAJOR=14
PGVECTOR_SOURCE_SUITE="${PGVECTOR_SOURCE_SUITE:-trixie}"
say() { echo "$@" >&2; }

# The bin directories of installed servers, newest major first.
server_bindirs() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -rn); do
    [ -x "$dir/postgres" ] && [ -x "$dir/initdb" ] && [ -x "$dir/pg_config" ] && echo "$dir"
  done
  if command -v pg_config >/dev/null 2>&1; then
    dir="$(pg_config --bindir 2>/dev/null || true)"
    [ -n "$dir" ] && [ -x "$dir/postgres" ] && [ -x "$dir/initdb" ] && echo "$dir"
  fi
  return 0
}

major_of() { "$1/pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/'; }
has_vector() { [ -f "$("$1/pg_config" --sharedir)/extension/vector.control" ]; }

# First bin directory whose server is new enough and has pgvector.
usable_bindir() {
  local dir
  for dir in $(server_bindirs); do
    [ "$(major_of "$dir")" -ge "$MIN_MAJOR" ] && has_vector "$dir" && { echo "$dir"; return 0; }
  done
  return 1
}

if found="$(usable_bindir)"; then
  echo "PG_BINDIR=$found"
  exit 0
fi

missing() {
  say "No PostgreSQL server (${MIN_MAJOR}+) with the pgvector extension is available: $1"
  say "Install one (Debian/Ubuntu: sudo apt-get install postgresql-16-pgvector or postgresql-15 plus pgvector built from source;"
  say "macOS: brew install postgresql@16 pgvector), or point DATABASE_URL at a PostgreSQL server that has pgvector."
  exit 1
}

$CHECK_ONLY && missing "none found under /usr/lib/postgresql/*/bin or from pg_config on PATH (scripts/ensure-deps.sh installs one as root on Debian/Ubuntu)."
[ "$(id -u)" = "0" ] || missing "not running as root."
command -v apt-get >/dev/null 2>&1 || missing "no apt-get (not Debian/Ubuntu)."
export DEBIAN_FRONTEND=noninteractive
apt_install() { apt-get install -y -q --no-install-recommends "$@" >/dev/null 2>&1; }

# A server first: the newest major the system already has, else the distribution's default.
bindir="$(server_bindirs | sed -n 1p)"
if [ -z "$bindir" ]; then
  say "› installing Debian's PostgreSQL server (postgresql)…"
  apt_install postgresql || { apt-get update -q >/dev/null && apt_install postgresql; } || missing "apt-get install postgresql failed."
  bindir="$(server_bindirs | sed -n 1p)"
  [ -n "$bindir" ] || missing "apt-get installed postgresql but no server binaries were found under /usr/lib/postgresql."
fi
major="$(major_of "$bindir")"
[ "$major" -ge "$MIN_MAJOR" ] || missing "the installed PostgreSQL is $major; $MIN_MAJOR or newer is needed."

# The distribution's own package, where there is one.
if apt-cache show "postgresql-$major-pgvector" >/dev/null 2>&1; then
  say "› installing postgresql-$major-pgvector…"
  if apt_install "postgresql-$major-pgvector" && has_vector "$bindir"; then
    echo "PG_BINDIR=$bindir"
    exit 0
  fi
fi

# Otherwise build it from Debian's source package of the next release.
say "› building pgvector for PostgreSQL $major from Debian $PGVECTOR_SOURCE_SUITE's source package (about a minute)…"
apt_install "postgresql-server-dev-$major" build-essential || {
  apt-get update -q >/dev/null && apt_install "postgresql-server-dev-$major" build-essential
} || missing "apt-get install postgresql-server-dev-$major build-essential failed."

work="$(mktemp -d /tmp/pgvector-build.XXXXXX)"
trap 'rm -rf "$work"' EXIT
mirror="$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | grep -v security | head -n1 || true)"
[ -n "$mirror" ] || mirror="http://deb.debian.org/debian"
cat >"$work/pgvector.sources" <<EOF
Types: deb-src
URIs: $mirror
Suites: $PGVECTOR_SOURCE_SUITE
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
private_apt=(
  -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::Etc::sourcelist=$work/pgvector.sources"
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
)
apt-get "${private_apt[@]}" update -q >/dev/null 2>&1 || missing "could not read Debian $PGVECTOR_SOURCE_SUITE's source index from $mirror."
(cd "$work" && apt-get "${private_apt[@]}" source --download-only pgvector >/dev/null 2>&1) ||
  missing "could not download the pgvector source package from Debian $PGVECTOR_SOURCE_SUITE."
tar -xzf "$work"/pgvector_*.orig.tar.* -C "$work"
src="$(ls -d "$work"/pgvector-*/ | head -n1)"
make -C "$src" -j"$(nproc)" PG_CONFIG="$bindir/pg_config" >/dev/null 2>&1 || missing "building pgvector failed (make in $src)."
make -C "$src" install PG_CONFIG="$bindir/pg_config" >/dev/null 2>&1 || missing "installing pgvector failed (make install)."
has_vector "$bindir" || missing "pgvector was built but vector.control is not in $("$bindir/pg_config" --sharedir)/extension."
say "› pgvector $(sed -n "s/^default_version = '\(.*\)'/\1/p" "$("$bindir/pg_config" --sharedir)/extension/vector.control") installed for PostgreSQL $major."
echo "PG_BINDIR=$bindir"
