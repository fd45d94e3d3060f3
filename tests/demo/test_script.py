"""scripts/demo as a new user runs it from a fresh clone: the demo's exit status comes through, and the
user is told how to reach the `citetrace runs` the demo's last line suggests (it lives in .venv/bin)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A copy of scripts/demo over a .venv whose citetrace records its arguments and exits with status 3."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "demo", tmp_path / "scripts" / "demo")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    fake = bin_dir / "citetrace"
    fake.write_text('#!/bin/sh\necho "demo ran: $*" > "$(dirname "$0")/../args"\nexit 3\n')
    fake.chmod(0o755)
    return tmp_path


@pytest.mark.parametrize("on_path", [False, True])
def test_demo_status_and_the_venv_hint(repo: Path, on_path: bool) -> None:
    """The demo's status is the script's; the .venv/bin hint is printed only when citetrace is not on PATH."""
    path = os.environ.get("PATH", "/usr/bin:/bin")
    env = dict(os.environ, PATH=f"{repo / '.venv' / 'bin'}:{path}" if on_path else path)
    out = subprocess.run(["bash", str(repo / "scripts" / "demo"), "--questions", "prices"], cwd="/", env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 3, out.stderr
    assert (repo / ".venv" / "args").read_text() == "demo ran: demo --questions prices\n"
    assert (". .venv/bin/activate" in out.stderr) is not on_path, out.stderr
