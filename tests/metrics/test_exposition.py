"""citetrace.start_metrics_server() without a registry serves what configure() set up (in a subprocess,
because a process can set the global TracerProvider only once)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

AGENT = textwrap.dedent(
    """
    import urllib.request
    import citetrace
    from citetrace import research_run, traced_tool

    telemetry = citetrace.configure(store="memory://", metrics="embedded")

    @traced_tool(kind="search")
    def search(query):
        return []

    with research_run("q", agent="expo-agent"):
        search("nothing")
    server = citetrace.start_metrics_server(0)
    with urllib.request.urlopen(f"http://127.0.0.1:{server.server_port}/metrics", timeout=5) as resp:
        text = resp.read().decode()
    server.shutdown(); server.server_close(); telemetry.shutdown()
    print([l for l in text.splitlines() if l.startswith("citetrace_runs_total{")])
    """
)

NO_CONFIGURE = textwrap.dedent(
    """
    import citetrace
    try:
        citetrace.start_metrics_server(0)
    except RuntimeError as exc:
        print("ERROR", exc)
    """
)


def _run(code: str) -> str:
    env = {"OTEL_TRACES_EXPORTER": "none", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_public_server_serves_the_configured_registry() -> None:
    """After configure(), start_metrics_server(0) serves the run's metrics on 127.0.0.1."""
    out = _run(AGENT)
    assert 'citetrace_runs_total{agent="expo-agent",outcome="failed"} 1.0' in out


def test_without_configure_the_error_names_the_fix() -> None:
    """Without configure() and without registry=, the error says what to do instead of serving nothing."""
    out = _run(NO_CONFIGURE)
    assert out.startswith("ERROR") and "configure()" in out and "registry=" in out
