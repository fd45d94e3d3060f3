"""The OTLP/HTTP endpoint of ``citetrace serve``: ``POST /v1/traces`` and ``GET /healthz``.

One asyncio loop owns every connection; h11 (the HTTP/1.1 parser uvicorn's pure-Python backend uses) parses
them. Why not ``http.server`` or uvicorn: a thread per connection lets a few slow clients hold every slot,
and neither server has a deadline for receiving a whole request (uvicorn's ``timeout_keep_alive`` is reset by
every byte; its request-start timeout was never built, Kludex/uvicorn#157). docs/collector.md has the figures.

The rules, each counted when it bites:
- a request (headers and body) must arrive within ``request_timeout`` of its first byte, else 408 and close;
- at ``max_connections`` a connection without a complete request is closed to let the new one in (idle ones
  first, then those still sending headers, then those sending a body, longest-waiting first; 408 if it was
  mid-request), so slow clients cannot lock legitimate ones out;
- request bodies held at once over all connections are bounded (``inflight``), and so are decompressed bytes
  being decoded at once (``decode``): over either, 503 with ``Retry-After``;
- a refusal sent before the body is read (401, 413, 415, ...) is followed by reading and discarding a bounded
  part of the body before closing, so the client reads the answer instead of hitting a broken pipe.
Decoding runs in a small thread pool so the loop keeps reading other connections. Answers follow the OTLP/HTTP
specification; error bodies are a ``google.rpc.Status`` in the request's encoding.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import socket
import threading
from typing import Any, Callable

import h11

from citetrace import names
from citetrace.serve._answers import Answer, health_answer, otlp_answer, status_answer
from citetrace.serve._budget import ByteBudget
from citetrace.serve._decode import JSON, PROTOBUF, BodyError, decode_body, decompress
from citetrace.serve._ingest import Accepted, Ingest, Limits

__all__ = ["IngestServer", "Ingest", "Accepted", "Limits"]

_log = logging.getLogger("citetrace.serve")
_TRACES_PATH = b"/v1/traces"
_HEALTH_PATH = b"/healthz"
_READ_SIZE = 256 * 1024
_MAX_HEADER_BYTES = 64 * 1024
_IDLE_SECONDS = 60.0
_LINGER_SECONDS = 2.0
_LINGER_FACTOR = 4


class _Timeout(Exception):
    """The request's deadline passed."""


class _Conn:
    """One connection's state as the eviction policy sees it."""

    __slots__ = ("task", "since", "busy", "mid_request", "in_body", "evicted")

    def __init__(self, task: asyncio.Task[None] | None, now: float) -> None:
        self.task = task
        self.since = now
        self.busy = False
        self.mid_request = True  # a new connection owes its first request within the deadline
        self.in_body = False  # headers complete, body arriving: evicted only after every header-phase one
        self.evicted = False


class IngestServer:
    """An OTLP/HTTP server bound to ``(host, port)`` at construction (port 0 picks a free one).

    ``serve_forever()`` runs the loop in the calling thread until ``shutdown()`` (from any thread).
    """

    def __init__(self, host: str, port: int, ingest: Ingest, limits: Limits | None = None) -> None:
        self.ingest = ingest
        limits = limits or Limits()
        self.limits = limits = limits._replace(max_connections=_fd_room(limits.max_connections))
        floor = ingest.max_body_bytes
        self.inflight = ByteBudget(max(limits.max_inflight_bytes, floor))
        self.decode = ByteBudget(max(limits.max_decode_bytes, floor))
        self._sock = socket.create_server((host, port), backlog=1024)
        self._sock.setblocking(False)
        self.server_address: tuple[Any, ...] = self._sock.getsockname()
        self._pool = concurrent.futures.ThreadPoolExecutor(max(1, limits.decode_workers), "citetrace-serve-decode")
        self._conns: dict[_Conn, None] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._done = threading.Event()

    # -- lifecycle -----------------------------------------------------------------------------------
    def serve_forever(self, poll_interval: float = 0.0) -> None:  # noqa: ARG002 - http.server's signature
        """Serve until ``shutdown()``."""
        try:
            asyncio.run(self._main())
        finally:
            self._ready.set()
            self._done.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._connection, sock=self._sock, limit=_READ_SIZE)
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            server.close()
            tasks = [c.task for c in self._conns if c.task is not None]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def shutdown(self) -> None:
        """Stop serving and wait (bounded) for the loop to finish."""
        self._ready.wait(5)
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not self._done.is_set():
            loop.call_soon_threadsafe(stop.set)
            self._done.wait(5)

    def server_close(self) -> None:
        """Release the socket and the decode threads."""
        self._sock.close()
        self._pool.shutdown(wait=False, cancel_futures=True)

    # -- connections ---------------------------------------------------------------------------------
    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        conn = _Conn(asyncio.current_task(), loop.time())
        if len(self._conns) >= self.limits.max_connections and not self._evict_one():
            self.ingest.answered(503, None)
            await self._write_raw(writer, status_answer(503, "too many connections busy; retry", PROTOBUF,
                                                        retry=True))
            return
        self._conns[conn] = None
        try:
            await self._serve(conn, reader, writer)
        except asyncio.CancelledError:
            if conn.evicted and conn.mid_request:
                writer.write(status_answer(408, "connection closed to make room for others", PROTOBUF).raw())
        except OSError:
            pass  # the client went away, or did not read its answer in time (TimeoutError is an OSError)
        except Exception as exc:  # noqa: BLE001 - no input may take the loop down; counted and logged once
            self.ingest.on_error(exc)
        finally:
            self._conns.pop(conn, None)
            writer.close()

    def _evict_one(self) -> bool:
        """Close a connection without a complete request: idle ones first, then those still sending headers
        (where slowloris sits), then those sending a body; the one waiting longest within each group."""
        waiting = [c for c in self._conns if not c.busy and not c.evicted]
        if not waiting:
            return False
        victim = min(waiting, key=lambda c: (c.mid_request, c.in_body, c.since))
        victim.evicted = True
        if victim.mid_request:  # an idle keep-alive connection loses nothing, so only these are counted
            self.ingest.answered(408, names.REJECT_EVICTED)
        if victim.task is not None:
            victim.task.cancel()
        self._conns.pop(victim, None)
        return True

    async def _serve(self, conn: _Conn, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        timeout = self.limits.request_timeout
        deadline: float | None = conn.since + timeout
        h = h11.Connection(h11.SERVER, max_incomplete_event_size=_MAX_HEADER_BYTES)

        async def next_event() -> Any:
            nonlocal deadline
            while True:
                event = h.next_event()
                if event is not h11.NEED_DATA:
                    return event
                wait = _IDLE_SECONDS if deadline is None else deadline - loop.time()
                if wait <= 0:
                    raise _Timeout
                try:
                    data = await asyncio.wait_for(reader.read(_READ_SIZE), wait)
                except asyncio.TimeoutError:
                    if deadline is None:
                        return h11.ConnectionClosed()  # idle keep-alive connection: close quietly
                    raise _Timeout from None
                if deadline is None and data:
                    deadline = loop.time() + timeout
                    conn.mid_request, conn.since = True, loop.time()
                h.receive_data(data)

        while True:
            try:
                answer = await self._request(conn, h, next_event, writer)
            except _Timeout:
                self.ingest.answered(408, names.REJECT_TIMEOUT)
                await self._write_raw(writer, status_answer(408, f"request not received within {timeout:g} s",
                                                            PROTOBUF))
                return
            except h11.RemoteProtocolError as exc:
                self.ingest.answered(400, names.REJECT_MALFORMED)
                answer = status_answer(400, f"malformed HTTP request: {exc}", PROTOBUF, close=True)
                await self._write_raw(writer, answer)
                return
            if answer is None:
                return
            await self._send(h, writer, answer)
            if answer.close or h.our_state is h11.MUST_CLOSE or h.their_state is not h11.DONE:
                if answer.linger:
                    await self._linger(reader, deadline)
                return
            h.start_next_cycle()
            deadline = None
            conn.mid_request, conn.since, conn.busy, conn.in_body = False, loop.time(), False, False

    async def _request(self, conn: _Conn, h: h11.Connection, next_event: Callable[[], Any],
                       writer: asyncio.StreamWriter) -> Answer | None:
        """Read one request and produce its answer (None: the client closed the connection)."""
        event = await next_event()
        if isinstance(event, h11.ConnectionClosed):
            return None
        assert isinstance(event, h11.Request)
        conn.in_body = True
        headers = {k.lower(): v for k, v in event.headers}
        media = JSON if headers.get(b"content-type", b"").split(b";", 1)[0].strip().lower() == JSON.encode() else PROTOBUF
        early = self._refuse(event, headers, media)
        if early is not None:
            return early
        length = int(headers[b"content-length"]) if b"content-length" in headers else None
        ingest = self.ingest
        if length is not None and length > ingest.max_body_bytes:
            ingest.answered(413, names.REJECT_TOO_LARGE)
            return status_answer(413, f"body of {length} bytes exceeds the limit of {ingest.max_body_bytes}",
                                 media, close=True)
        reserved = length or 0
        if reserved and not self.inflight.try_take(reserved):
            ingest.answered(503, names.REJECT_INFLIGHT_BUDGET)
            return status_answer(503, "too many request bytes in flight; retry", media, close=True, retry=True)
        try:
            if h.they_are_waiting_for_100_continue:
                writer.write(h.send(h11.InformationalResponse(status_code=100, headers=[])) or b"")
            body = bytearray()
            while True:
                part = await next_event()
                if isinstance(part, h11.EndOfMessage):
                    break
                if not isinstance(part, h11.Data):
                    return None
                body += part.data
                if len(body) > reserved:  # chunked: reserve as it comes
                    more = len(body) - reserved
                    if len(body) > ingest.max_body_bytes:
                        ingest.answered(413, names.REJECT_TOO_LARGE)
                        return status_answer(413, f"body exceeds the limit of {ingest.max_body_bytes}", media,
                                             close=True)
                    if not self.inflight.try_take(more):
                        ingest.answered(503, names.REJECT_INFLIGHT_BUDGET)
                        return status_answer(503, "too many request bytes in flight; retry", media, close=True,
                                             retry=True)
                    reserved += more
            conn.busy, conn.mid_request = True, False
            loop = asyncio.get_running_loop()
            encoding = headers.get(b"content-encoding", b"").decode("latin-1")
            content_type = headers.get(b"content-type", b"").decode("latin-1")
            return await loop.run_in_executor(self._pool, self._process, bytes(body), encoding, content_type, media)
        finally:
            self.inflight.give(reserved)

    def _refuse(self, event: h11.Request, headers: dict[bytes, bytes], media: str) -> Answer | None:
        """The answer for a request refused on its headers alone (None: go on and read the body)."""
        ingest = self.ingest
        path = event.target.split(b"?", 1)[0]
        method = event.method
        if path == _HEALTH_PATH and method == b"GET":
            return health_answer(ingest.health(), ingest.draining())
        if path != _TRACES_PATH:
            ingest.answered(404, None)
            return status_answer(404, f"no such resource {event.target.decode('latin-1')!r}; OTLP traces go to "
                                 f"POST {_TRACES_PATH.decode()}", media, close=True)
        if method != b"POST":
            ingest.answered(405, names.REJECT_METHOD)
            return status_answer(405, f"method {method.decode('latin-1')} not allowed; use POST", media, close=True,
                                 headers=[(b"Allow", b"POST")])
        if ingest.draining():
            ingest.answered(503, None)
            return status_answer(503, "citetrace serve is shutting down; retry", media, close=True, retry=True)
        if ingest.token is not None and not _bearer_ok(headers.get(b"authorization", b""), ingest.token):
            ingest.answered(401, names.REJECT_UNAUTHORIZED)
            return status_answer(401, "missing or wrong bearer token", media, close=True,
                                 headers=[(b"WWW-Authenticate", b"Bearer")])
        raw_type = headers.get(b"content-type", b"")
        if raw_type.split(b";", 1)[0].strip().lower() not in (PROTOBUF.encode(), JSON.encode()):
            ingest.answered(415, names.REJECT_CONTENT_TYPE)
            return status_answer(415, f"unsupported Content-Type {raw_type.decode('latin-1')!r}; use {PROTOBUF} "
                                 f"or {JSON}", media, close=True)
        return None

    def _process(self, body: bytes, encoding: str, content_type: str, media: str) -> Answer:
        """In a decode thread: decompress, decode within the decode budget, hand to the service, answer."""
        ingest = self.ingest
        try:
            try:
                plain = decompress(body, encoding, ingest.max_body_bytes)
            except BodyError as exc:
                ingest.answered(exc.status, exc.reason)
                return status_answer(exc.status, str(exc), media)
            del body
            size = len(plain)
            if not self.decode.try_take(size):
                ingest.answered(503, names.REJECT_DECODE_BUDGET)
                return status_answer(503, "too many bytes being decoded at once; retry", media, retry=True)
            try:
                decoded = decode_body(plain, content_type, ingest.keys)
                del plain
                accepted = ingest.accept(decoded)
            except BodyError as exc:
                ingest.answered(exc.status, exc.reason)
                return status_answer(exc.status, str(exc), media)
            finally:
                self.decode.give(size)
            if accepted.retry:
                ingest.answered(503, None)
                return status_answer(503, "citetrace serve is shutting down; retry", media, close=True, retry=True)
            ingest.answered(200, None)
            return otlp_answer(decoded.rejected + accepted.refused, decoded.problem or accepted.problem, media)
        except Exception as exc:  # noqa: BLE001 - bad input must never take the service down
            ingest.on_error(exc)
            ingest.answered(500, None)
            return status_answer(500, "internal error while handling the request (logged)", media, close=True)

    # -- writing -------------------------------------------------------------------------------------
    async def _send(self, h: h11.Connection, writer: asyncio.StreamWriter, answer: Answer) -> None:
        headers = [(b"Content-Type", answer.media.encode()), (b"Content-Length", str(len(answer.body)).encode()),
                   (b"Server", b"citetrace-serve"), *answer.headers]
        if answer.close:
            headers.append((b"Connection", b"close"))
        data = h.send(h11.Response(status_code=answer.status, headers=headers)) or b""
        data += h.send(h11.Data(data=answer.body)) or b""
        data += h.send(h11.EndOfMessage()) or b""
        writer.write(data)
        await asyncio.wait_for(writer.drain(), self.limits.request_timeout)

    async def _write_raw(self, writer: asyncio.StreamWriter, answer: Answer) -> None:
        """An answer outside h11's state machine (after a protocol error, or before any request)."""
        try:
            writer.write(answer.raw())
            await asyncio.wait_for(writer.drain(), 1.0)
        except (OSError, asyncio.TimeoutError):
            pass

    async def _linger(self, reader: asyncio.StreamReader, deadline: float | None) -> None:
        """Read and drop up to 4 x ``max_body_bytes`` of what the client is still sending, then close.

        Closing a socket with unread data makes the kernel reset the connection, and the client then fails
        with a broken pipe before it reads our answer; reading a bounded amount first lets it see the answer.
        """
        loop = asyncio.get_running_loop()
        # until the request's own deadline (a client may legitimately need that long to send its body), or
        # briefly when there is none; never more than 4 x max_body_bytes (a body somewhat over the limit still
        # gets its 413 read, so the collector drops the batch instead of retrying it after a broken pipe)
        until = max(deadline, loop.time() + 0.1) if deadline is not None else loop.time() + _LINGER_SECONDS
        budget = _LINGER_FACTOR * self.ingest.max_body_bytes
        try:
            while budget > 0:
                wait = until - loop.time()
                if wait <= 0:
                    return
                data = await asyncio.wait_for(reader.read(min(_READ_SIZE, budget)), wait)
                if not data:
                    return
                budget -= len(data)
        except (asyncio.TimeoutError, OSError):
            return


def _fd_room(wanted: int) -> int:
    """``wanted`` connections, or fewer if the process's file-descriptor limit cannot hold them plus a margin.

    Past the limit ``accept()`` fails and nobody gets in; under it, eviction keeps room for new clients.
    """
    try:
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return max(1, wanted)
    if soft == resource.RLIM_INFINITY or wanted <= soft - 64:
        return max(1, wanted)
    room = max(1, soft - 64)
    _log.warning("citetrace serve: --max-connections %d lowered to %d (ulimit -n is %d)", wanted, room, soft)
    return room


def _bearer_ok(header: bytes, token: str) -> bool:
    """RFC 7235: the auth scheme is case-insensitive (``bearer`` = ``Bearer``); the token is compared exactly."""
    import hmac

    scheme, _, credentials = header.strip().partition(b" ")
    return scheme.lower() == b"bearer" and hmac.compare_digest(credentials.strip(), token.encode())
