"""Exit with telemetry down: an OTLP endpoint on 127.0.0.1 that accepts connections and never answers.

Exit must take at most the OTLP timeout plus a small margin, and every run's summary must still reach the
store, because store writes never wait on the exporter.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest

from citetrace._exitbound import EXIT_MARGIN_S, exit_bound_seconds, otlp_timeout_seconds
from citetrace.store import SQLiteStore

RUNS = 1500
OTLP_TIMEOUT_S = 2.0

AGENT = textwrap.dedent(
    """
    import sys, time
    import citetrace
    from citetrace import research_run, traced_tool

    citetrace.configure()

    @traced_tool(kind="search")
    def search(query):
        return []          # an empty search: every run fails, so every trace is kept and exported

    for i in range(int(sys.argv[1])):
        with research_run("q", agent="blackholed") as run:
            search("nothing %d" % i)
    print("done", time.monotonic(), flush=True)
    """
)


@pytest.fixture
def blackhole() -> Iterator[str]:
    """An endpoint that accepts every connection and never reads or answers; closed at teardown."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    server.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            held.append(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        server.close()


@pytest.mark.parametrize("sampling", ["embedded", "collector"])
def test_exit_with_a_blackholed_endpoint_is_bounded_and_keeps_every_summary(
    blackhole: str, tmp_path: Path, sampling: str
) -> None:
    """Exit takes at most the OTLP timeout plus the margin (plus interpreter teardown), and all summaries are
    stored although no export ever completes."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "CITETRACE_"))}
    env.update(OTEL_EXPORTER_OTLP_ENDPOINT=blackhole, OTEL_EXPORTER_OTLP_TIMEOUT=str(OTLP_TIMEOUT_S),
               CITETRACE_SAMPLING=sampling, CITETRACE_STORE="sqlite:///store.db")
    proc = subprocess.Popen([sys.executable, "-c", AGENT, str(RUNS)], cwd=tmp_path, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("done"), proc.stderr.read() if proc.stderr else ""
        done = time.monotonic()
        proc.wait(90)
        exit_s = time.monotonic() - done
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode == 0
    # the bound, plus up to 3 s for a loaded 2-core machine to tear an interpreter down (before: 30 s or 60 s)
    assert exit_s < OTLP_TIMEOUT_S + EXIT_MARGIN_S + 3.0, exit_s
    store = SQLiteStore(tmp_path / "store.db", read_only=True)
    runs = store.runs(limit=RUNS + 10)
    assert len(runs) == RUNS
    assert sum(1 for r in runs if r.summary is not None) == RUNS


def test_exit_bound_follows_the_sdk_timeout_variables() -> None:
    """The bound reads the traces-specific timeout first, then the general one, then the SDK's 10 s default."""
    assert otlp_timeout_seconds({}) == 10.0
    assert otlp_timeout_seconds({"OTEL_EXPORTER_OTLP_TIMEOUT": "3"}) == 3.0
    assert otlp_timeout_seconds({"OTEL_EXPORTER_OTLP_TIMEOUT": "3", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "1.5"}) == 1.5
    assert otlp_timeout_seconds({"OTEL_EXPORTER_OTLP_TIMEOUT": "soon"}) == 10.0
    assert exit_bound_seconds({"OTEL_EXPORTER_OTLP_TIMEOUT": "3"}) == 3.0 + EXIT_MARGIN_S
