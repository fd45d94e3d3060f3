"""The commands read a PostgreSQL run store: `runs`, `show`, `eval`, `gate`, `view`, `ledger show` and `ui`, through the
real entry point, against the real server of tests/_pgserver.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from citetrace import research_run, traced_tool
from citetrace.ledger import Ledger
from citetrace.store import RunRecord, open_store
from citetrace.testing import capture_spans


def _citetrace(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "citetrace", *args], capture_output=True, text=True, timeout=60)


@traced_tool(kind="search")
def _search(query: str) -> list[dict[str, str]]:
    return [{"url": "https://a.example/1"}]


@traced_tool(kind="fetch")
def _fetch(url: str) -> str:
    return "a page about solar " * 30


def _one_read_run(pg_uri: str, answer: str) -> Any:
    """A run in the PostgreSQL store that read https://a.example/1 and answered ``answer``."""
    store = open_store(pg_uri)
    with capture_spans(store=store):
        with research_run("How big is solar?", agent="scout") as run:
            _fetch("https://a.example/1")
            run.record_answer(answer)
    store.close()
    return run


def test_cli_runs_and_show_read_it(pg_uri: str) -> None:
    """`citetrace runs` and `citetrace show` read runs from PostgreSQL, by id prefix too."""
    store = open_store(pg_uri)
    with capture_spans(store=store):
        with research_run("How big is solar?", agent="scout") as first:
            _search("solar size")
            _fetch("https://a.example/1")
            first.record_answer("Big [1].\n\n[1] https://a.example/1")
        with research_run("Second question", agent="scout") as second:
            _search("wind")
    store.close()
    out = _citetrace("runs", "--store", pg_uri, "--json")
    assert out.returncode == 0, out.stderr
    assert [r["run_id"] for r in json.loads(out.stdout)] == [second.id, first.id]
    out = _citetrace("show", first.id[:-2], "--store", pg_uri, "--json")
    assert out.returncode == 0, out.stderr
    shown = json.loads(out.stdout)
    assert shown["run_id"] == first.id and [c["status"] for c in shown["calls"]] == ["ok", "ok"]
    text = _citetrace("show", first.id, "--store", pg_uri).stdout
    assert "stored documents (1)" in text and "Big [1]." in text


def test_cli_eval_gate_and_view_read_it(pg_uri: str, tmp_path: Path) -> None:
    """`eval`, `gate` and `view` read a run from PostgreSQL: the citation meets its stored page."""
    run = _one_read_run(pg_uri, "Solar is a page about solar [1].\n\n[1] https://a.example/1")
    out = _citetrace("eval", run.id, "--store", pg_uri, "--offline", "--json")
    assert out.returncode == 0, out.stderr
    assert "https://a.example/1" in out.stdout
    gate = _citetrace("gate", run.id, "--store", pg_uri, "--offline")  # the run fetched a URL no search returned
    assert gate.returncode == 1 and "returned by no search in run " + run.id in gate.stdout, gate.stderr
    gate = _citetrace("gate", run.id, "--store", pg_uri, "--offline", "--allow-uncited")
    assert gate.returncode == 0, gate.stdout + gate.stderr
    page = tmp_path / "run.html"
    out = _citetrace("view", run.id, "--store", pg_uri, "-o", str(page))
    assert out.returncode == 0, out.stderr
    assert "https://a.example/1" in page.read_text()


def test_ledger_reopened_from_a_fresh_connection_and_the_cli(pg_uri: str) -> None:
    """A ledger written through one store is whole when re-opened through another, and `citetrace ledger
    show` reads it."""
    run_id = "20261201-120000-pg000001"
    first = open_store(pg_uri)
    first.put_run(RunRecord(run_id, "0" * 32, "tester", "Which tiers include SSO?", 1000.0))
    first.put_document(run_id, "https://acme.example/sso", "SSO is on the Business tier.", status="ok")
    ledger = Ledger(run_id, store=first)
    q = ledger.add_question("Which tiers include SSO?")
    cid = ledger.add_claim("SSO is on the Business tier.", question=q)
    first.close()
    second = open_store(pg_uri)
    again = Ledger.open(run_id[:14], store=second)
    assert again.question(q).text == "Which tiers include SSO?" and [c.id for c in again.claims()] == [cid]
    assert again.audit().ok
    second.close()
    out = _citetrace("ledger", "show", run_id, "--store", pg_uri, "--json")
    assert out.returncode == 0, out.stderr
    assert "SSO is on the Business tier." in out.stdout


def test_the_run_browser_reads_it(pg_uri: str) -> None:
    """`citetrace ui` (the compose files' run-browser service) lists and opens runs of a PostgreSQL store."""
    import re
    import signal
    import urllib.request

    run = _one_read_run(pg_uri, "Big [1].\n\n[1] https://a.example/1")
    proc = subprocess.Popen([sys.executable, "-m", "citetrace", "ui", "--store", pg_uri, "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert found, line
        with urllib.request.urlopen(found.group(0), timeout=10) as listing:
            assert run.id in listing.read().decode()
        with urllib.request.urlopen(f"{found.group(0)}runs/{run.trace_id}", timeout=10) as page:
            assert page.status == 200 and "https://a.example/1" in page.read().decode()
    finally:
        # Ctrl-C, as a person stops it (tests/view/test_ui_stop.py has every stop signal, the ones in flight,
        # and the SIGINT a background start ignores, which is what hung this test in some full runs)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0 and out.endswith("citetrace ui: stopped (SIGINT)\n"), out
