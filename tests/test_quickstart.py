"""The README's Quick start, copied out of README.md into a file and run as pasted against a search API and a
site on 127.0.0.1; and the embedded default's quiet exit when nothing listens on the OTLP port."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
from instrumentation._net import LocalServer

from citetrace.store import SQLiteStore

README = Path(__file__).resolve().parents[1] / "README.md"

# Run before the pasted code: point the default OTLP port (4318) at one where nothing listens, so the test
# does not depend on what runs on this machine. Everything else is the default configuration.
_PRELUDE = """import sys
import citetrace._exporters
citetrace._exporters._DEFAULT_PORT["otlp_proto_http"] = int(sys.argv[1])
"""


def quick_start() -> str:
    """The first python block under the README's "Quick start" heading."""
    text = README.read_text()
    section = text[text.index("## Quick start"):]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "no python block in the Quick start"
    return match.group(1)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # nothing listens there once closed


@pytest.fixture
def site() -> Iterator[LocalServer]:
    """A search API answering one result that points at a page of the same server."""
    server = LocalServer()
    results = {"results": [{"url": f"{server.base}/solar", "title": "Solar in 2024"}]}
    server.routes["/search"] = (200, json.dumps(results), "application/json")
    page = "<html><body><h1>Solar in 2024</h1>" + "<p>Solar capacity grew 24 % in 2024, the fastest of any source.</p>" * 8
    server.routes["/solar"] = (200, page + "</body></html>", "text/html")
    yield server
    server.close()


def _run(tmp_path: Path, site: LocalServer) -> tuple[subprocess.CompletedProcess[str], SQLiteStore]:
    script = tmp_path / "quickstart.py"
    script.write_text(_PRELUDE + quick_start())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "CITETRACE_"))}
    env.update(SEARCH_URL=f"{site.base}/search", CITETRACE_STORE=f"sqlite:///{tmp_path / 'store.db'}")
    env.pop("PYTHONWARNINGS", None)
    out = subprocess.run([sys.executable, str(script), str(_free_port())], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    return out, SQLiteStore(tmp_path / "store.db")


def test_quick_start_runs_as_pasted_and_quietly(tmp_path: Path, site: LocalServer) -> None:
    """The pasted block runs: one search and one read, both ok, the answer and its citation recorded; with
    nothing on the OTLP port the only output on stderr is one warning line, no retry traceback."""
    out, store = _run(tmp_path, site)
    assert out.returncode == 0, out.stderr
    run_id, trace_id = out.stdout.split()
    assert re.fullmatch(r"[0-9a-f]{32}", trace_id)
    calls = store.calls(run_id)
    assert [(c.kind, c.status) for c in calls] == [("search", "ok"), ("fetch", "ok")]
    assert calls[1].url == f"{site.base}/solar"
    run = store.get_run(run_id)
    assert run is not None and f"{site.base}/solar" in (run.answer or "")
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "nothing listens" in lines[0], out.stderr
    assert "Traceback" not in out.stderr
    store.close()


def test_quick_start_keeps_a_404_visible(tmp_path: Path, site: LocalServer) -> None:
    """When the cited page is gone, read_page's raise_for_status makes the read an error span with its 404,
    and the script stops with the HTTPError instead of citing an error page."""
    site.routes["/solar"] = (404, "<html>Not found</html>", "text/html")
    out, store = _run(tmp_path, site)
    assert out.returncode == 1 and "requests.exceptions.HTTPError: 404" in out.stderr
    (run,) = store.runs()
    fetch = store.calls(run.run_id)[-1]
    assert (fetch.kind, fetch.status, fetch.http_status) == ("fetch", "error", 404)
    store.close()
