"""`citetrace runs` and `citetrace show` read runs back from a real SQLite store, through the real entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from citetrace import research_run, traced_tool
from citetrace.store import SQLiteStore
from citetrace.testing import capture_spans


@traced_tool(kind="search")
def search(query: str) -> list[dict[str, str]]:
    return [{"url": "https://a.example/1"}, {"url": "https://a.example/2"}]


@traced_tool(kind="fetch")
def fetch(url: str) -> str:
    if url.endswith("/2"):
        raise TimeoutError("slow site")
    return "a page about solar " * 30


def _citetrace(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "citetrace", *args], capture_output=True, text=True, timeout=60)


def _make_runs(tmp_path: Path) -> tuple[str, str, str]:
    store = SQLiteStore(tmp_path / "store.db")
    with capture_spans(store=store):
        with research_run("How big is solar?", agent="scout") as first:
            search("solar size")
            fetch("https://a.example/1")
            try:
                fetch("https://a.example/2")
            except TimeoutError:
                pass
            first.record_answer("Big [1].\n\n[1] https://a.example/1")
        with research_run("Second question", agent="scout") as second:
            search("wind")
    store.put_summary(first.id, {"searches": 1, "reads": 2, "citations": 1, "total_ms": 1500.0,
                                 "failure_reasons": ["failed_reads"]}, trace_id=first.trace_id)
    return f"sqlite:///{tmp_path}/store.db", first.id, second.id


def test_runs_lists_newest_first_with_figures(tmp_path: Path) -> None:
    """`citetrace runs` lists runs newest first, with summary figures where known."""
    uri, first, second = _make_runs(tmp_path)
    out = _citetrace("runs", "--store", uri)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split()[:3] == ["RUN", "STARTED", "AGENT"]
    assert lines[1].startswith(second) and lines[2].startswith(first)
    assert "FAILED failed_reads" in lines[2] and "1.50s" in lines[2]
    data = json.loads(_citetrace("runs", "--store", uri, "--json").stdout)
    assert [r["run_id"] for r in data] == [second, first]


def test_show_prints_calls_documents_and_answer(tmp_path: Path) -> None:
    """`citetrace show` prints tool calls in order with status, stored documents and the answer."""
    uri, first, _ = _make_runs(tmp_path)
    out = _citetrace("show", first, "--store", uri)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "question How big is solar?" in text
    calls = [line for line in text.splitlines() if "|" in line]
    assert len(calls) == 3
    assert "search" in calls[0] and "ok" in calls[0] and "2 results" in calls[0]
    assert "ERROR" in calls[2] and "TimeoutError" in calls[2] and "https://a.example/2" in calls[2]
    assert "stored documents (2)" in text
    assert "Big [1]." in text
    data = json.loads(_citetrace("show", first, "--store", uri, "--json").stdout)
    assert [c["status"] for c in data["calls"]] == ["ok", "ok", "error"]


def test_show_keeps_its_columns_with_long_tool_names(tmp_path: Path) -> None:
    """A tool name longer than the column (an auto-instrumented `smolagents.visit_webpage`) widens it for every
    row, so statuses and URLs stay aligned; one result is "1 result"."""
    store = SQLiteStore(tmp_path / "store.db")
    with capture_spans(store=store):
        with research_run("q", agent="scout") as run:
            traced_tool(kind="search", name="s")(lambda q: [{"url": "https://a.example/1"}])("x")
            traced_tool(kind="fetch", name="smolagents.visit_webpage")(lambda u: "text " * 60)("https://a.example/1")
    out = _citetrace("show", run.id, "--store", f"sqlite:///{tmp_path}/store.db")
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if "|" in line]
    assert len(rows) == 2 and len({row.index(" ok ") for row in rows}) == 1, rows
    assert rows[0].endswith("1 result")


def test_bad_input_is_one_clear_line(tmp_path: Path) -> None:
    """An unknown run or a bad store URI exits 2 with one line naming the problem."""
    uri, _, _ = _make_runs(tmp_path)
    out = _citetrace("show", "no-such-run", "--store", uri)
    assert out.returncode == 2
    assert "no run 'no-such-run'" in out.stderr and "Traceback" not in out.stderr
    out = _citetrace("runs", "--store", "mysql://x")
    assert out.returncode == 2 and "unsupported store URI" in out.stderr


def test_show_and_eval_name_an_ambiguous_prefix(tmp_path: Path) -> None:
    """`show` and `eval` with a prefix two runs share: a one-line error saying how many match, no traceback;
    the trace id finds the run."""
    store = SQLiteStore(tmp_path / "store.db")
    with capture_spans(store=store):
        with research_run("q1", agent="scout") as first:
            search("a")
        with research_run("q2", agent="scout") as second:
            search("b")
    store.close()
    prefix = next(first.id[:n] for n in range(len(first.id)) if not second.id.startswith(first.id[:n + 1]))
    uri = f"sqlite:///{tmp_path / 'store.db'}"
    for command in ("show", "eval"):
        out = _citetrace(command, prefix, "--store", uri)
        assert out.returncode != 0 and "matches 2 runs" in out.stderr and "Traceback" not in out.stderr
    out = _citetrace("show", first.trace_id, "--store", uri, "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["run_id"] == first.id
