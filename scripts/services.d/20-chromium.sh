#!/usr/bin/env bash
# Headless Chromium for the HTML report tests (tests/perf): they load the report in a real
# browser and check the rendered page. Idempotent; fails when Chromium cannot run.
set -euo pipefail
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "20-chromium: chromium is missing; install the Debian packages chromium and chromium-driver (as root)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-dejavu-core >/dev/null
fi
# Smoke test: render a trivial page with the same flags the tests use.
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
out=$(timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
  --dump-dom 'data:text/html,<p id="ok">chromium-ready</p>' 2>/dev/null)
if ! grep -q 'chromium-ready' <<<"$out"; then
  echo "20-chromium: chromium is installed but did not render a page" >&2
  exit 1
fi
echo "20-chromium: $(chromium --version 2>/dev/null)" >&2
