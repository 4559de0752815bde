"""A scripted HTTP server on 127.0.0.1 that speaks whatever wire protocol a test scripts."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer: a JSON body, or raw chunks written one by one (a stream)."""

    body: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    chunks: list[str] | None = None
    content_type: str = "application/json"


@dataclass
class Seen:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


class ScriptedServer:
    """Answers with the replies enqueued, in order, then with ``responder``; records requests."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[Seen] = []
        self.responder: Callable[[Seen], Reply] | None = None
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def take(self, seen: Seen) -> Reply:
        with self._lock:
            self.requests.append(seen)
            if self.replies:
                return self.replies.popleft()
        if self.responder is not None:
            return self.responder(seen)
        return Reply({"error": "no scripted reply"}, status=599)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            headers = {k.lower(): v for k, v in self.headers.items()}
            reply = server.take(Seen("POST", self.path, headers, body))
            time.sleep(reply.delay)
            try:
                self._answer(reply)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

        def _answer(self, reply: Reply) -> None:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if reply.chunks is not None:
                self.end_headers()
                for chunk in reply.chunks:
                    self.wfile.write(chunk.encode())
                    self.wfile.flush()
                return
            payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
            data = payload.encode()
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    return Handler
