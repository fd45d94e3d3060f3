"""citetrace serve over real HTTP: OTLP answers, metrics on /metrics, summaries in the store, bounds."""

from __future__ import annotations

import gzip
import json
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Callable

import pytest
from google.rpc import status_pb2
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from prometheus_client.parser import text_string_to_metric_families

from citetrace import names
from citetrace.serve import Service, encode_request, request_json
from citetrace.store import MemoryStore

from ._spans import failing_run, healthy_run

PB = "application/x-protobuf"
JSON = "application/json"


def post(service: Service, body: bytes, headers: dict[str, str], path: str = "/v1/traces") -> tuple[int, bytes, str]:
    req = urllib.request.Request(f"http://127.0.0.1:{service.port}{path}", data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.read(), resp.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), exc.headers.get("Content-Type", "")


def scrape(service: Service) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the real /metrics endpoint."""
    with urllib.request.urlopen(f"http://127.0.0.1:{service.metrics_port}/metrics", timeout=10) as resp:
        text = resp.read().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for fam in text_string_to_metric_families(text) for s in fam.samples}


def sample(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def wait_for(predicate: Callable[[], Any], timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (result := predicate()):
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.05)
    return result


MakeService = Callable[..., Service]


def test_protobuf_request_becomes_metrics_and_a_stored_summary(make_service: MakeService, store: MemoryStore) -> None:
    """A protobuf export gets an empty 200 response; after the grace period /metrics and the store show the runs."""
    service = make_service()
    spans = failing_run(0x1001, run_id="r-fail") + healthy_run(0x1002, run_id="r-ok")
    status, body, ctype = post(service, encode_request(spans, service_name="svc").SerializeToString(),
                               {"Content-Type": PB})
    assert (status, ctype) == (200, PB)
    assert not ExportTraceServiceResponse.FromString(body).HasField("partial_success")
    wait_for(lambda: len(store.runs()) == 2)
    samples = scrape(service)
    assert sample(samples, names.METRIC_RUNS_TOTAL, agent="agent-a", outcome="failed") == 1
    assert sample(samples, names.METRIC_RUNS_TOTAL, agent="agent-a", outcome="ok") == 1
    for reason in (names.REASON_UNCITED_URL, names.REASON_EMPTY_SEARCH, names.REASON_FAILED_READS,
                   names.REASON_RATE_LIMITED):
        assert sample(samples, names.METRIC_RUN_FAILURES_TOTAL, agent="agent-a", reason=reason) == 1
    assert sample(samples, names.METRIC_TOOL_CALLS_TOTAL, agent="agent-a", tool="fetch_page", kind="fetch",
                  status="error") == 1
    assert sample(samples, names.METRIC_SERVE_SPANS_RECEIVED_TOTAL) == len(spans)
    assert sample(samples, names.METRIC_SERVE_REQUESTS_TOTAL, code="200") == 1
    record = store.get_run("r-fail")
    assert record is not None and record.summary is not None
    assert record.summary["failed_reads"] == 2 and record.summary["failed"] is True


def test_gzip_json_request_gets_a_json_answer(make_service: MakeService, store: MemoryStore) -> None:
    """OTLP/JSON with gzip is accepted and answered in JSON."""
    service = make_service()
    body = gzip.compress(request_json(encode_request(healthy_run(0x2001, run_id="r-json"))))
    status, answer, ctype = post(service, body, {"Content-Type": JSON, "Content-Encoding": "gzip"})
    assert (status, ctype) == (200, JSON)
    assert json.loads(answer) == {}
    wait_for(lambda: store.get_run("r-json") is not None)


def test_partial_success_reports_rejected_spans(make_service: MakeService) -> None:
    """Spans with invalid ids are refused inside an accepted request: 200 with partial_success, counted."""
    service = make_service()
    request = encode_request(healthy_run(0x3001))
    request.resource_spans[0].scope_spans[0].spans[0].trace_id = b"\x01\x02"
    status, body, _ = post(service, request.SerializeToString(), {"Content-Type": PB})
    assert status == 200
    partial = ExportTraceServiceResponse.FromString(body).partial_success
    assert partial.rejected_spans == 1 and "16 bytes" in partial.error_message
    assert sample(scrape(service), names.METRIC_SERVE_REJECTED_TOTAL, reason=names.REJECT_INVALID_SPAN) == 1


def test_span_cap_shows_in_partial_success(make_service: MakeService) -> None:
    """Spans over the per-trace cap are reported back as rejected."""
    service = make_service(max_spans_per_trace=1)
    status, body, _ = post(service, request_json(encode_request(failing_run(0x3002))), {"Content-Type": JSON})
    assert status == 200
    assert json.loads(body)["partialSuccess"]["rejectedSpans"] == "3"


@pytest.mark.parametrize(
    ("body", "headers", "code", "reason"),
    [
        (b"\xff\xff\xff", {"Content-Type": PB}, 400, names.REJECT_MALFORMED),
        (b"{nope", {"Content-Type": JSON}, 400, names.REJECT_MALFORMED),
        (b"garbage", {"Content-Type": PB, "Content-Encoding": "gzip"}, 400, names.REJECT_MALFORMED),
        (b"x" * 3000, {"Content-Type": PB}, 413, names.REJECT_TOO_LARGE),
        (gzip.compress(b"\0" * 200_000), {"Content-Type": PB, "Content-Encoding": "gzip"}, 413,
         names.REJECT_TOO_LARGE),
        (b"{}", {"Content-Type": "text/plain"}, 415, names.REJECT_CONTENT_TYPE),
        (b"{}", {"Content-Type": JSON, "Content-Encoding": "zstd"}, 415, names.REJECT_CONTENT_TYPE),
    ],
)
def test_bad_requests_get_otlp_errors_and_are_counted(
    make_service: MakeService, body: bytes, headers: dict[str, str], code: int, reason: str
) -> None:
    """Malformed bodies are 400, oversized 413, foreign types/encodings 415, each with a Status message and a count."""
    service = make_service(max_body_bytes=2048 if code == 413 and "Content-Encoding" not in headers else 100_000)
    status, answer, ctype = post(service, body, headers)
    assert status == code
    if ctype == PB:
        assert status_pb2.Status.FromString(answer).message
    else:
        assert json.loads(answer)["message"]
    samples = scrape(service)
    assert sample(samples, names.METRIC_SERVE_REJECTED_TOTAL, reason=reason) == 1
    assert sample(samples, names.METRIC_SERVE_REQUESTS_TOTAL, code=str(code)) == 1
    # still serving
    ok, _, _ = post(service, encode_request(healthy_run(0x4001)).SerializeToString(), {"Content-Type": PB})
    assert ok == 200


def test_bearer_token_guards_ingestion(make_service: MakeService) -> None:
    """With a token, requests without it or with a wrong one get 401; the right one is accepted."""
    service = make_service(token="s3cret")
    body = encode_request(healthy_run(0x5001)).SerializeToString()
    assert post(service, body, {"Content-Type": PB})[0] == 401
    assert post(service, body, {"Content-Type": PB, "Authorization": "Bearer wrong"})[0] == 401
    assert post(service, body, {"Content-Type": PB, "Authorization": "Bearer s3cret"})[0] == 200
    assert sample(scrape(service), names.METRIC_SERVE_REJECTED_TOTAL, reason=names.REJECT_UNAUTHORIZED) == 2


def test_memory_stays_bounded_under_many_rootless_traces(make_service: MakeService) -> None:
    """Traces in flight never exceed max_traces; the evictions are on /metrics."""
    service = make_service(max_traces=50)
    for batch in range(10):
        spans = [s for tid in range(batch * 40 + 1, batch * 40 + 41) for s in failing_run(tid)[:2]]
        assert post(service, encode_request(spans).SerializeToString(), {"Content-Type": PB})[0] == 200
        assert service.assembler.in_flight <= 50
    samples = scrape(service)
    assert sample(samples, names.METRIC_TRACES_IN_FLIGHT) == 50
    assert sample(samples, names.METRIC_TRACES_EVICTED_TOTAL, reason=names.EVICT_CAPACITY) == 350


def test_healthz_and_unknown_paths(make_service: MakeService) -> None:
    """GET /healthz answers 200 with the traces in flight; other paths are 404."""
    service = make_service()
    with urllib.request.urlopen(f"http://127.0.0.1:{service.port}/healthz", timeout=5) as resp:
        assert resp.status == 200 and json.loads(resp.read())["status"] == "ok"
    assert post(service, b"{}", {"Content-Type": JSON}, path="/v1/logs")[0] == 404


def test_stop_answers_503_and_reports_lost_traces(make_service: MakeService, store: MemoryStore) -> None:
    """Stopping summarises rooted traces, counts every trace in flight (on /metrics during the drain window),
    and exports arriving meanwhile get a retryable 503."""
    service = make_service(grace_seconds=30)
    post(service, encode_request(healthy_run(0x6001, run_id="r-done") + failing_run(0x6002)[:2]).SerializeToString(),
         {"Content-Type": PB})
    assert sample(scrape(service), names.METRIC_TRACES_IN_FLIGHT) == 2
    lost: list[int] = []
    stopper = threading.Thread(target=lambda: lost.append(service.stop(drain_seconds=1.5)))
    stopper.start()
    wait_for(lambda: sample(scrape(service), names.METRIC_TRACES_EVICTED_TOTAL, reason=names.EVICT_SHUTDOWN) == 2)
    status, _, _ = post(service, encode_request(healthy_run(0x6003)).SerializeToString(), {"Content-Type": PB})
    assert status == 503
    stopper.join(10)
    assert lost == [2]
    assert store.get_run("r-done") is not None


def test_connection_flood_makes_room_for_a_legitimate_client(make_service: MakeService) -> None:
    """With every connection slot held by silent clients, a new client is served: the oldest waiter is closed."""
    import socket

    service = make_service(max_connections=3)
    idle = [socket.create_connection(("127.0.0.1", service.port)) for _ in range(3)]
    try:
        body = encode_request(healthy_run(0x8001)).SerializeToString()
        assert post(service, body, {"Content-Type": PB})[0] == 200
        idle[0].settimeout(5)
        assert idle[0].recv(4096).startswith(b"HTTP/1.1 408")  # the oldest silent client was told and closed
        assert sample(scrape(service), names.METRIC_SERVE_REJECTED_TOTAL, reason=names.REJECT_EVICTED) == 1
    finally:
        for sock in idle:
            sock.close()


def test_exposition_passes_promtool(make_service: MakeService, store: MemoryStore) -> None:
    """serve's /metrics (summary metrics and self-metrics) passes `promtool check metrics`."""
    import shutil
    import subprocess

    promtool = shutil.which("promtool")
    assert promtool, "promtool is not installed: run scripts/setup (apt-get install prometheus)"
    service = make_service()
    post(service, encode_request(failing_run(0x9001, run_id="r-p")).SerializeToString(), {"Content-Type": PB})
    post(service, b"{bad", {"Content-Type": JSON})
    wait_for(lambda: store.get_run("r-p") is not None)
    with urllib.request.urlopen(f"http://127.0.0.1:{service.metrics_port}/metrics", timeout=10) as resp:
        text = resp.read()
    assert names.METRIC_SERVE_REJECTED_TOTAL.encode() in text and names.METRIC_RUNS_TOTAL.encode() in text
    checked = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, timeout=60)
    assert checked.returncode == 0, checked.stdout.decode() + checked.stderr.decode()
