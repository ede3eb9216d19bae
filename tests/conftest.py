"""Shared test helpers. Area-specific fixtures live in each tests/<area>/conftest.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


# ---- a real headless Chromium, driven over the W3C WebDriver protocol ----------------------

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,1800",
]


class Browser:
    """One Chromium session: open a page, run JavaScript in it, take a screenshot."""

    def __init__(self, base: str, session: str) -> None:
        self.base, self.session = base, session

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        return _webdriver(method, f"{self.base}/session/{self.session}{path}", body)

    def open(self, url: str) -> None:
        self._call("POST", "/url", {"url": url})

    def resize(self, width: int, height: int) -> None:
        """The window's outer size; the page's width follows (desktop and phone layouts)."""
        self._call("POST", "/window/rect", {"width": width, "height": height})

    def run(self, script: str) -> Any:
        return self._call("POST", "/execute/sync", {"script": script, "args": []})

    def screenshot_png(self) -> bytes:
        import base64

        return base64.b64decode(self._call("GET", "/screenshot"))


def _webdriver(method: str, url: str, body: dict[str, Any] | None = None) -> Any:
    import urllib.request

    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())["value"]


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A headless Chromium session. Chromium is installed by scripts/services.d/20-chromium.sh;
    when it is missing the test fails: it is never skipped."""
    import shutil
    import socket
    import subprocess
    import time
    import urllib.error

    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver:
        pytest.fail(
            "chromium and chromedriver are needed: run scripts/services.d/20-chromium.sh (as root)"
        )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(
        [driver, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if _webdriver("GET", f"{base}/status").get("ready"):
                    break
            except (urllib.error.URLError, ConnectionError):
                pass
            if time.monotonic() > deadline:
                pytest.fail("chromedriver did not start within 30 s")
            time.sleep(0.1)
        profile = tmp_path_factory.mktemp("chromium-profile")
        caps = {
            "capabilities": {
                "alwaysMatch": {
                    "browserName": "chrome",
                    "goog:chromeOptions": {
                        "binary": chromium,
                        "args": [*CHROMIUM_FLAGS, f"--user-data-dir={profile}"],
                    },
                }
            }
        }
        session = _webdriver("POST", f"{base}/session", caps)["sessionId"]
        try:
            yield Browser(base, session)
        finally:
            _webdriver("DELETE", f"{base}/session/{session}")
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def decode_png() -> Any:
    return png_pixels


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and RGB(A) rows of a non-interlaced 8-bit PNG (what Chromium writes)."""
    import struct
    import zlib

    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    width = height = channels = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunk = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and color in (2, 6)
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + pred) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, [bytes(r) for r in rows]
