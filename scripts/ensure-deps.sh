#!/usr/bin/env bash
# Shared set-up for `npm start` and `npm test`: install npm packages when they are missing or
# stale, Debian's redis-server when no REDIS_URL is given and it is not installed, tesseract and
# pdftoppm for OCR (optional: without them only scanned documents fail), antiword and catdoc for
# Word/Excel 97–2003 files (optional: without them only .doc/.xls fail), and a
# PostgreSQL server with pgvector when no DATABASE_URL is given (scripts/ensure-postgres.sh).
#   --browser            also Chromium (the web suite)
#   --sentinel           also Debian's redis-sentinel (the Sentinel failover suite)
#   --prometheus         also Debian's prometheus (promtool's rule tests and the scrape test)
#   --postgres-required  no PostgreSQL server is an error (`npm test` on the real server); without
#                        it, `npm start` falls back to PGlite unless EMBEDDED_POSTGRES=server.
set -euo pipefail
cd "$(dirname "$0")/.."
WANT_BROWSER=false
WANT_SENTINEL=false
WANT_PROMETHEUS=false
POSTGRES_REQUIRED=false
for arg in "$@"; do
  case "$arg" in
    --browser) WANT_BROWSER=true ;;
    --sentinel) WANT_SENTINEL=true ;;
    --prometheus) WANT_PROMETHEUS=true ;;
    --postgres-required) POSTGRES_REQUIRED=true ;;
  esac
done

# Installs a Debian package for npm test (as root with apt-get), else stops with how to install it.
#   apt_install_or_fail PACKAGE WHY MISSING FOR
apt_install_or_fail() {
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "› installing $1 from Debian's packages ($2)…"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends "$1" >/dev/null 2>&1 || {
      apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "$1" >/dev/null
    }
  else
    echo "$3 and cannot be installed automatically here." >&2
    echo "Install it (Debian/Ubuntu: sudo apt-get install $1) $4." >&2
    exit 1
  fi
}

# Installs optional Debian packages (as root with apt-get); without them the product still runs and
# this says what is lost and how to install them.
#   apt_install_optional "PACKAGES" WHAT IF_MISSING
apt_install_optional() {
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "› installing $2 from Debian's packages…"
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086 # the package list is meant to split into words
    apt-get install -y -q --no-install-recommends $1 >/dev/null 2>&1 || {
      apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends $1 >/dev/null
    } || echo "($2 could not be installed: $3)" >&2
  else
    echo "$2 is not installed and cannot be installed automatically here: $3." >&2
    echo "Install it with: sudo apt-get install $1 (everything else works without it)." >&2
  fi
}

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

# OCR (scanned PDF pages, PNG/JPEG/TIFF/GIF/WebP uploads): Debian's tesseract with its English and Spanish data,
# and poppler's pdftoppm to render a scanned PDF page. Optional: without them everything starts
# and every other format is read; a document that needs OCR fails OCR_UNAVAILABLE.
ocr_missing() {
  command -v tesseract >/dev/null 2>&1 && command -v pdftoppm >/dev/null 2>&1 || return 0
  local langs
  langs=$(tesseract --list-langs 2>/dev/null || true)
  grep -qx eng <<<"$langs" && grep -qx spa <<<"$langs" && return 1
  return 0
}
OCR_PACKAGES="tesseract-ocr tesseract-ocr-eng tesseract-ocr-spa poppler-utils"
if ocr_missing; then
  apt_install_optional "$OCR_PACKAGES" "OCR (tesseract with English and Spanish, pdftoppm)" "scanned PDFs and PNG/JPEG uploads will fail OCR_UNAVAILABLE"
fi

# Word and Excel 97–2003 (.doc, .xls): Debian's antiword and catdoc (its xls2csv), run as bounded
# child processes of the extraction thread. Optional: without them those files fail CONVERTER_UNAVAILABLE.
CONVERTER_PACKAGES="antiword catdoc"
if ! command -v antiword >/dev/null 2>&1 || ! command -v xls2csv >/dev/null 2>&1; then
  apt_install_optional "$CONVERTER_PACKAGES" "the .doc/.xls converters (antiword, catdoc)" ".doc and .xls uploads will fail CONVERTER_UNAVAILABLE"
fi

# `npm test` only (--sentinel): the failover suite runs three of Debian's redis-sentinel; without
# the package it falls back to `redis-server --sentinel`, the same program.
if $WANT_SENTINEL && ! command -v redis-sentinel >/dev/null 2>&1 && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  apt_install_optional redis-sentinel "redis-sentinel (for the failover tests)" "the failover suite uses redis-server --sentinel"
fi

# `npm test` only (--prometheus): promtool runs the alert rules' unit tests and a real Prometheus
# scrapes the product (test/ops, test/e2e/observability.test.ts). The tests start their own
# Prometheus on a free port; the package's own service is not used.
if $WANT_PROMETHEUS && ! command -v promtool >/dev/null 2>&1; then
  apt_install_or_fail prometheus "for the alert rule and scrape tests" "promtool is not installed" "to run the alert rule tests"
fi

# `npm test` only (--browser): the web suite drives Debian's Chromium headless; no browser is
# ever downloaded by npm (playwright-core ships none).
if $WANT_BROWSER && [ ! -x /usr/bin/chromium ]; then
  apt_install_or_fail chromium "for the browser tests" "Chromium is not installed at /usr/bin/chromium" "to run test/web"
fi

# `npm test` only (--browser): the SAML journey signs in through a real IdP, Debian's SimpleSAMLphp,
# served by PHP's built-in web server (test/harness/simplesamlphp.ts). php-cli is only recommended by
# the packages, so it is named; php-xml (DOMDocument) and php-mbstring are needed by every page.
saml_idp_missing() {
  [ -f /usr/share/simplesamlphp/www/module.php ] && command -v php >/dev/null 2>&1 || return 0
  php -m 2>/dev/null | grep -qx dom && php -m 2>/dev/null | grep -qx mbstring && return 1
  return 0
}
if $WANT_BROWSER && saml_idp_missing; then
  for package in php-cli php-xml php-mbstring simplesamlphp; do
    apt_install_or_fail "$package" "for the SAML sign-in tests" "SimpleSAMLphp (with php-cli, php-xml, php-mbstring) is not installed" "to run test/web/saml-sign-in.test.ts"
  done
fi

# The production engine: a local PostgreSQL server with pgvector, unless one is given or PGlite is
# asked for. Quick when it is already there (it only looks at files).
if [ -z "${DATABASE_URL:-}" ] && [ "${EMBEDDED_POSTGRES:-auto}" != "pglite" ] || $POSTGRES_REQUIRED; then
  if ! bash scripts/ensure-postgres.sh >/dev/null; then
    if $POSTGRES_REQUIRED || [ "${EMBEDDED_POSTGRES:-auto}" = "server" ]; then
      echo "(npm test: TEST_POSTGRES=pglite runs the suite on PGlite instead; npm start: EMBEDDED_POSTGRES=pglite.)" >&2
      exit 1
    fi
    echo "› npm start will use PGlite (the embedded fallback) instead." >&2
  fi
fi
