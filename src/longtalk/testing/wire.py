"""An LLM double behind a real HTTP server speaking the OpenAI chat-completions protocol.

For services in other processes (replicas, the CLI's ``serve``): ``ChatCompletionsServer``
answers token-counted summaries and records every call. Not collected by pytest.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from longtalk.core.tokens import DEFAULT_COUNTER, TokenCounter, TokenUsage

__all__ = ["ChatCompletionsServer", "WireCall", "free_port"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (for test servers)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True, slots=True)
class WireCall:
    """One chat-completions request the HTTP double answered."""

    number: int
    api_key: str
    prompt: str
    input_tokens: int
    output_tokens: int
    started: float
    finished: float


class ChatCompletionsServer:
    """A token-counting LLM on 127.0.0.1 speaking the OpenAI chat-completions protocol.

    ``POST /v1/chat/completions`` answers a plain-text summary tagged ``call-N:`` (N counts
    the calls from 1) after ``latency`` seconds, with ``usage`` filled in from the token
    counter. Every call is recorded with the bearer key it came with (tell callers apart by
    key) and its prompt (the messages' contents); ``in_flight`` counts unanswered calls per
    key. A summary built on an earlier answer carries that answer's tag in its prompt.
    ``GET /v1/models`` lists the one model. With ``trickle`` (seconds) a completion's body is
    sent one byte at a time, ``trickle`` apart (a server that streams too slowly to finish).
    Start with ``start()``; ``url`` is the base URL (add ``/v1``).
    """

    __test__ = False

    def __init__(
        self,
        *,
        latency: float = 0.0,
        answer_tokens: int = 40,
        model: str = "double",
        trickle: float = 0.0,
    ) -> None:
        self.latency = latency
        self.trickle = trickle
        self.answer_tokens = answer_tokens
        self.model = model
        self.counter: TokenCounter = DEFAULT_COUNTER
        self.calls: list[WireCall] = []
        self.in_flight: dict[str, int] = {}
        self._lock = threading.Lock()
        self._started = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _completions_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,))
        self._thread.daemon = True

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> ChatCompletionsServer:
        """Serve in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._httpd.shutdown()
        self._httpd.server_close()

    def answer(self, body: dict[str, Any], api_key: str) -> dict[str, Any]:
        """Record one request, wait ``latency`` and build the completion."""
        messages = body.get("messages", [])
        text = "\n".join(str(m.get("content", "")) for m in messages)
        with self._lock:
            self._started += 1
            number = self._started
            self.in_flight[api_key] = self.in_flight.get(api_key, 0) + 1
        started = time.monotonic()
        try:
            time.sleep(self.latency)
        finally:
            with self._lock:
                self.in_flight[api_key] -= 1
        words = [f"call-{number}:"]
        while self.counter.count(" ".join(words)) < self.answer_tokens:
            words.append(f"fact{number}-{len(words)}")
        reply = " ".join(words)
        usage = TokenUsage(self.counter.count(text), self.counter.count(reply))
        call = WireCall(
            number,
            api_key,
            text,
            usage.input_tokens,
            usage.output_tokens,
            started,
            time.monotonic(),
        )
        with self._lock:
            self.calls.append(call)
        return {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.model),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": usage.input_tokens,
                "completion_tokens": usage.output_tokens,
                "total_tokens": usage.input_tokens + usage.output_tokens,
            },
        }


def _completions_handler(server: ChatCompletionsServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            """Quiet."""

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": server.model}]})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._send(400, {"error": {"message": "the body is not JSON"}})
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            key = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
            self._send(200, server.answer(body, key), trickle=server.trickle)

        def _send(self, status: int, payload: dict[str, Any], trickle: float = 0.0) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            try:
                if not trickle:
                    self.wfile.write(data)
                for byte in range(len(data) if trickle else 0):
                    self.wfile.write(data[byte : byte + 1])
                    self.wfile.flush()
                    time.sleep(trickle)
            except OSError:  # the caller went away (a killed client process)
                pass

    return Handler
