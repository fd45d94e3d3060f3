"""The OTLP/HTTP endpoint of ``citetrace serve``: ``POST /v1/traces`` and ``GET /healthz``.

Answers follow the OTLP/HTTP specification: 200 with an ``ExportTraceServiceResponse`` (``partial_success``
when some spans were refused), 400 for a body that does not parse, 413 over the size limit, 415 for a media
type or encoding we do not speak, 401 without the bearer token, 503 (retryable) while shutting down. Error
bodies are a ``google.rpc.Status`` in the request's encoding. No input makes the handler raise: unexpected
errors answer 500, are logged once and counted.
"""

from __future__ import annotations

import hmac
import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, NamedTuple

from google.protobuf import json_format
from google.rpc import code_pb2, status_pb2
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from citetrace import names
from citetrace.serve._decode import JSON, PROTOBUF, BodyError, Decoded, decode_body, decompress

__all__ = ["IngestServer", "Ingest", "Accepted"]

_log = logging.getLogger("citetrace.serve")
_GRPC_CODE = {400: code_pb2.INVALID_ARGUMENT, 401: code_pb2.UNAUTHENTICATED, 404: code_pb2.NOT_FOUND,
              405: code_pb2.UNIMPLEMENTED, 411: code_pb2.INVALID_ARGUMENT, 413: code_pb2.RESOURCE_EXHAUSTED,
              415: code_pb2.INVALID_ARGUMENT, 500: code_pb2.INTERNAL, 503: code_pb2.UNAVAILABLE}
_TRACES_PATH = "/v1/traces"


class Accepted(NamedTuple):
    """What the service did with a decoded request: spans refused after decoding, and why."""

    refused: int
    problem: str
    retry: bool = False
    """Nothing was taken because the service is shutting down: answer 503 so the sender retries."""


class Ingest:
    """The callbacks and limits the handler needs; the service provides them."""

    def __init__(
        self,
        *,
        accept: Callable[[Decoded], Accepted],
        answered: Callable[[int, str | None], None],
        health: Callable[[], dict[str, object]],
        draining: Callable[[], bool],
        on_error: Callable[[BaseException], None],
        max_body_bytes: int,
        token: str | None,
        keys: frozenset[str] | None = None,
    ) -> None:
        self.accept = accept
        self.answered = answered
        self.health = health
        self.draining = draining
        self.on_error = on_error
        self.max_body_bytes = max_body_bytes
        self.token = token
        self.keys = keys


class _Handler(BaseHTTPRequestHandler):
    server: "IngestServer"
    protocol_version = "HTTP/1.1"
    server_version = "citetrace-serve"
    timeout = 60  # a client that stalls mid-body or idles on keep-alive gives its thread back

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        _log.debug("%s " + format, self.address_string(), *args)

    # -- answers -------------------------------------------------------------------------------------
    def _send(self, code: int, body: bytes, content_type: str, *, close: bool = False,
              headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def _media(self) -> str:
        media = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        return JSON if media == JSON else PROTOBUF

    def _fail(self, code: int, reason: str | None, message: str, *, close: bool = False,
              headers: dict[str, str] | None = None) -> None:
        status = status_pb2.Status(code=_GRPC_CODE.get(code, code_pb2.UNKNOWN), message=message)
        media = self._media()
        body = (json_format.MessageToJson(status).encode() if media == JSON else status.SerializeToString())
        self.server.ingest.answered(code, reason)
        self._send(code, body, media, close=close, headers=headers)

    # -- routes --------------------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        if self.path.split("?", 1)[0] != "/healthz":
            self._fail(404, None, f"no such resource {self.path!r}; OTLP traces go to POST {_TRACES_PATH}")
            return
        ingest = self.server.ingest
        body = dict(ingest.health())
        draining = ingest.draining()
        body["status"] = "draining" if draining else "ok"
        self._send(503 if draining else 200, json.dumps(body).encode(), JSON)

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        try:
            self._post()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True
        except Exception as exc:  # noqa: BLE001 - bad input must never take the service down
            self.server.ingest.on_error(exc)
            try:
                self._fail(500, None, "internal error while handling the request (logged)", close=True)
            except OSError:
                self.close_connection = True

    def _post(self) -> None:
        ingest = self.server.ingest
        if self.path.split("?", 1)[0] != _TRACES_PATH:
            self._fail(404, None, f"no such resource {self.path!r}; OTLP traces go to POST {_TRACES_PATH}",
                       close=True)
            return
        if ingest.draining():
            self._fail(503, None, "citetrace serve is shutting down; retry", close=True,
                       headers={"Retry-After": "1"})
            return
        if ingest.token is not None:
            given = self.headers.get("Authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {ingest.token}".encode()):
                self._fail(401, names.REJECT_UNAUTHORIZED, "missing or wrong bearer token", close=True,
                           headers={"WWW-Authenticate": "Bearer"})
                return
        content_type = self.headers.get("Content-Type", "")
        media = content_type.split(";", 1)[0].strip().lower()
        if media not in (PROTOBUF, JSON):
            self._fail(415, names.REJECT_CONTENT_TYPE,
                       f"unsupported Content-Type {content_type!r}; use {PROTOBUF} or {JSON}", close=True)
            return
        raw_length = self.headers.get("Content-Length")
        if raw_length is None or not raw_length.strip().isdigit():
            self._fail(411, names.REJECT_MALFORMED, "a Content-Length header is required", close=True)
            return
        length = int(raw_length)
        if length > ingest.max_body_bytes:
            self._fail(413, names.REJECT_TOO_LARGE,
                       f"body of {length} bytes exceeds the limit of {ingest.max_body_bytes}", close=True)
            return
        body = self.rfile.read(length)
        if len(body) != length:
            self._fail(400, names.REJECT_MALFORMED, "body shorter than its Content-Length", close=True)
            return
        try:
            plain = decompress(body, self.headers.get("Content-Encoding", ""), ingest.max_body_bytes)
            decoded = decode_body(plain, content_type, ingest.keys)
        except BodyError as exc:
            self._fail(exc.status, exc.reason, str(exc))
            return
        accepted = ingest.accept(decoded)
        if accepted.retry:
            self._fail(503, None, "citetrace serve is shutting down; retry", close=True, headers={"Retry-After": "1"})
            return
        response = ExportTraceServiceResponse()
        refused = decoded.rejected + accepted.refused
        if refused:
            response.partial_success.rejected_spans = refused
            response.partial_success.error_message = decoded.problem or accepted.problem
        payload = (json_format.MessageToJson(response, indent=None).encode() if media == JSON
                   else response.SerializeToString())
        ingest.answered(200, None)
        self._send(200, payload, media)


class IngestServer(ThreadingHTTPServer):
    """A threading HTTP server bound to ``(host, port)`` (port 0 picks a free one).

    At most ``max_connections`` connections are served at once (one thread each); more are answered 503 at
    once and closed, so a connection flood cannot grow threads and memory without bound.
    """

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, host: str, port: int, ingest: Ingest, max_connections: int = 64) -> None:
        self.ingest = ingest
        self._slots = threading.BoundedSemaphore(max_connections)
        super().__init__((host, port), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self.ingest.answered(503, None)
            try:
                request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\n"
                                b"Connection: close\r\n\r\n")
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()
