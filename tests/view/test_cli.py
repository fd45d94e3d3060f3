"""`citetrace view` from the command line: where the page goes, and one-line errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any


def _view(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "citetrace", "view", *args], capture_output=True, text=True,
                          timeout=60, cwd=cwd)


def test_writes_the_page_by_prefix_and_to_stdout(demo_store: str, demo_runs: list[dict[str, Any]], tmp_path: Path) -> None:
    """A unique run-id prefix writes citetrace-run-ID.html in the current folder; -o - prints the page."""
    run_id = demo_runs[0]["run_id"]
    done = _view(run_id[:-2], "--store", demo_store, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / f"citetrace-run-{run_id}.html").read_text(encoding="utf-8").startswith("<!doctype html>")
    out = _view(run_id, "--store", demo_store, "-o", "-")
    assert out.returncode == 0 and run_id in out.stdout


def test_errors_are_one_line(demo_store: str, demo_runs: list[dict[str, Any]], tmp_path: Path) -> None:
    """An unknown run, an unreadable or foreign --eval file each exit 2 with one line naming the problem."""
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{not json", encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text('{"run_id": "someone-else", "pairs": []}', encoding="utf-8")
    run_id = demo_runs[0]["run_id"]
    cases = [(("no-such-run", "--store", demo_store), "no run 'no-such-run'"),
             ((run_id, "--store", demo_store, "--eval", str(tmp_path / "missing.json")), "cannot read the evaluation"),
             ((run_id, "--store", demo_store, "--eval", str(bad_json)), "is not JSON"),
             ((run_id, "--store", demo_store, "--eval", str(other)), "not " + repr(run_id))]
    for args, message in cases:
        done = _view(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_review_options_errors_are_one_line(demo_store: str, tmp_path: Path) -> None:
    """`ui --review-queue` without its companions, or with a queue that does not exist, exits 2 in one line."""
    cases = [(("--review-queue", str(tmp_path / "q.jsonl")), "go together"),
             (("--review-queue", str(tmp_path / "q.jsonl"), "--labeller", "ana", "--labels-out",
               str(tmp_path / "ana.jsonl")), "does not exist")]
    for args, message in cases:
        done = subprocess.run([sys.executable, "-m", "citetrace", "ui", "--store", demo_store, "--port", "0", *args],
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 2, (args, done.stderr)
        assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
