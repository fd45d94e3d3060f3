"""Exporter selection as the SDK's configurator does it, and the quiet default when nothing listens."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from citetrace._exporters import QuietLocalExporter, exporters_from_env


def _inner(exporter: object) -> object:
    return exporter.inner if isinstance(exporter, QuietLocalExporter) else exporter


def test_comma_list_gives_every_exporter_in_order() -> None:
    """OTEL_TRACES_EXPORTER=console,otlp gives both, console first; none gives nothing."""
    found = exporters_from_env({"OTEL_TRACES_EXPORTER": "console, otlp"})
    assert [type(_inner(e)) for e in found] == [ConsoleSpanExporter, HttpExporter]
    assert exporters_from_env({"OTEL_TRACES_EXPORTER": "none"}) == []


def test_protocol_per_signal_wins_and_grpc_is_honoured() -> None:
    """OTEL_EXPORTER_OTLP_TRACES_PROTOCOL beats OTEL_EXPORTER_OTLP_PROTOCOL, as in the SDK."""
    env = {"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc",
           "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317"}
    (exporter,) = exporters_from_env(env)
    assert isinstance(exporter, GrpcExporter)  # an endpoint was set: the SDK's exporter, unwrapped


@pytest.mark.parametrize(("variable", "value"), [("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
                                               ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json"),
                                               ("OTEL_EXPORTER_OTLP_PROTOCOL", "grcp")])
def test_protocol_the_sdk_cannot_export_is_refused(variable: str, value: str) -> None:
    """http/json (no Python exporter speaks it) or a typo is a ValueError naming the variable and its value,
    as the SDK's configurator refuses it, never protobuf sent to a receiver promised JSON."""
    with pytest.raises(ValueError) as info:
        exporters_from_env({variable: value})
    message = str(info.value)
    assert f"{variable}={value!r}" in message and "http/protobuf or grpc" in message
    assert ("OTLP/JSON" in message) == (value == "http/json")


def test_sdk_refuses_the_same_protocols() -> None:
    """The SDK's own configurator refuses http/json too: the values accepted are the SDK's."""
    from opentelemetry.sdk._configuration import _get_exporter_names

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OTEL_TRACES_EXPORTER", "otlp")
        mp.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
        with pytest.raises(RuntimeError):
            _get_exporter_names("traces")
        mp.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
        assert _get_exporter_names("traces") == ["otlp_proto_http"]


def test_configure_refuses_http_json_in_one_line(tmp_path: Path) -> None:
    """configure() with OTEL_EXPORTER_OTLP_PROTOCOL=http/json raises before setting a global provider."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "CITETRACE_"))}
    env.update(OTEL_EXPORTER_OTLP_PROTOCOL="http/json", CITETRACE_STORE=f"sqlite:///{tmp_path / 's.db'}")
    script = ("import citetrace\nfrom opentelemetry import trace\nfrom opentelemetry.sdk.trace import TracerProvider\n"
              "try:\n    citetrace.configure()\nexcept ValueError as exc:\n    print(exc)\n"
              "print('global set' if isinstance(trace.get_tracer_provider(), TracerProvider) else 'global unset')\n")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "OTEL_EXPORTER_OTLP_PROTOCOL='http/json' is not supported" in out.stdout
    assert out.stdout.strip().endswith("global unset"), out.stdout  # nothing half set up


def test_unknown_exporter_name_is_named_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    """A name no installed exporter has: a warning naming it (and what is installed), the rest still used."""
    with caplog.at_level(logging.WARNING, logger="citetrace"):
        found = exporters_from_env({"OTEL_TRACES_EXPORTER": "zipkinx,console"})
    assert [type(e) for e in found] == [ConsoleSpanExporter]
    (message,) = [r.getMessage() for r in caplog.records if "zipkinx" in r.getMessage()]
    assert "console" in message


def _span() -> ReadableSpan:
    return ReadableSpan("s")


def test_quiet_exporter_drops_once_told_and_picks_up_a_receiver_started_later(
        caplog: pytest.LogCaptureFixture) -> None:
    """Nothing listening: FAILURE, counted, one warning, the SDK exporter never called; after recheck_s a
    receiver that started meanwhile gets the next batch."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    now = [0.0]
    inner = InMemorySpanExporter()
    quiet = QuietLocalExporter(inner, "127.0.0.1", port, recheck_s=30.0, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="citetrace"):
        assert quiet.export([_span()]) is SpanExportResult.FAILURE
        assert quiet.export([_span(), _span()]) is SpanExportResult.FAILURE
    assert quiet.dropped == 3 and inner.get_finished_spans() == ()
    assert len([r for r in caplog.records if "nothing listens" in r.getMessage()]) == 1
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", port))
        listener.listen()
        assert quiet.export([_span()]) is SpanExportResult.FAILURE  # not re-checked yet
        now[0] = 31.0
        assert quiet.export([_span()]) is SpanExportResult.SUCCESS
    assert len(inner.get_finished_spans()) == 1


def test_only_unknown_names_fall_back_to_otlp(caplog: pytest.LogCaptureFixture) -> None:
    """A value naming no installed exporter at all falls back to otlp, saying so (a typo must not export
    nothing)."""
    with caplog.at_level(logging.WARNING, logger="citetrace"):
        (exporter,) = exporters_from_env({"OTEL_TRACES_EXPORTER": "otpl"})
    assert isinstance(_inner(exporter), HttpExporter)
    assert any("falling back to otlp" in r.getMessage() for r in caplog.records)


def test_eval_names_an_unsupported_protocol_in_one_line(tmp_path: Path) -> None:
    """`citetrace eval` exporting its events with OTEL_EXPORTER_OTLP_PROTOCOL=http/json: one line naming it."""
    import os
    import subprocess
    import sys

    from citetrace.store import RunRecord, SQLiteStore

    store = SQLiteStore(tmp_path / "s.db")
    store.put_run(RunRecord("r1", "0" * 32, "scout", "q", 1.0, 2.0, "Solar grew [1].\n\n[1] https://example.org/a"))
    store.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "CITETRACE_"))}
    env.update(OTEL_TRACES_EXPORTER="otlp", OTEL_EXPORTER_OTLP_PROTOCOL="http/json",
               CITETRACE_STORE=f"sqlite:///{tmp_path / 's.db'}")
    out = subprocess.run([sys.executable, "-m", "citetrace", "eval", "r1", "--offline"], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    assert "OTEL_EXPORTER_OTLP_PROTOCOL='http/json' is not supported" in lines[0]
