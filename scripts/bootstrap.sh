#!/usr/bin/env bash
# Create .venv and install the project with its test tools. Idempotent and quiet when done.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
stamp=.venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)
[ -f "$stamp" ] && exit 0
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
.venv/bin/python -m pip install -q -e '.[dev]'
rm -f .venv/.installed-*
touch "$stamp"
