"""Real processes for the store tests: a second process that holds the store's write lock, and an agent.

Both talk over lines on stdin/stdout, and every read has a deadline, so a test that regresses fails in
seconds instead of hanging on a lock.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

DURABLE_AGENT = r"""
import citetrace
from citetrace import traced_tool, research_run
tel = citetrace.configure()
@traced_tool(kind="fetch")
def fetch(url):
    return ("page %s " % url) * 60
with research_run("q", agent="durable") as run:
    print("run", run.id, flush=True)
    i = 0
    while True:
        fetch(f"https://d.example/{i}")
        print("done", i, tel.store.stats().queued, flush=True)   # printed only after the tool returned
        i += 1
"""
"""An agent that fetches page after page in one run, printing ``done i queued`` after each tool call returns
(the kill -9 tests: every printed call must be in the store afterwards)."""

_HOLDER = r"""
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
conn.execute("BEGIN IMMEDIATE")  # the write lock, as another tool writing to the same file holds it
print("locked", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
print("released", flush=True)
sys.stdin.readline()
"""


class LineProcess:
    """A subprocess whose stdout lines are read with a deadline."""

    def __init__(self, argv: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        full_env = dict(os.environ)
        full_env.update(env or {})
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=full_env, cwd=cwd)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()
        threading.Thread(target=self._pump_err, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def _pump_err(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self._stderr.append(line)

    @property
    def stderr(self) -> str:
        return "".join(self._stderr)

    def line(self, timeout: float = 20.0) -> str:
        """The next stdout line; AssertionError if none comes in time (the process is stuck) or it exited."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no output within {timeout} s; stderr: {self.stderr[-2000:]}") from None
        if line is None:
            raise AssertionError(f"process exited ({self.proc.wait()}); stderr: {self.stderr[-2000:]}")
        return line

    def json_line(self, timeout: float = 20.0) -> Any:
        return json.loads(self.line(timeout))

    def send(self, text: str = "go") -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def wait(self, timeout: float = 30.0) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"process did not exit within {timeout} s; stderr: {self.stderr[-2000:]}") from None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


class LockHolder(LineProcess):
    """A second process holding the SQLite write lock on ``path`` until ``release()``."""

    def __init__(self, path: Path) -> None:
        super().__init__([sys.executable, "-c", _HOLDER, str(path)])
        assert self.line() == "locked"

    def release(self) -> None:
        self.send()
        assert self.line() == "released"

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send()
                self.send()
            except (BrokenPipeError, OSError):
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def agent(script: str, tmp_path: Path, **env: str) -> LineProcess:
    """Run an agent script in ``tmp_path`` with citetrace's sources first and no span export by default."""
    base = {"OTEL_TRACES_EXPORTER": "none"}
    base.update(env)
    return LineProcess([sys.executable, "-c", script], env=base, cwd=tmp_path)


def kill_9(proc: LineProcess, width: int) -> list[list[str]]:
    """SIGKILL ``proc``; return the lines of ``width`` fields it printed before dying, split (they report
    returned calls too). A line the kill cut short has fewer fields, or a shorter last number: callers take
    the maximum."""
    os.kill(proc.proc.pid, signal.SIGKILL)
    proc.proc.wait(10)
    lines: list[list[str]] = []
    while True:
        try:
            fields = proc.line(timeout=5).split()
        except AssertionError:
            return lines
        if len(fields) == width:
            lines.append(fields)
