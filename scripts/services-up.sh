#!/usr/bin/env bash
# Install and start everything the test suite needs (Debian packages, daemons). Each service
# has its own script in scripts/services.d/, run in name order. A service that cannot start
# fails this script: tests never skip silently because a component is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
shopt -s nullglob
for script in scripts/services.d/*.sh; do
  echo "[services] $(basename "$script")" >&2
  bash "$script"
done
