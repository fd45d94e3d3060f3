"""`citetrace bench` end to end on the shipped example set with the demo agent, then baseline, gate, compare
and replay, each checked against the demo catalogue's hand-computed figures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from citetrace.demo._catalogue import QUESTIONS

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
SET = ROOT / "examples" / "bench" / "demo-questions.yaml"
AGENT = "citetrace.demo.bench_agent:answer"


def _cli(tmp: Path, *args: str, record: bool = False, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITETRACE_", "OTEL_"))}
    env.update(CITETRACE_STORE=f"sqlite:///{tmp / 'store.db'}", OTEL_TRACES_EXPORTER="none", **extra)
    if record:
        env["CITETRACE_RECORD_RESPONSES"] = "true"
    return subprocess.run([sys.executable, "-m", "citetrace", *args], capture_output=True, text=True, timeout=300,
                          env=env, cwd=tmp)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The example set, 2 repeats, no fault, responses recorded."""
    tmp = tmp_path_factory.mktemp("bench")
    done = _cli(tmp, "bench", str(SET), "--agent", AGENT, "--repeat", "2", "--out", "clean.json", record=True)
    assert done.returncode == 0, done.stderr
    assert "| storage |" in done.stdout
    return tmp, json.loads((tmp / "clean.json").read_text())


def _expected(qid: str, faults: bool) -> Any:
    q = next(q for q in QUESTIONS if q.id == qid)
    return q.expected if faults else q.expected_clean


def test_known_answers_and_figures_match_the_catalogue(clean: tuple[Path, dict[str, Any]]) -> None:
    """Every known answer is found; each question's searches, reads and failed reads equal the catalogue's
    hand-computed figures on every repeat (so their spread is zero)."""
    _tmp, bench = clean
    assert bench["passed"] is True and bench["failed_questions"] == []
    for q in bench["questions"]:
        exp = _expected(q["id"], faults=False)
        assert q["passed"] is (None if q["id"] == "members" else True)
        for field in ("searches", "reads", "failed_reads"):
            assert q["spread"][field] == {"mean": float(getattr(exp, field)), "std": 0.0,
                                          "min": float(getattr(exp, field)), "max": float(getattr(exp, field)),
                                          "n": 2}, (q["id"], field)
        assert len({r["run_id"] for r in q["repeats"]}) == 2


def test_a_missed_known_answer_fails_with_exit_1(tmp_path: Path) -> None:
    """A wrong known answer is reported and the exit code is 1."""
    qs = tmp_path / "wrong.yaml"
    qs.write_text("questions:\n  - id: storage\n    question: How much grid battery storage did Marrow Valley add "
                  "in 2024?\n    answer: {number: 999}\n", encoding="utf-8")
    done = _cli(tmp_path, "bench", str(qs), "--agent", AGENT, "--json")
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["failed_questions"] == ["storage"]


def test_gate_fails_a_bench_pushed_outside_the_band(clean: tuple[Path, dict[str, Any]]) -> None:
    """A baseline from the clean bench passes the clean bench and fails the same set with every fault on,
    naming exactly the figures the catalogue says differ."""
    tmp, _bench = clean
    assert _cli(tmp, "baseline", "--from-bench", "clean.json", "--out", "base.json").returncode == 0
    ok = _cli(tmp, "gate", "--bench", "clean.json", "--baseline", "base.json")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    faulty = _cli(tmp, "bench", str(SET), "--agent", "citetrace.demo.bench_agent:answer_with_faults", "--out",
                  "faults.json")
    assert faulty.returncode == 0, faulty.stderr
    gated = _cli(tmp, "gate", "--bench", "faults.json", "--baseline", "base.json", "--json")
    assert gated.returncode == 1
    outside = {m["message"].split(":")[0] + ":" + m["message"].split(": ")[1].split(" ")[0]
               for m in json.loads(gated.stdout)["failures"] if m["rule"] == "outside_band"}
    for q in json.loads((tmp / "faults.json").read_text())["questions"]:
        for field in ("searches", "reads", "failed_reads"):
            moved = getattr(_expected(q["id"], True), field) != getattr(_expected(q["id"], False), field)
            assert (f"question {q['id']}:{field}" in outside) is moved, (q["id"], field)


def test_compare_shows_what_moved(clean: tuple[Path, dict[str, Any]]) -> None:
    """compare lists, per question, the figures that left A's band, with their deltas."""
    tmp, _bench = clean
    if not (tmp / "faults.json").exists():
        assert _cli(tmp, "bench", str(SET), "--agent", "citetrace.demo.bench_agent:answer_with_faults",
                    "--out", "faults.json").returncode == 0
    done = _cli(tmp, "compare", "clean.json", "faults.json", "--json")
    assert done.returncode == 0, done.stderr
    rows = {(r["question"], r["metric"]): r for r in json.loads(done.stdout)["rows"]}
    for q in QUESTIONS:
        if (q.id, "failed_reads") in rows:
            delta = q.expected.failed_reads - q.expected_clean.failed_reads
            assert rows[(q.id, "failed_reads")]["delta"] == delta
            assert rows[(q.id, "failed_reads")]["outside"] is (delta != 0)


def test_replay_of_the_recorded_bench_gives_the_same_figures(clean: tuple[Path, dict[str, Any]]) -> None:
    """--replay BENCH.json answers every tool from the recorded runs: the same figures, runs marked."""
    tmp, bench = clean
    done = _cli(tmp, "bench", str(SET), "--agent", AGENT, "--repeat", "2", "--replay", "clean.json", "--json")
    assert done.returncode == 0, done.stderr
    again = json.loads(done.stdout)
    for a, b in zip(bench["questions"], again["questions"]):
        assert [r["replay_of"] for r in b["repeats"]] == [r["run_id"] for r in a["repeats"]]
        assert {k: v for k, v in b["spread"].items() if k != "total_ms"} == \
               {k: v for k, v in a["spread"].items() if k != "total_ms"}


def test_the_documented_ci_workflow_passes_a_replayed_bench(clean: tuple[Path, dict[str, Any]]) -> None:
    """examples/ci/citetrace-bench.yml: baseline from the recorded bench, bench again with every tool replayed
    from it, gate. The same agent on the same answers passes. Before, every question failed on total_ms (the
    replayed runs make no HTTP call, so they ran in a fraction of the recorded time)."""
    tmp, _bench = clean
    assert _cli(tmp, "baseline", "--from-bench", "clean.json", "--out", "ci-base.json").returncode == 0
    replayed = _cli(tmp, "bench", str(SET), "--agent", AGENT, "--repeat", "2", "--replay", "clean.json",
                    "--out", "ci.json")
    assert replayed.returncode == 0, replayed.stderr
    gated = _cli(tmp, "gate", "--bench", "ci.json", "--baseline", "ci-base.json")
    assert gated.returncode == 0, gated.stdout + gated.stderr


def test_bad_agent_is_one_line(tmp_path: Path) -> None:
    """An --agent that cannot be imported exits 2 with one line naming it."""
    done = _cli(tmp_path, "bench", str(SET), "--agent", "no_such_module:run")
    assert done.returncode == 2 and "no_such_module" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_replaying_a_bench_recorded_without_responses_is_one_line(tmp_path: Path) -> None:
    """--replay of a bench whose runs recorded no responses: one line naming the run and CITETRACE_RECORD_RESPONSES,
    before any agent call (it was a ReplayMiss traceback out of the agent)."""
    assert _cli(tmp_path, "bench", str(SET), "--agent", AGENT, "--out", "plain.json").returncode == 0
    done = _cli(tmp_path, "bench", str(SET), "--agent", AGENT, "--replay", "plain.json")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    recorded = [r["run_id"] for q in json.loads((tmp_path / "plain.json").read_text())["questions"]
                for r in q["repeats"]]
    assert "CITETRACE_RECORD_RESPONSES=true" in lines[0] and "no recorded tool responses" in lines[0]
    assert f"run {min(recorded)} " in lines[0], lines[0]
    assert "| storage |" not in done.stdout  # no question ran


def test_an_agent_that_calls_differently_from_the_recording_is_one_line(clean: tuple[Path, dict[str, Any]]) -> None:
    """A replayed agent making a call its recording lacks (here: every fault on, so other queries) stops with one
    line naming the question, the repeat and the call, not a ReplayMiss traceback."""
    tmp, _bench = clean
    done = _cli(tmp, "bench", str(SET), "--agent", "citetrace.demo.bench_agent:answer_with_faults",
                "--replay", "clean.json")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "repeat 1" in lines[0] and "no recorded response left for tool" in lines[0], lines[0]


def test_an_agent_that_raises_fails_its_repeat_and_the_bench_goes_on(tmp_path: Path) -> None:
    """An exception from the agent on one question is that repeat's failure (named in the table, the JSON and
    the exit status); the other questions still run and the run records the agent error."""
    (tmp_path / "flaky_agent.py").write_text(
        "def answer(question):\n"
        "    if 'first' in question:\n"
        "        raise RuntimeError('model down, api_key=sk-abcdefghijklmnopqrstuvwx')\n"
        "    return 'Fine [1].\\n\\n[1] https://a.example/x'\n")
    (tmp_path / "qs.json").write_text(json.dumps({"questions": [
        {"id": "one", "question": "the first question"}, {"id": "two", "question": "the second question"}]}))
    done = _cli(tmp_path, "bench", "qs.json", "--agent", "flaky_agent:answer", "--repeat", "2", "--out", "r.json",
                PYTHONPATH=f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    result = json.loads((tmp_path / "r.json").read_text())
    assert [e["question"] for e in result["errors"]] == ["one", "one"]
    assert result["errors"][0]["error"].startswith("RuntimeError: model down")
    assert "sk-abcdefghijklmnopqrstuvwx" not in done.stdout + (tmp_path / "r.json").read_text()
    assert result["failed_questions"] == ["one"] and result["questions"][1]["passed"] is None
    assert "| one | - | **ERROR** |" in done.stdout and "agent error in one, repeat 1" in done.stdout
    listed = json.loads(_cli(tmp_path, "runs", "--json").stdout)
    assert len(listed) == 4 and sum(1 for r in listed if r["error_type"] == "RuntimeError") == 2


def test_an_agent_module_that_configures_citetrace_itself(tmp_path: Path) -> None:
    """The README's quick start calls ``citetrace.configure()`` at import; ``citetrace bench`` then configured
    again, printing "configure() called again; shutting down the previous configuration" and shutting the
    agent's own set-up (its exporters) down (outside check hout6). Without ``--store`` the bench now records into
    the agent's configuration: no warning, and the agent's exporter gets the bench's spans."""
    (tmp_path / "qs.yaml").write_text("questions:\n  - id: q1\n    question: Is it sunny?\n    answer: {exact: sunny}\n")
    (tmp_path / "myagent.py").write_text(
        "import atexit, json\n"
        "import citetrace\n"
        "from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter\n"
        "exporter = InMemorySpanExporter()\n"
        "citetrace.configure(metrics='off', exporter=exporter)\n"
        "@atexit.register\n"
        "def _dump():\n"
        "    citetrace.force_flush() if hasattr(citetrace, 'force_flush') else None\n"
        "    open('spans.json', 'w').write(json.dumps([s.name for s in exporter.get_finished_spans()]))\n"
        "def answer(question):\n"
        "    return 'It is sunny today.'\n")
    done = _cli(tmp_path, "bench", "qs.yaml", "--agent", "myagent:answer", "--repeat", "2", PYTHONPATH=os.pathsep.join(
        [str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    assert done.returncode == 0, done.stderr
    assert "called again" not in done.stderr
    assert json.loads((tmp_path / "spans.json").read_text()).count("invoke_agent answer") == 2
