"""The receiver under hostile clients on 127.0.0.1: deadlines, room for legitimate clients, budgets, odd headers.

Every case is bounded in count and time and ends by itself; waits are for the server's answer (a socket read
with a timeout), never a sleep standing in for it.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from typing import Callable

from citetrace import names
from citetrace.serve import Service, encode_request, request_json

from ._spans import healthy_run
from .test_service import post, sample, scrape, wait_for

PB = "application/x-protobuf"
MakeService = Callable[..., Service]


def raw(service: Service, data: bytes, timeout: float = 5.0) -> bytes:
    """Send raw bytes, return everything the server answers until it closes (or the timeout)."""
    with socket.create_connection(("127.0.0.1", service.port), timeout=timeout) as sock:
        sock.sendall(data)
        out = b""
        try:
            while chunk := sock.recv(65536):
                out += chunk
        except (TimeoutError, ConnectionResetError):
            pass
        return out


def head(service: Service, extra: bytes, body: bytes = b"") -> bytes:
    return (b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n" + extra + b"\r\n" + body)


def test_content_length_that_is_not_ascii_digits_is_a_400(make_service: MakeService) -> None:
    """`Content-Length: ²` (str.isdigit() is true for it) is a malformed request: 400, counted, never a 500."""
    service = make_service()
    answer = raw(service, head(service, "Content-Length: ²\r\n".encode()))
    assert answer.startswith(b"HTTP/1.1 400"), answer[:80]
    samples = scrape(service)
    assert sample(samples, names.METRIC_SERVE_REJECTED_TOTAL, reason=names.REJECT_MALFORMED) == 1
    assert sample(samples, names.METRIC_SERVE_REQUESTS_TOTAL, code="500") == 0


def test_a_body_over_the_limit_gets_its_413_without_a_broken_pipe(make_service: MakeService) -> None:
    """The client sends its whole (too large) body and then reads the 413: the server drained it, no EPIPE."""
    service = make_service(max_body_bytes=4 << 20)
    conn = http.client.HTTPConnection("127.0.0.1", service.port, timeout=10)
    conn.request("POST", "/v1/traces", body=b"\0" * (15 << 20), headers={"Content-Type": PB})
    assert conn.getresponse().status == 413
    conn.close()


def test_other_methods_get_a_counted_405(make_service: MakeService) -> None:
    """GET, PUT or DELETE on /v1/traces is a 405 with Allow: POST, counted as method."""
    service = make_service()
    for method in ("GET", "PUT", "DELETE"):
        conn = http.client.HTTPConnection("127.0.0.1", service.port, timeout=10)
        conn.request(method, "/v1/traces")
        resp = conn.getresponse()
        assert (resp.status, resp.getheader("Allow")) == (405, "POST")
        conn.close()
    assert sample(scrape(service), names.METRIC_SERVE_REJECTED_TOTAL, reason=names.REJECT_METHOD) == 3


def test_chunked_bodies_are_taken_within_the_byte_cap(make_service: MakeService, store: object) -> None:
    """Transfer-Encoding: chunked works like Content-Length; past max_body_bytes it is a 413."""
    service = make_service(max_body_bytes=4096)
    body = encode_request(healthy_run(0x5101)).SerializeToString()
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + 100]), body[i:i + 100]) for i in range(0, len(body), 100))
    answer = raw(service, head(service, b"Transfer-Encoding: chunked\r\nConnection: close\r\n", chunks + b"0\r\n\r\n"))
    assert answer.startswith(b"HTTP/1.1 200"), answer[:80]
    big = b"1000\r\n" + b"\0" * 4096 + b"\r\n"
    answer = raw(service, head(service, b"Transfer-Encoding: chunked\r\n", big * 2 + b"0\r\n\r\n"))
    assert answer.startswith(b"HTTP/1.1 413"), answer[:80]


def test_the_bearer_scheme_is_case_insensitive(make_service: MakeService) -> None:
    """RFC 7235: `bearer`, `Bearer` and `BEARER` are the same scheme; the token itself must match exactly."""
    service = make_service(token="s3cret")
    body = encode_request(healthy_run(0x5201)).SerializeToString()
    for scheme in ("bearer", "Bearer", "BEARER"):
        assert post(service, body, {"Content-Type": PB, "Authorization": f"{scheme} s3cret"})[0] == 200, scheme
    assert post(service, body, {"Content-Type": PB, "Authorization": "bearer S3CRET"})[0] == 401


def test_a_content_length_larger_than_the_body_is_answered_at_the_deadline(make_service: MakeService) -> None:
    """A client that promises more body than it sends gets a 408 when the request deadline passes, then a close."""
    service = make_service(request_timeout=0.5)
    started = time.monotonic()
    answer = raw(service, head(service, b"Content-Length: 1000\r\n", b"x" * 10))
    elapsed = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408"), answer[:80]
    assert 0.4 <= elapsed < 3.0, elapsed
    assert sample(scrape(service), names.METRIC_SERVE_REJECTED_TOTAL, reason=names.REJECT_TIMEOUT) == 1


def test_the_deadline_is_per_request_not_per_read(make_service: MakeService) -> None:
    """A client trickling a header byte every 50 ms (each read succeeds) is still cut off at the request deadline."""
    service = make_service(request_timeout=0.5)
    request = head(service, b"Content-Length: 0\r\n" + b"X-Pad: " + b"a" * 400 + b"\r\n")
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", service.port), timeout=5) as sock:
        sock.settimeout(0.05)
        answer = b""
        for byte in request:  # bounded: at most len(request) bytes, 50 ms apart
            try:
                sock.send(bytes([byte]))
                answer = sock.recv(4096)
                break
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                break
    elapsed = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408"), answer[:80]
    assert elapsed < 3.0, elapsed


def test_slow_clients_holding_every_connection_leave_room_for_legitimate_ones(make_service: MakeService) -> None:
    """40 half-sent requests against 16 connection slots: every legitimate export still gets a 200 at once."""
    service = make_service(max_connections=16, request_timeout=30.0)
    slow = []
    try:
        for _ in range(40):
            sock = socket.create_connection(("127.0.0.1", service.port), timeout=5)
            sock.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Le")
            slow.append(sock)
        started = time.monotonic()
        for i in range(10):
            body = encode_request(healthy_run(0x5300 + i)).SerializeToString()
            assert post(service, body, {"Content-Type": PB})[0] == 200
        assert time.monotonic() - started < 10
        assert sample(scrape(service), names.METRIC_SERVE_REJECTED_TOTAL, reason=names.REJECT_EVICTED) >= 10
    finally:
        for sock in slow:
            sock.close()


def test_a_full_decode_budget_answers_503_with_retry_after_and_recovers(make_service: MakeService) -> None:
    """While the decode budget is taken, a request is refused with 503 + Retry-After (counted); then it is served."""
    service = make_service(max_body_bytes=64 * 1024, max_decode_bytes=64 * 1024)
    budget = service.http.decode
    assert budget.try_take(budget.limit)
    body = encode_request(healthy_run(0x5401)).SerializeToString()
    req = http.client.HTTPConnection("127.0.0.1", service.port, timeout=10)
    req.request("POST", "/v1/traces", body=body, headers={"Content-Type": PB})
    resp = req.getresponse()
    assert (resp.status, resp.getheader("Retry-After")) == (503, "1")
    req.close()
    assert sample(scrape(service), names.METRIC_SERVE_REJECTED_TOTAL, reason=names.REJECT_DECODE_BUDGET) == 1
    budget.give(budget.limit)
    assert post(service, body, {"Content-Type": PB})[0] == 200


def test_bytes_in_flight_are_bounded_over_all_connections(make_service: MakeService) -> None:
    """A slow client's announced body holds the in-flight budget: another body that does not fit gets a 503."""
    service = make_service(max_body_bytes=64 * 1024, max_inflight_bytes=64 * 1024)
    with socket.create_connection(("127.0.0.1", service.port), timeout=5) as slow:
        slow.sendall(head(service, b"Content-Length: 65500\r\n", b"x" * 100))
        wait_for(lambda: service.http.inflight.used == 65500, 5)
        status = post(service, encode_request(healthy_run(0x5501)).SerializeToString(), {"Content-Type": PB})[0]
        assert status == 503
    assert sample(scrape(service), names.METRIC_SERVE_REJECTED_TOTAL, reason=names.REJECT_INFLIGHT_BUDGET) == 1
    wait_for(lambda: service.http.inflight.used == 0, 5)


def test_concurrent_large_bodies_never_decode_more_than_the_budget(make_service: MakeService) -> None:
    """12 concurrent JSON bodies against a budget of two: peak decode bytes stay within it; the rest get 503."""
    spans = [s for i in range(120) for s in healthy_run(0x5600 + i, run_id=f"r{i}")]
    body = request_json(encode_request(spans))
    service = make_service(max_body_bytes=len(body), max_decode_bytes=2 * len(body))
    statuses: list[int] = []
    go = threading.Barrier(12)

    def send() -> None:
        go.wait(10)
        statuses.append(post(service, body, {"Content-Type": "application/json"})[0])

    threads = [threading.Thread(target=send) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(statuses) == 12 and set(statuses) <= {200, 503} and 200 in statuses
    assert service.http.decode.peak <= service.http.decode.limit
    assert sample(scrape(service), names.METRIC_SERVE_REJECTED_TOTAL,
                  reason=names.REJECT_DECODE_BUDGET) == statuses.count(503)


def test_an_upload_in_progress_outlives_newer_header_phase_clients(make_service: MakeService) -> None:
    """At capacity, a connection still sending headers is closed before an older one that is sending a body."""
    service = make_service(max_connections=3, request_timeout=30.0)
    body = encode_request(healthy_run(0x5701)).SerializeToString()
    with socket.create_connection(("127.0.0.1", service.port), timeout=5) as upload:
        upload.sendall(head(service, b"Content-Length: %d\r\n" % len(body), body[:10]))
        assert post(service, b"", {"Content-Type": PB})[0] == 200  # the upload's headers are parsed by now
        slow = [socket.create_connection(("127.0.0.1", service.port), timeout=5) for _ in range(2)]
        for sock in slow:
            sock.sendall(b"POST /v1/traces HTTP/1.1\r\nHost")
        try:
            assert post(service, body, {"Content-Type": PB})[0] == 200  # evicts a header-phase client
            upload.sendall(body[10:])
            assert upload.recv(4096).startswith(b"HTTP/1.1 200")
        finally:
            for sock in slow:
                sock.close()


def test_max_connections_stays_under_the_file_descriptor_limit() -> None:
    """A --max-connections the process could not open is lowered to the descriptor limit minus a margin."""
    import resource

    from citetrace.serve._http import _fd_room

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert _fd_room(10) == 10
    if soft != resource.RLIM_INFINITY:
        assert _fd_room(soft * 2) == soft - 64
