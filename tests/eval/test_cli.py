"""`citetrace eval | gate | baseline | judge-eval` end to end on a SQLite store, through citetrace.cli.main."""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Callable

import pytest

from citetrace import names
from citetrace.cli import main
from citetrace.store import SQLiteStore

from .conftest import make_run, reply

REPORT = ("# Jobs\n\nUnemployment rose to 4.2% in March 2024 [1]. Employers cut 4,500 jobs [2]. "
          "Prices are rising [3].\n\n[1] https://stats.example/unemployment\n[2] https://jobs.example/2024/march\n"
          "[3] https://never.example/read\n")


@pytest.fixture
def db(tmp_path: Path) -> str:
    store = SQLiteStore(tmp_path / "store.db")
    make_run(store, REPORT)  # type: ignore[arg-type]
    make_run(store, REPORT.replace("[3].", "[2]."), run_id="run-2")  # type: ignore[arg-type]
    store.close()
    return f"sqlite:///{tmp_path}/store.db"


def test_eval_prints_the_rates_table(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The table shows each rate with its numerator/denominator and one row per citation."""
    assert main(["eval", "run-1", "--store", db, "--offline"]) == 0
    out = capsys.readouterr().out
    assert "citation_coverage       100.0 %  3/3" in out
    assert "dead_or_unfetched_rate  33.3 %   1/3" in out
    assert "UNFETCHED" in out and "https://never.example/read" in out
    assert "offline: liveness not checked" in out


def test_eval_json_and_metrics_file(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints per-pair detail; --metrics-file writes the eval metrics in Prometheus text format."""
    metrics = tmp_path / "eval.prom"
    assert main(["eval", "run-1", "--store", db, "--offline", "--json", "--metrics-file", str(metrics)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rates"]["dead_or_unfetched_rate"]["numerator"] == 1
    assert [p["label"] for p in data["pairs"]] == ["SUPPORTED", "SUPPORTED", "UNFETCHED"]
    text = metrics.read_text()
    assert f'{names.METRIC_EVAL_RATE}{{agent="tester",rate="citation_coverage"}} 1.0' in text
    assert f"{names.METRIC_EVAL_RUNS_TOTAL}" in text


def test_report_file_overrides_the_recorded_answer(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--report evaluates the given file against the run's store instead of the recorded answer."""
    report = tmp_path / "r.md"
    report.write_text("Wages rose 3.1 percent [1].\n\n[1] https://stats.example/unemployment\n")
    assert main(["eval", "run-1", "--store", db, "--offline", "--json", "--report", str(report)]) == 0
    assert [p["claim"] for p in json.loads(capsys.readouterr().out)["pairs"]] == ["Wages rose 3.1 percent."]


@pytest.mark.parametrize("argv, message", [
    (["eval", "nope"], "no run 'nope'"),
    (["eval", "run-1", "--report", "/nonexistent/r.md"], "cannot read report '/nonexistent/r.md'"),
    (["eval", "run-1", "--judge", "llm"], "needs an endpoint"),
    (["gate", "run-1", "--baseline", "/nonexistent/b.json"], "cannot read baseline"),
    (["judge-eval", "/nonexistent/labels.jsonl"], "cannot read labels"),
    (["baseline", "run-1", "--out", "/tmp/x.json"], "at least 2 runs"),
])
def test_bad_input_is_one_line_and_status_2(db: str, argv: list[str], message: str,
                                            capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Bad input exits 2 with one line naming the problem, never a traceback."""
    monkeypatch.delenv(names.ENV_OPENAI_BASE_URL, raising=False)
    full = argv + (["--store", db] if argv[0] != "judge-eval" else [])
    assert main(full) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_binary_report_is_rejected(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A report file that is not UTF-8 text is named, with status 2."""
    bad = tmp_path / "r.bin"
    bad.write_bytes(b"\xff\xfe\x00binary")
    assert main(["eval", "run-1", "--store", db, "--report", str(bad)]) == 2
    assert "is not UTF-8 text" in capsys.readouterr().err


@pytest.mark.parametrize("content", [b"\x9b\xff binary", b"not json\n", b"[1, 2]\n"])
def test_a_bad_judge_eval_history_fails_before_the_evaluation(tmp_path: Path, content: bytes,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """``judge-eval --history FILE`` reads the history first: a damaged file is one line and status 2 before
    any pair is judged (nothing on stdout). Before, the whole labelled set was judged and printed, then the
    command failed on the file."""
    bad = tmp_path / "history.jsonl"
    bad.write_bytes(content)
    assert main(["judge-eval", "--judge", "deterministic", "--history", str(bad)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "judge-eval history" in err and len(err.strip().splitlines()) == 1
    assert bad.read_bytes() == content  # nothing appended to a file it could not read


def test_gate_exit_codes_and_baseline(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """gate fails (1) naming the unfetched URL; a baseline from two runs bands the rates; a clean run passes."""
    assert main(["gate", "run-1", "--store", db, "--offline"]) == 1
    assert "FAIL cited but never fetched in run run-1: https://never.example/read" in capsys.readouterr().out
    base = tmp_path / "base.json"
    assert main(["baseline", "run-2", "run-2", "--store", db, "--offline", "--out", str(base)]) == 0
    assert json.loads(base.read_text())["runs"] == ["run-2", "run-2"]
    capsys.readouterr()
    assert main(["gate", "run-2", "--store", db, "--offline", "--baseline", str(base)]) == 1
    assert "FAIL cited but returned by no search in run run-2" in capsys.readouterr().out  # the jobs page
    assert main(["gate", "run-2", "--store", db, "--offline", "--baseline", str(base), "--allow-uncited"]) == 0
    assert "gate passed for run run-2" in capsys.readouterr().out
    assert main(["gate", "run-2", "--store", db, "--offline", "--hard-rules", "unfetched_citation"]) == 0
    capsys.readouterr()
    assert main(["gate", "run-2", "--store", db, "--offline", "--hard-rules", "bogus"]) == 2
    assert "unknown gate rule 'bogus'" in capsys.readouterr().err


def test_baseline_runs_the_agent_command(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--runs N --command runs the agent N times and bands the N new runs it recorded."""
    script = tmp_path / "agent.py"
    script.write_text(
        "import time, uuid\n"
        "from citetrace.store import RunRecord, SQLiteStore\n"
        f"s = SQLiteStore({db[len('sqlite:///'):]!r})\n"
        "rid = uuid.uuid4().hex\n"
        "s.put_run(RunRecord(rid, 'ab' * 16, 'tester', None, time.time(),\n"
        "          answer='Unemployment rose to 4.2% in March 2024 [1].\\n\\n[1] https://stats.example/u\\n'))\n"
        "s.put_document(rid, 'https://stats.example/u', 'The unemployment rate rose to 4.2% in March 2024.', status='ok')\n"
    )
    base = tmp_path / "base.json"
    argv = ["baseline", "--runs", "3", "--command", f"{sys.executable} {script}", "--store", db, "--offline",
            "--out", str(base)]
    assert main(argv) == 0
    data = json.loads(base.read_text())
    assert len(data["runs"]) == 3 and data["metrics"]["citation_coverage"]["values"] == [1.0, 1.0, 1.0]
    assert "baseline of 3 runs" in capsys.readouterr().out


def test_judge_eval_on_the_shipped_set(capsys: pytest.CaptureFixture[str]) -> None:
    """judge-eval without a file measures the default judge on the shipped labels and reports agreement."""
    assert main(["judge-eval", "--judge", "deterministic", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n"] >= 200 and data["false_support_rate"]["numerator"] == 0
    assert data["human_n"] >= 40 and data["human_kappa"] is not None
    assert sum(map(sum, data["confusion"])) == data["n"]


def test_eval_exports_evaluation_events_over_otlp(db: str, monkeypatch: pytest.MonkeyPatch,
                                                   http_server: Callable[..., str]) -> None:
    """With an OTLP endpoint set, eval exports an evaluate_citations span carrying one event per citation."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    received: list[ExportTraceServiceRequest] = []

    def handle(h: BaseHTTPRequestHandler) -> None:
        body = h.rfile.read(int(h.headers["Content-Length"]))
        if h.path == "/v1/traces":
            received.append(ExportTraceServiceRequest.FromString(body))
        reply(h, 200, b"", {"Content-Type": "application/x-protobuf"})

    monkeypatch.setenv(names.ENV_OTEL_EXPORTER_OTLP_ENDPOINT, http_server(handle))
    monkeypatch.setenv(names.ENV_OTEL_TRACES_EXPORTER, "otlp")
    assert main(["eval", "run-1", "--store", db, "--offline"]) == 0
    spans = [s for r in received for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans]
    (span,) = [s for s in spans if s.name == names.EVAL_SPAN_NAME]
    events = [e for e in span.events if e.name == names.GEN_AI_EVALUATION_RESULT]
    labels = [next(a.value.string_value for a in e.attributes if a.key == names.GEN_AI_EVALUATION_SCORE_LABEL)
              for e in events]
    assert labels == ["SUPPORTED", "SUPPORTED", "UNFETCHED"]


def test_corrupt_store_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A store file that is not a database gives one line naming the store, not a traceback."""
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not an sqlite database at all" * 100)
    assert main(["eval", "run-1", "--store", f"sqlite:///{bad}", "--offline"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and str(bad) in err
