"""An HTTP proxy in front of the moto server that answers chosen AWS operations with the
throttling errors AWS sends (SageMaker's JSON `ThrottlingException`, EC2's XML
`RequestLimitExceeded`) a set number of times, then lets them through. botocore's real retry
logic runs against it."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

_EC2_THROTTLE = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>RequestLimitExceeded</Code>'
    "<Message>Request limit exceeded.</Message></Error></Errors>"
    "<RequestID>5b3c2a1d-0000-4000-8000-000000000000</RequestID></Response>"
)
_JSON_THROTTLE = '{"__type":"ThrottlingException","message":"Rate exceeded"}'


class _Handler(BaseHTTPRequestHandler):
    server: ThrottleProxy  # type: ignore[assignment]
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        target = self.headers.get("X-Amz-Target", "")
        operation = (
            target.split(".")[-1] if target else parse_qs(body.decode()).get("Action", [""])[0]
        )
        if self.server.take(operation):
            json_protocol = bool(target)
            payload = (_JSON_THROTTLE if json_protocol else _EC2_THROTTLE).encode()
            self.send_response(400 if json_protocol else 503)
            self.send_header(
                "Content-Type", "application/x-amz-json-1.1" if json_protocol else "text/xml"
            )
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return
        request = urllib.request.Request(
            self.server.upstream + self.path,
            data=body,
            headers={
                k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")
            },
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, headers, data = response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            status, headers, data = error.code, error.headers, error.read()
        self.send_response(status)
        for key, value in headers.items():
            if key.lower() not in (
                "content-length",
                "transfer-encoding",
                "connection",
                "server",
                "date",
            ):
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST


class ThrottleProxy(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, upstream: str, throttle: dict[str, int]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.upstream = upstream
        self.remaining = dict(throttle)
        self.throttled: dict[str, int] = {}
        self._lock = threading.Lock()
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def take(self, operation: str) -> bool:
        with self._lock:
            if self.remaining.get(operation, 0) > 0:
                self.remaining[operation] -= 1
                self.throttled[operation] = self.throttled.get(operation, 0) + 1
                return True
        return False

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
