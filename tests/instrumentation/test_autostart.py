"""End to end: an agent that imports nothing of citetrace gets spans, store writes and a summary from
environment variables alone (the .pth start-up hook), and from ``opentelemetry-instrument``."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

from citetrace import names
from citetrace.instrumentation._autostart import PTH_LINE
from citetrace.store import open_store

from ._net import LocalServer, OtlpReceiver

PAGE = "<html><body><article><p>" + "Readable text about OpenTelemetry. " * 20 + "</p></article></body></html>"

AGENT = """
import sys
import tavily
import trafilatura
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from trafilatura.settings import use_config

# the application's own provider, set after start-up (the Phoenix/Langfuse pattern): citetrace joins it
provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)

base = sys.argv[1]
cfg = use_config()
cfg.set("DEFAULT", "SSRF_PROTECTION", "False")  # the pages live on 127.0.0.1 in this test
cfg.set("DEFAULT", "MAX_REDIRECTS", "0")
root = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "e2e-agent"}
with trace.get_tracer("my-agent").start_as_current_span("invoke_agent e2e-agent", attributes=root):
    client = tavily.TavilyClient(api_key="k", api_base_url=base)
    found = client.search("what is opentelemetry")
    for result in found["results"]:
        trafilatura.fetch_url(result["url"], config=cfg)
    tavily.TavilyClient(api_key="k", api_base_url=base + "/empty").search("nothing matches this")
provider.force_flush()
print("agent done", "citetrace" in sys.modules, flush=True)
sys.stdin.readline()  # a long-running agent: the test reads its metrics, then lets it exit
"""

PLAIN_AGENT = """
import sys
import tavily
tavily.TavilyClient(api_key="k", api_base_url=sys.argv[1]).search("plain")
print("plain done")
"""


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    """A tiny OTLP/HTTP receiver on 127.0.0.1."""
    srv = OtlpReceiver()
    try:
        yield srv
    finally:
        srv.close()


@pytest.fixture
def web(server: LocalServer) -> LocalServer:
    """A fake Tavily API and two pages on the same local server."""
    results = [{"url": f"{server.base}/page/{i}", "title": f"P{i}", "content": "c"} for i in range(2)]
    server.routes["/search"] = (200, json.dumps({"query": "q", "results": results}), "application/json")
    server.routes["/page/"] = (200, PAGE, "text/html")
    server.routes["/empty/search"] = (200, json.dumps({"query": "q", "results": []}), "application/json")
    return server


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITETRACE_", "OTEL_"))}
    env.update(extra)
    return env


def _run(argv: list[str], tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)


def test_pth_file_is_installed_and_matches(tmp_path: Path) -> None:
    """The start-up hook is installed in site-packages with exactly the line the code documents."""
    pth = Path(sysconfig.get_paths()["purelib"]) / "citetrace_autoinstrument.pth"
    assert pth.read_text().strip() == PTH_LINE
    source = Path(__file__).parents[2] / "src/citetrace/instrumentation/citetrace_autoinstrument.pth"
    assert source.read_text().strip() == PTH_LINE


def test_unset_variable_loads_nothing(tmp_path: Path) -> None:
    """Without CITETRACE_AUTO_INSTRUMENT (or with it false) no citetrace or OpenTelemetry module is imported
    and nothing is printed."""
    code = "import sys; print(sorted(m for m in sys.modules if m.startswith(('citetrace', 'opentelemetry'))))"
    for extra in ({}, {"CITETRACE_AUTO_INSTRUMENT": "false"}):
        proc = _run([sys.executable, "-c", code], tmp_path, _env(**extra))
        assert proc.returncode == 0
        assert (proc.stdout.strip(), proc.stderr) == ("[]", "")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run_agent(tmp_path: Path, receiver: OtlpReceiver, web: LocalServer) -> tuple[list[dict[str, Any]], Path, str]:
    """Run AGENT with nothing but environment variables set; scrape its metrics endpoint while it still runs,
    then let it exit. Return the spans received, the store path and the metrics text."""
    (tmp_path / "agent.py").write_text(AGENT)
    store_path = tmp_path / "store.db"
    port = _free_port()
    env = _env(CITETRACE_AUTO_INSTRUMENT="true", OTEL_EXPORTER_OTLP_ENDPOINT=receiver.base,
               OTEL_SERVICE_NAME="e2e-service", CITETRACE_STORE=f"sqlite:///{store_path}",
               CITETRACE_METRICS_PORT=str(port), CITETRACE_SAMPLE_PERCENT="100")
    proc = subprocess.Popen([sys.executable, "agent.py", web.base], cwd=tmp_path, env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdin is not None
        line = proc.stdout.readline()
        metrics = ""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and names.METRIC_RUNS_TOTAL not in metrics:
            time.sleep(0.1)  # the summary is recorded by the processor's worker, shortly after the root ends
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
                metrics = resp.read().decode()
        out, err = proc.communicate("\n", timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert line.strip() == "agent done True"
    return receiver.spans(), store_path, metrics


def test_env_only_agent_gets_spans_and_store(tmp_path: Path, receiver: OtlpReceiver, web: LocalServer) -> None:
    """CITETRACE_AUTO_INSTRUMENT=true + OTEL_* + CITETRACE_STORE: the unmodified agent's library calls are
    exported over OTLP/HTTP as tool spans under its root, and the fetched pages are in the store."""
    spans, store_path, _ = _run_agent(tmp_path, receiver, web)
    (root,) = [s for s in spans if s["name"] == "invoke_agent e2e-agent"]
    tools = [s for s in spans if s["attrs"].get(names.GEN_AI_OPERATION_NAME) == names.OP_EXECUTE_TOOL]
    assert sorted(s["name"] for s in tools) == ["execute_tool tavily.search"] * 2 + [
        "execute_tool trafilatura.fetch_url"] * 2
    assert all(s["trace_id"] == root["trace_id"] and s["parent"] == root["span_id"] for s in tools)
    assert root["resource"]["service.name"] == "e2e-service"
    statuses = sorted(s["attrs"][names.TOOL_STATUS] for s in tools)
    assert statuses == [names.STATUS_EMPTY, names.STATUS_OK, names.STATUS_OK, names.STATUS_OK]
    store = open_store(f"sqlite:///{store_path}")
    try:
        for span in tools:
            if span["attrs"][names.TOOL_KIND] == names.TOOL_KIND_FETCH:
                assert store.get_ref(span["attrs"][names.STORE_REF]) == PAGE
        docs = store.documents(root["trace_id"])
        assert sorted(d.url for d in docs) == [f"{web.base}/page/0", f"{web.base}/page/1"]
    finally:
        store.close()


def test_env_only_agent_run_is_summarized(tmp_path: Path, receiver: OtlpReceiver, web: LocalServer) -> None:
    """The agent's run (its own invoke_agent root) is summarized: the metrics it serves count one run with
    two searches, two reads and the empty search as a failure reason."""
    _, _, metrics = _run_agent(tmp_path, receiver, web)
    samples = _samples(metrics)
    agent = 'agent="e2e-agent"'
    assert samples[f'{names.METRIC_RUNS_TOTAL}{{{agent},outcome="failed"}}'] == 1
    assert samples[f"{names.METRIC_RUN_SEARCHES}_sum{{{agent}}}"] == 2
    assert samples[f"{names.METRIC_RUN_READS}_sum{{{agent}}}"] == 2
    assert samples[f'{names.METRIC_RUN_FAILURES_TOTAL}{{{agent},reason="{names.REASON_EMPTY_SEARCH}"}}'] == 1


def _samples(text: str) -> dict[str, float]:
    """Prometheus text exposition -> {'name{labels}': value} (label order as exposed)."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            out[key] = float(value)
    return out


def test_opentelemetry_instrument_picks_it_up_and_can_disable_it(tmp_path: Path, receiver: OtlpReceiver,
                                                                   web: LocalServer) -> None:
    """`opentelemetry-instrument python agent.py` loads the citetrace entry point (tool spans appear);
    OTEL_PYTHON_DISABLED_INSTRUMENTATIONS=citetrace switches it off."""
    (tmp_path / "agent.py").write_text(PLAIN_AGENT)
    tool = str(Path(sys.executable).parent / "opentelemetry-instrument")
    base = _env(OTEL_EXPORTER_OTLP_ENDPOINT=receiver.base, OTEL_TRACES_EXPORTER="otlp", OTEL_METRICS_EXPORTER="none",
                OTEL_LOGS_EXPORTER="none", CITETRACE_STORE=f"sqlite:///{tmp_path / 'store.db'}",
                CITETRACE_METRICS="off", CITETRACE_SAMPLE_PERCENT="100",
                PYTHONSTARTUP="")
    proc = _run([tool, sys.executable, "agent.py", web.base], tmp_path, base)
    assert proc.returncode == 0, proc.stderr
    names_seen = [s["name"] for s in receiver.spans()]
    assert names_seen.count("execute_tool tavily.search") == 1
    receiver.requests.clear()
    proc = _run([tool, sys.executable, "agent.py", web.base], tmp_path,
                {**base, "OTEL_PYTHON_DISABLED_INSTRUMENTATIONS": "citetrace"})
    assert proc.returncode == 0, proc.stderr
    assert "execute_tool tavily.search" not in [s["name"] for s in receiver.spans()]


def test_hook_respects_disabled_instrumentations_and_bad_values(tmp_path: Path) -> None:
    """CITETRACE_AUTO_INSTRUMENT=true with OTEL_PYTHON_DISABLED_INSTRUMENTATIONS=citetrace instruments nothing;
    an unparsable value warns once and counts as off."""
    code = ("from citetrace.instrumentation import CiteTraceInstrumentor; "
            "print(CiteTraceInstrumentor().is_instrumented_by_opentelemetry)")
    env = _env(CITETRACE_AUTO_INSTRUMENT="true", OTEL_PYTHON_DISABLED_INSTRUMENTATIONS="flask, citetrace",
               OTEL_TRACES_EXPORTER="none", CITETRACE_STORE="memory://", CITETRACE_METRICS="off")
    proc = _run([sys.executable, "-c", code], tmp_path, env)
    assert (proc.returncode, proc.stdout.strip()) == (0, "False"), proc.stderr
    proc = _run([sys.executable, "-c", code], tmp_path, {**env, "OTEL_PYTHON_DISABLED_INSTRUMENTATIONS": "",
                                                         "CITETRACE_AUTO_INSTRUMENT": "maybe"})
    assert (proc.returncode, proc.stdout.strip()) == (0, "False"), proc.stderr
    assert proc.stderr.count("CITETRACE_AUTO_INSTRUMENT") == 1


def test_startup_failure_never_stops_the_agent(tmp_path: Path, web: LocalServer) -> None:
    """A broken configuration (unwritable store) is logged once; the agent runs and exits normally."""
    (tmp_path / "agent.py").write_text(PLAIN_AGENT)
    env = _env(CITETRACE_AUTO_INSTRUMENT="true", OTEL_TRACES_EXPORTER="none",
               CITETRACE_STORE="sqlite:////proc/nope/store.db", CITETRACE_METRICS="off")
    proc = _run([sys.executable, "agent.py", web.base], tmp_path, env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "plain done"


QUICKSTART_AGENT = """
import citetrace
from citetrace import research_run, traced_tool

citetrace.configure()  # the quick start's line, in an agent also run with CITETRACE_AUTO_INSTRUMENT=true


@traced_tool(kind="fetch")
def read_page(url: str) -> str:
    return "A page with enough text to be a read. " * 10


with research_run(question="q", agent="both-ways") as run:
    read_page("https://example.org/a")
    run.record_answer("A claim [1].\\n\\n[1] https://example.org/a")
citetrace.configure()  # a second explicit call is still worth the warning
print(run.id, flush=True)
"""


def test_configure_after_the_hook_replaces_it_quietly(tmp_path: Path) -> None:
    """The quick start's ``configure()`` in an agent run with the start-up hook on takes over the hook's
    configuration without a warning (the user called it once), and the run is recorded; a second explicit
    ``configure()`` still warns. Before, every such agent printed "configure() called again; shutting down
    the previous configuration" at start."""
    (tmp_path / "agent.py").write_text(QUICKSTART_AGENT)
    store_path = tmp_path / "store.db"
    env = _env(CITETRACE_AUTO_INSTRUMENT="true", OTEL_TRACES_EXPORTER="none", CITETRACE_METRICS="off",
               CITETRACE_STORE=f"sqlite:///{store_path}")
    proc = _run([sys.executable, "agent.py"], tmp_path, env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("configure() called again") == 1, proc.stderr
    run = open_store(f"sqlite:///{store_path}").get_run(proc.stdout.strip())
    assert run is not None and run.agent == "both-ways" and run.summary is not None
    assert run.summary["reads"] == 1
