"""A TCP proxy in front of PostgreSQL that cuts a connection at a chosen round trip.

It speaks enough of the PostgreSQL wire protocol to see round trips: the client's messages
are held until the ``Sync`` or ``Query`` that ends a request, the server's until the
``ReadyForQuery`` that ends its answer. Armed with :meth:`PgProxy.cut`, it aborts both
sides at the n-th request of the pooled connections (a listening session, which sent
``LISTEN``, is left alone): before the request reaches the server (``"request"``: nothing
of it ran) or after the server answered and committed, before the answer reaches the
client (``"answer"``: it ran, the client cannot know). Everything else passes through
unchanged. ``requests`` lists the statement texts of every counted request.
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

from sqlalchemy import make_url

Mode = Literal["request", "answer"]
_SPECIAL_REQUESTS = {80877103, 80877104}  # SSLRequest, GSSENCRequest: answered by one byte
_ENDS_REQUEST = {b"S", b"Q"}


@dataclass
class Cut:
    """Where the proxy cuts next: the ``at``-th counted request, before or after it ran."""

    at: int
    mode: Mode
    done: asyncio.Event = field(default_factory=asyncio.Event)


class PgProxy:
    """Listens on 127.0.0.1; see the module docstring."""

    def __init__(self, dsn: str) -> None:
        url = make_url(dsn)
        self._socket_dir = url.query.get("host")
        self._host = url.host or "127.0.0.1"
        self._port = url.port or 5432
        self._url = url
        self._server: asyncio.Server | None = None
        self._links: set[_Link] = set()
        self.requests: list[str] = []
        """Per counted request: its statements, each ``P:`` (prepared) or ``B:`` (run)."""
        self.plans: dict[int, Cut] = {}

    async def __aenter__(self) -> PgProxy:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for link in list(self._links):
            link.abort()
        await self._server.wait_closed()

    @property
    def dsn(self) -> str:
        """A DSN of the same database through the proxy (TCP on 127.0.0.1)."""
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        url = self._url.set(host="127.0.0.1", port=port, query={})
        return url.render_as_string(hide_password=False)

    def cut(self, at: int, mode: Mode) -> Cut:
        """Cut at the ``at``-th counted request from now (0: the next); several may wait."""
        plan = Cut(len(self.requests) + at, mode)
        self.plans[plan.at] = plan
        return plan

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._socket_dir:
            path = f"{self._socket_dir}/.s.PGSQL.{self._port}"
            upstream = await asyncio.open_unix_connection(path)
        else:
            upstream = await asyncio.open_connection(self._host, self._port)
        link = _Link(self, (reader, writer), upstream)
        self._links.add(link)
        try:
            await link.run()
        finally:
            self._links.discard(link)

    def counted(self, link: _Link, texts: list[str]) -> Mode | None:
        """Count a request of a pooled connection; the cut due at it, if any."""
        if link.listening:
            return None
        index = len(self.requests)
        self.requests.append(" | ".join(texts))
        plan = self.plans.pop(index, None)
        if plan is None:
            return None
        plan.done.set()
        return plan.mode


class _Link:
    """One client connection and its upstream twin."""

    def __init__(
        self,
        proxy: PgProxy,
        client: tuple[asyncio.StreamReader, asyncio.StreamWriter],
        server: tuple[asyncio.StreamReader, asyncio.StreamWriter],
    ) -> None:
        self.proxy = proxy
        self.client, self.server = client, server
        self.listening = False
        self.started = False
        self.ready = False  # the server's first ReadyForQuery: start-up (and auth) is over
        self.statements: dict[str, str] = {}
        self.answers: deque[bool] = deque()  # per request in flight: drop its answer?
        self.raw_answer_bytes = 0

    def abort(self) -> None:
        for _, writer in (self.client, self.server):
            writer.transport.abort()

    async def run(self) -> None:
        pumps = [asyncio.create_task(self._from_client()), asyncio.create_task(self._from_server())]
        with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError, OSError):
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        for pump in pumps:
            pump.cancel()
        self.abort()

    # -- client to server -------------------------------------------------------------------

    async def _from_client(self) -> None:
        reader, server = self.client[0], self.server[1]
        while not self.started:  # untyped: SSL/GSS requests, then the startup message
            head = await reader.readexactly(8)
            length, code = struct.unpack("!II", head)
            body = await reader.readexactly(length - 8)
            if code in _SPECIAL_REQUESTS:
                self.raw_answer_bytes += 1
            else:
                self.started = True
            server.write(head + body)
        held, texts = bytearray(), []
        while True:
            kind = await reader.readexactly(1)
            size = await reader.readexactly(4)
            body = await reader.readexactly(struct.unpack("!I", size)[0] - 4)
            held += kind + size + body
            texts += self._texts(kind, body)
            if not self.ready:  # start-up: authentication messages pass at once
                server.write(bytes(held))
                held.clear()
                continue
            if kind not in _ENDS_REQUEST:
                if kind in (b"H", b"X"):  # a flush or goodbye: pass on what is held
                    server.write(bytes(held))
                    held.clear()
                continue
            mode = self.proxy.counted(self, texts)
            if mode == "request":
                self.abort()
                return
            self.answers.append(mode == "answer")
            server.write(bytes(held))
            held.clear()
            texts = []

    def _texts(self, kind: bytes, body: bytes) -> list[str]:
        """The statement texts a message runs (and remember prepared ones)."""
        if kind == b"Q":
            text = body.split(b"\0", 1)[0].decode()
            self.listening = self.listening or text.lstrip().upper().startswith("LISTEN")
            return [f"Q:{text}"]
        if kind == b"P":
            name, rest = body.split(b"\0", 1)
            text = rest.split(b"\0", 1)[0].decode()
            self.statements[name.decode()] = text
            self.listening = self.listening or text.lstrip().upper().startswith("LISTEN")
            return [f"P:{text}"]
        if kind == b"B":
            _portal, rest = body.split(b"\0", 1)
            return ["B:" + self.statements.get(rest.split(b"\0", 1)[0].decode(), "?")]
        return []

    # -- server to client -------------------------------------------------------------------

    async def _from_server(self) -> None:
        reader, client = self.server[0], self.client[1]
        held = bytearray()
        while True:
            if self.raw_answer_bytes:
                client.write(await reader.readexactly(1))
                self.raw_answer_bytes -= 1
                continue
            kind = await reader.readexactly(1)
            size = await reader.readexactly(4)
            body = await reader.readexactly(struct.unpack("!I", size)[0] - 4)
            if not self.answers:  # no request of ours in flight (start-up, notifications)
                self.ready = self.ready or kind == b"Z"
                client.write(kind + size + body)
                continue
            held += kind + size + body
            if kind != b"Z":
                continue
            if self.answers.popleft():
                self.abort()  # it ran and committed; the client never hears of it
                return
            client.write(bytes(held))
            held.clear()
