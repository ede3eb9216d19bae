#!/usr/bin/env bash
# Create .venv and install the project: `bootstrap.sh runtime` its runtime dependencies only
# (what `pip install .` brings; `make demo`), `bootstrap.sh dev` (the default) also the test
# tools and the MCP SDK (`make test`). Idempotent and quiet when done.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
set_name=${1:-dev}
case "$set_name" in
  runtime) spec='.' ;;
  dev) spec='.[dev]' ;;
  *) echo "bootstrap: unknown set '$set_name' (runtime or dev)" >&2; exit 2 ;;
esac
hash=$(sha256sum pyproject.toml | cut -c1-16)
stamp=.venv/.installed-$set_name-$hash
# The dev set includes the runtime one.
[ -f "$stamp" ] || { [ "$set_name" = runtime ] && [ -f ".venv/.installed-dev-$hash" ]; } && exit 0
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
  echo "bootstrap: Python 3.10 or newer is needed ($PY is $("$PY" --version 2>&1))" >&2; exit 1
fi
if ! "$PY" -m venv --help >/dev/null 2>&1 || ! "$PY" -c 'import ensurepip' 2>/dev/null; then
  # Debian ships venv/ensurepip separately.
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
  else
    echo "bootstrap: '$PY -m venv' is unavailable; install python3-venv" >&2; exit 1
  fi
fi
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e "$spec"
# A runtime stamp stays valid beside a dev one; a new pyproject.toml invalidates both.
find .venv -maxdepth 1 -name '.installed-*' ! -name "*-$hash" -delete
touch "$stamp"
