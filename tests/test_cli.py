"""The CLI's one error path, tried as a new user would, through the real entry point in subprocesses and with
real SQLite files: bad store URIs, missing and corrupted stores, ambiguous run ids, a reader that closes the
pipe early, bad argument values. Every failure is one line on stderr and exit status 2, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from citetrace.store import RunRecord, SQLiteStore, ToolCallRecord


def _citetrace(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "CITETRACE_"))}
    full.update(env)
    return subprocess.run([sys.executable, "-m", "citetrace", *args], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=120)


def _one_line_error(out: subprocess.CompletedProcess[str], *needles: str) -> str:
    assert out.returncode == 2, (out.returncode, out.stdout[-500:], out.stderr[-2000:])
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def _store_with_runs(path: Path, *run_ids: str, calls: int = 1) -> str:
    store = SQLiteStore(path)
    for n, run_id in enumerate(run_ids):
        store.put_run(RunRecord(run_id, f"{n:032x}", "scout", "q", 1.0 + n, 2.0 + n, "An answer."))
        store.put_calls([ToolCallRecord(run_id, i, "search", "search", "ok", 1.0 + n, 1.0) for i in range(calls)])
    store.close()
    return f"sqlite:///{path}"


COMMANDS = [("runs",), ("show", "r1"), ("eval", "r1", "--offline"), ("gate", "r1", "--offline"), ("view", "r1"),
            ("ui", "--port", "0"), ("ledger", "show", "r1")]


@pytest.mark.parametrize("command", COMMANDS + [("demo", "--check")], ids=lambda c: c[0])
def test_unsupported_store_uri_is_one_line_in_every_command(tmp_path: Path, command: tuple[str, ...]) -> None:
    """CITETRACE_STORE=ftp://x is refused by every command (the demo included) with one line naming the variable,
    and --store ftp://x names the option; the demo records nothing and says nothing was recorded."""
    out = _citetrace(*command, cwd=tmp_path, CITETRACE_STORE="ftp://x")
    _one_line_error(out, "CITETRACE_STORE", "unsupported store URI 'ftp://x'")
    assert "recorded in" not in out.stdout
    out = _citetrace(*command, "--store", "ftp://x", cwd=tmp_path)
    _one_line_error(out, "--store", "unsupported store URI 'ftp://x'")
    assert not (tmp_path / ".citetrace").exists()


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_read_only_commands_never_create_a_store(tmp_path: Path, command: tuple[str, ...]) -> None:
    """A mistyped store path is "no store at ..." naming it, through --store or CITETRACE_STORE, and neither the
    file nor its folder is created."""
    missing = tmp_path / "nonexistent" / "dir" / "x.db"
    line = _one_line_error(_citetrace(*command, "--store", f"sqlite:///{missing}", cwd=tmp_path),
                           f"no store at {missing}")
    assert "None" not in line and "(default)" not in line
    _one_line_error(_citetrace(*command, cwd=tmp_path, CITETRACE_STORE=f"sqlite:///{missing}"), f"no store at {missing}")
    _one_line_error(_citetrace(*command, cwd=tmp_path), "no store at .citetrace/store.db")  # the default, named
    assert not (tmp_path / "nonexistent").exists() and not (tmp_path / ".citetrace").exists()


@pytest.mark.parametrize("damage", ["garbage", "truncated", "foreign"])
@pytest.mark.parametrize("command", [("runs",), ("show", "r1"), ("eval", "r1", "--offline")], ids=lambda c: c[0])
def test_damaged_store_file_is_one_line_naming_it(tmp_path: Path, command: tuple[str, ...], damage: str) -> None:
    """A store file that is not a database, is cut short, or is someone else's database gives one line naming the
    file and the problem."""
    path = tmp_path / "store.db"
    if damage == "garbage":
        path.write_bytes(b"this is not a database, just bytes\n" * 200)
        problem = "file is not a database"
    elif damage == "truncated":
        _store_with_runs(path, *(f"r{i}" for i in range(300)), calls=20)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3])
        problem = "malformed"
    else:
        import sqlite3

        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE notes(x)")
        conn.commit()
        conn.close()
        problem = "not a citetrace store"
    _one_line_error(_citetrace(*command, "--store", f"sqlite:///{path}", cwd=tmp_path), str(path), problem)


def test_ambiguous_run_id_prefix_says_how_many(tmp_path: Path) -> None:
    """A prefix that matches several runs says how many, in show and in eval; a unique one still works."""
    uri = _store_with_runs(tmp_path / "store.db", "20260101-000000-aaaa", "20260101-000000-bbbb",
                           "20260102-000000-cccc")
    for command in (("show",), ("eval", "--offline")):
        _one_line_error(_citetrace(command[0], "20260101", *command[1:], "--store", uri, cwd=tmp_path),
                        "'20260101' matches 2 runs")
    out = _citetrace("show", "20260102", "--store", uri, cwd=tmp_path)
    assert out.returncode == 0 and "20260102-000000-cccc" in out.stdout


def test_show_into_head_ends_cleanly(tmp_path: Path) -> None:
    """`citetrace show RUN | head` stops quietly when head has read enough: no BrokenPipeError traceback."""
    uri = _store_with_runs(tmp_path / "store.db", "r1", calls=5000)  # far more than a pipe buffer holds
    err = tmp_path / "err.txt"
    cmd = f"{sys.executable} -m citetrace show r1 --store {uri} 2>{err} | head -n 3"
    out = subprocess.run(["sh", "-c", cmd], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                         env={k: v for k, v in os.environ.items() if not k.startswith("CITETRACE_")})
    assert out.returncode == 0
    assert out.stdout.splitlines()[0] == "run      r1" and len(out.stdout.splitlines()) == 3
    assert err.read_text() == ""


@pytest.mark.parametrize("value", ["-5", "0", "many", "99999999999999999999999"])
def test_runs_limit_must_be_a_positive_number(tmp_path: Path, value: str) -> None:
    """`runs --limit -5` is an argument error, not a listing of every run; a limit past SQLite's 64-bit integers
    is one too (it was an OverflowError traceback from the store)."""
    uri = _store_with_runs(tmp_path / "store.db", "r1", "r2")
    out = _citetrace("runs", "--store", uri, "--limit", value, cwd=tmp_path)
    assert out.returncode == 2 and "expected a whole number >= 1" in out.stderr and "r1" not in out.stdout


def test_demo_fails_when_its_store_cannot_be_written(tmp_path: Path) -> None:
    """A demo whose store cannot be written (a file where its folder should be) fails, saying so, instead of
    claiming its runs were recorded."""
    (tmp_path / "FILE").write_text("not a folder")
    out = _citetrace("demo", "--questions", "storage", "--no-faults", "--no-metrics", "--store",
                     f"sqlite:///{tmp_path}/FILE/store.db", cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    assert "recorded in" not in out.stdout
    assert "write(s) to the store" in out.stderr and "failed" in out.stderr


@pytest.mark.parametrize("kind", ["missing", "directory", "not_json"])
def test_judge_eval_names_the_unreadable_file(tmp_path: Path, kind: str) -> None:
    """`citetrace judge-eval FILE` with a missing file, a directory or a non-JSON file: one line naming FILE."""
    path = tmp_path / "labels.jsonl"
    if kind == "directory":
        path.mkdir()
    elif kind == "not_json":
        path.write_text("not json\n")
    out = _citetrace("judge-eval", str(path), cwd=tmp_path)
    _one_line_error(out, str(path))


@pytest.mark.parametrize(("command", "prefix"), [
    (("review", "drift"), "citetrace review drift: error: "),
    (("ledger", "audit", "r1"), "citetrace ledger audit: error: "),
])
def test_an_action_of_a_group_names_itself_in_its_error(tmp_path: Path, command: tuple[str, ...], prefix: str) -> None:
    """An error inside `citetrace review drift` or `citetrace ledger audit` says which action failed."""
    SQLiteStore(tmp_path / "store.db").close()
    line = _one_line_error(_citetrace(*command, "--store", f"sqlite:///{tmp_path / 'store.db'}", cwd=tmp_path))
    assert line.startswith(prefix), line
    assert _citetrace("runs", "--store", "ftp://x", cwd=tmp_path).stderr.startswith("citetrace runs: error: ")


@pytest.mark.parametrize(("command", "flag", "value"), [
    ("eval", "--judge-workers", "0"), ("eval", "--judge-workers", "-3"), ("eval", "--stale-days", "-5"),
    ("eval", "--judge-retries", "-1"), ("eval", "--judge-timeout", "nan"),
    ("baseline", "--k", "-1"), ("baseline", "--k", "nan"), ("baseline", "--k", "inf"), ("baseline", "--tolerance", "-1"),
    ("baseline", "--runs", "-2"), ("judge-eval", "--max-drop", "-1"), ("judge-eval", "--max-drop", "nan"),
    ("compare", "--k", "nan"), ("compare", "--tolerance", "-0.5"), ("bench", "--repeat", "0"),
    ("demo", "--interval", "nan"), ("demo", "--timeout", "inf"), ("demo", "--rounds", "0"), ("ui", "--port", "70000"),
])
def test_a_number_flag_out_of_range_is_an_argument_error(tmp_path: Path, command: str, flag: str, value: str) -> None:
    """Every number flag says what it accepts, before any work: exit 2, the flag named, no traceback. Before,
    ``baseline --k nan`` wrote bands of [0, 1] (so ``gate --baseline`` passed any run), ``--k -1`` or
    ``--tolerance -1`` inverted the bands, and ``eval --judge-workers 0`` or ``--stale-days -5`` ran as if
    given something else."""
    positional = {"eval": ["r1"], "baseline": ["r1", "r2", "--out", str(tmp_path / "b.json")], "judge-eval": [],
                  "compare": ["a.json", "b.json"], "bench": ["q.yaml", "--agent", "m:f"], "demo": [], "ui": []}
    uri = _store_with_runs(tmp_path / "store.db", "r1", "r2")
    store = ["--store", uri] if command in ("eval", "baseline", "ui", "demo", "bench") else []
    out = _citetrace(command, *positional[command], *store, flag, value, cwd=tmp_path)
    last = out.stderr.strip().splitlines()[-1]
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert last.startswith(f"citetrace {command}: error: argument {flag}: expected ") and repr(value) in last, last
    assert not (tmp_path / "b.json").exists()
