"""configure(): provider, exporter from OTEL_* variables over real OTLP/HTTP, store, processors, disabled mode.

Each case runs in a subprocess because a process can set the global TracerProvider only once.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Iterator

import pytest
from citetrace import names
from instrumentation._net import OtlpReceiver  # the suite's OTLP/HTTP receiver (tests/ is on sys.path)

AGENT = textwrap.dedent(
    """
    import citetrace
    from citetrace import research_run, traced_tool

    telemetry = citetrace.configure()

    @traced_tool(kind="search")
    def search(query):
        return []                      # an empty search: the run fails, so its whole trace is kept

    @traced_tool(kind="fetch")
    def fetch(url):
        return "text " * 100

    with research_run("q", agent="cfg-agent") as run:
        search("nothing here")
        fetch("https://a.example/1")
        run.record_answer("See [1].\\n[1] https://a.example/1")
    print("RUN", run.id, run.trace_id, telemetry.tracer_provider is not None)
    """
)


@pytest.fixture
def otlp_receiver() -> Iterator[tuple[str, OtlpReceiver]]:
    receiver = OtlpReceiver()
    try:
        yield receiver.base, receiver
    finally:
        receiver.close()


def _run(script: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "CITETRACE_"))}
    full_env.update(env)
    return subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=full_env, capture_output=True,
                          text=True, timeout=120)


def _spans(receiver: OtlpReceiver) -> list[tuple[str, dict[str, object], dict[str, object]]]:
    return [(span["name"], span["attrs"], span["resource"]) for span in receiver.spans()]


def test_configure_exports_over_otlp_http(otlp_receiver: tuple[str, OtlpReceiver], tmp_path: Path) -> None:
    """With only OTEL_* variables, spans reach a real OTLP/HTTP endpoint, with the service name and summary."""
    endpoint, receiver = otlp_receiver
    out = _run(AGENT, tmp_path, OTEL_EXPORTER_OTLP_ENDPOINT=endpoint, OTEL_SERVICE_NAME="cfg-service",
               CITETRACE_STORE="sqlite:///store.db")
    assert out.returncode == 0, out.stderr
    _, run_id, trace_id, has_provider = out.stdout.split()
    assert has_provider == "True"
    spans = _spans(receiver)
    by_name = {name: (attrs, res) for name, attrs, res in spans}
    assert set(by_name) == {"invoke_agent cfg-agent", "execute_tool search", "execute_tool fetch"}
    root_attrs, resource = by_name["invoke_agent cfg-agent"]
    assert resource["service.name"] == "cfg-service"
    assert root_attrs[names.RUN_ID] == run_id
    assert root_attrs[names.CITATIONS] == ["https://a.example/1"]
    assert root_attrs[names.summary_attr("empty_searches")] == 1
    assert root_attrs[names.SUMMARY_KEEP] is True
    assert "empty_search" in root_attrs[names.SUMMARY_FAILURE_REASONS]  # type: ignore[operator]
    assert (tmp_path / "store.db").exists()


def test_configure_adds_to_an_existing_provider(tmp_path: Path) -> None:
    """An application's own SDK provider is kept; citetrace adds its processor and no second exporter."""
    script = textwrap.dedent(
        """
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        exporter = InMemorySpanExporter()
        app_provider = TracerProvider()
        app_provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(app_provider)
        """
    ) + AGENT + textwrap.dedent(
        """
        assert telemetry.tracer_provider is app_provider
        roots = [s for s in exporter.get_finished_spans() if s.name.startswith("invoke_agent")]
        assert roots[0].attributes["citetrace.summary.searches"] == 1, dict(roots[0].attributes)
        print("SPANS", len(exporter.get_finished_spans()))
        """
    )
    out = _run(script, tmp_path, OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9", CITETRACE_STORE="memory://")
    assert out.returncode == 0, out.stderr
    assert "SPANS 3" in out.stdout


def test_sdk_disabled_sets_nothing_up(tmp_path: Path) -> None:
    """OTEL_SDK_DISABLED=true: no provider, no spans, no store file; the agent still runs."""
    out = _run(AGENT, tmp_path, OTEL_SDK_DISABLED="true")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-1] == "False"
    assert not (tmp_path / ".citetrace").exists()


def test_bad_exporter_value_warns_and_falls_back(otlp_receiver: tuple[str, OtlpReceiver], tmp_path: Path) -> None:
    """An unknown OTEL_TRACES_EXPORTER warns, naming it, and falls back to otlp."""
    endpoint, receiver = otlp_receiver
    out = _run(AGENT, tmp_path, OTEL_TRACES_EXPORTER="zipkin-ish", OTEL_EXPORTER_OTLP_ENDPOINT=endpoint,
               CITETRACE_STORE="memory://")
    assert out.returncode == 0, out.stderr
    assert "OTEL_TRACES_EXPORTER" in out.stderr and "zipkin-ish" in out.stderr
    assert len(_spans(receiver)) == 3


def test_bad_configure_arguments_raise() -> None:
    """Programmer errors in configure() raise, naming the argument."""
    import citetrace

    with pytest.raises(TypeError, match="store"):
        citetrace.configure(store=42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="metrics"):
        citetrace.configure(metrics="sometimes")


def test_works_without_configure_and_opens_store_lazily(tmp_path: Path) -> None:
    """Without configure(), decorators use the global provider and the store opens from CITETRACE_STORE on first write."""
    script = textwrap.dedent(
        """
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        import os
        from citetrace import research_run, traced_tool, open_store

        @traced_tool(kind="fetch")
        def fetch(url):
            return "text " * 100

        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)          # set AFTER the decorator was applied
        assert not os.path.exists("lazy.db")
        with research_run("q", agent="lazy") as run:
            fetch("https://a.example/1")
        print(len(exporter.get_finished_spans()), len(open_store().documents(run.id)))
        """
    )
    out = _run(script, tmp_path, CITETRACE_STORE="sqlite:///lazy.db")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2", "1"]
    assert (tmp_path / "lazy.db").exists()


def test_collector_sampling_exports_every_span(otlp_receiver: tuple[str, OtlpReceiver], tmp_path: Path) -> None:
    """By default (and in the fleet setup, CITETRACE_METRICS=off) a healthy run's every span is exported, the
    decision on its root; CITETRACE_SAMPLING=embedded opts in to exporting only its root."""
    endpoint, receiver = otlp_receiver
    healthy = AGENT.replace("return []                      #", "return [{'url': 'https://a.example/1'}]  #")
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "CITETRACE_STORE": "memory://", "CITETRACE_SAMPLE_PERCENT": "0"}
    out = _run(healthy, tmp_path, CITETRACE_SAMPLING="embedded", **env)
    assert out.returncode == 0, out.stderr
    assert [n for n, _, _ in _spans(receiver)] == ["invoke_agent cfg-agent"]  # embedded: healthy run, root only
    receiver.requests.clear()
    out = _run(healthy, tmp_path, **env)
    assert out.returncode == 0, out.stderr
    assert len(_spans(receiver)) == 3
    receiver.requests.clear()
    out = _run(healthy, tmp_path, CITETRACE_METRICS="off", **env)
    assert out.returncode == 0, out.stderr
    spans = {n: a for n, a, _ in _spans(receiver)}
    assert set(spans) == {"invoke_agent cfg-agent", "execute_tool search", "execute_tool fetch"}
    assert spans["invoke_agent cfg-agent"][names.SUMMARY_KEEP] is False
    receiver.requests.clear()
    out = _run(healthy, tmp_path, CITETRACE_SAMPLING="collector", **env)
    assert out.returncode == 0, out.stderr
    assert len(_spans(receiver)) == 3


def test_configure_creates_no_store_until_first_write(tmp_path: Path) -> None:
    """configure() opens the store lazily: a process that never fetches leaves no store behind."""
    script = "import citetrace; citetrace.configure(); print('ok')"
    out = _run(script, tmp_path, OTEL_TRACES_EXPORTER="none")
    assert out.returncode == 0, out.stderr
    assert not (tmp_path / ".citetrace").exists()


READ_ONLY_AGENT = textwrap.dedent(
    """
    import sys
    import citetrace
    from citetrace import research_run, traced_tool

    telemetry = citetrace.configure(**({"store": sys.argv[1]} if len(sys.argv) > 1 else {}))

    @traced_tool(kind="fetch")
    def fetch(url):
        return "text " * 100

    with research_run("q", agent="ro-agent") as run:
        out = fetch("https://a.example/1")
    print(out == "text " * 100, telemetry.registry.get_sample_value("citetrace_store_write_errors_total"))
    """
)


@pytest.mark.parametrize("how", ["argument", "env"])
@pytest.mark.parametrize("where", ["/proc/citetrace-test/store.db", "FILE/store.db"])
def test_store_on_an_unwritable_path_counts_and_carries_on(tmp_path: Path, how: str, where: str) -> None:
    """configure(store="sqlite:///...") on a path that cannot be written (a read-only filesystem, a file where a
    folder should be) counts the failed writes and carries on, exactly like CITETRACE_STORE does."""
    (tmp_path / "FILE").write_text("not a folder")
    uri = "sqlite:///" + (where if where.startswith("/") else str(tmp_path / where))
    args = [uri] if how == "argument" else []
    env = {"OTEL_TRACES_EXPORTER": "none", **({"CITETRACE_STORE": uri} if how == "env" else {})}
    out = subprocess.run([sys.executable, "-c", READ_ONLY_AGENT, *args], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120, env={**_clean_env(), **env})
    assert out.returncode == 0, out.stderr
    returned, errors = out.stdout.split()
    assert returned == "True"
    assert float(errors) >= 2  # the run's start, the fetch, the run's calls: each counted, none raised
    assert "store_write failed" in out.stderr and "Traceback" not in out.stderr


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "CITETRACE_"))}


def test_bad_store_uri_is_named_at_configure(tmp_path: Path) -> None:
    """CITETRACE_STORE=ftp://x warns once at configure(), naming the variable and the problem, and the runs go to
    the default store instead of nowhere; the same URI as an argument raises."""
    out = _run(AGENT, tmp_path, CITETRACE_STORE="ftp://x", OTEL_TRACES_EXPORTER="none")
    assert out.returncode == 0, out.stderr
    warning = [line for line in out.stderr.splitlines() if "CITETRACE_STORE" in line]
    assert len(warning) == 1 and "'ftp://x'" in warning[0] and "unsupported store URI" in warning[0]
    run_id = out.stdout.split()[1]
    from citetrace.store import SQLiteStore

    assert SQLiteStore(tmp_path / ".citetrace" / "store.db", read_only=True).get_run(run_id) is not None
    import citetrace

    with pytest.raises(ValueError, match="unsupported store URI 'ftp://x'"):
        citetrace.configure(store="ftp://x")


QUEUE_FULL = textwrap.dedent(
    """
    import threading

    import citetrace
    from citetrace import research_run, traced_tool
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    class Stalled(InMemorySpanExporter):
        '''An exporter that hangs on its first batch until released (a collector that stopped answering).'''
        entered, release = threading.Event(), threading.Event()

        def export(self, spans):
            self.entered.set()
            self.release.wait(10)
            return super().export(spans)

    exporter = Stalled()
    telemetry = citetrace.configure(exporter=exporter, set_global=False, store="memory://", metrics="embedded")

    @traced_tool(kind="search")
    def search(query):
        return [{"url": "https://a.example/1"}]

    with research_run("q", agent="scout"):
        search("solar")
    assert exporter.entered.wait(10)        # the export thread holds one span, the queue (2) holds the next
    with research_run("q", agent="scout"):
        for _ in range(9):
            search("solar")                 # ten more spans (9 tools, the root): one fits, nine are dropped
    dropped = telemetry.registry.get_sample_value("citetrace_spans_dropped_total", {"reason": "buffer"})
    exporter.release.set()
    telemetry.force_flush()
    print("DROPPED", int(dropped), "EXPORTED", len(exporter.get_finished_spans()))
    """
)


def test_default_export_queue_drops_are_counted(tmp_path: Path) -> None:
    """By default (every span exported through the SDK's BatchSpanProcessor), what a full queue drops
    (OTEL_BSP_MAX_QUEUE_SIZE) is counted as citetrace_spans_dropped_total{reason="buffer"}: exported plus
    dropped is every span."""
    out = _run(QUEUE_FULL, tmp_path, OTEL_BSP_MAX_QUEUE_SIZE="2", OTEL_BSP_MAX_EXPORT_BATCH_SIZE="1",
               CITETRACE_SAMPLE_PERCENT="0")
    assert out.returncode == 0, out.stderr
    dropped, exported = (int(x) for x in out.stdout.split()[1::2])
    assert (dropped, exported) == (9, 3)  # 12 spans in all
