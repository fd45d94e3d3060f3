"""A long-running ``citetrace`` command in a real process, started as a shell starts it, stopped by a signal.

The tests of ``serve``, ``ui`` and ``demo --loop`` stopping (SIGINT, SIGTERM, SIGHUP) share it. ``shell`` is
a line the shell runs before ``exec``-ing the command, which is how the conditions that broke the stop are
made real: ``trap "" INT`` starts the command with SIGINT ignored, as a script's ``cmd &`` does (Python then
never raises ``KeyboardInterrupt``); ``exec 0<&-`` starts it with stdin closed. Every read has a deadline,
and the stop is timed from the signal to the exit.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time

from citetrace._stopsignals import STOP_GRACE_S

STOP_BOUND_S = STOP_GRACE_S + 3.0
"""What a stop may take from the signal to the exit: the grace for requests in flight, plus room for the
store's close and the interpreter's exit on a loaded 2-core machine."""

IGNORE_SIGINT = 'trap "" INT'
STOP_SIGNALS = (signal.SIGHUP, signal.SIGINT, signal.SIGTERM)


def default_stop_signals() -> None:
    """``preexec_fn`` of every command these tests stop: the child starts with the stop signals at their
    defaults, whatever the test run's own are. A test run started under ``nohup`` (or by a runner that ignores
    SIGHUP) ignores SIGHUP, its children inherit that, and a shell cannot reset a signal ignored on entry, so
    the SIGHUP cases would test nohup instead; each test then sets what it needs (``trap "" INT``)."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)
"""The shell line that starts the command as ``cmd &`` in a script does: SIGINT ignored."""


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without CITETRACE_/OTEL_ variables (nothing leaks in from the test run), plus ``extra``;
    PYTHONPATH made absolute, so a command started in another folder runs the same code as the tests."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITETRACE_", "OTEL_"))}
    if env.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep) if p)
    env.update(extra)
    return env


class Command:
    """``citetrace ARGS...`` (after ``prefix``, e.g. ``unshare ...``) started through ``sh -c 'SHELL; exec "$@"'``;
    stdout and stderr read by threads. As a context manager, killed at the end if still running."""

    def __init__(self, *args: str, shell: str = "", prefix: tuple[str, ...] | list[str] = (),
                 env: dict[str, str] | None = None, cwd: str | os.PathLike[str] | None = None) -> None:
        argv = [*prefix, sys.executable, "-m", "citetrace", *args]
        script = f'{shell}; exec "$@"' if shell else 'exec "$@"'
        self.proc = subprocess.Popen(["sh", "-c", script, "sh", *argv], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=clean_env() if env is None else env, cwd=cwd,
                                     preexec_fn=default_stop_signals)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._out: list[str] = []
        self._err: list[str] = []
        self._pumps = [threading.Thread(target=self._pump, args=(self.proc.stdout, self._out), daemon=True),
                       threading.Thread(target=self._pump, args=(self.proc.stderr, self._err), daemon=True)]
        for pump in self._pumps:
            pump.start()
        self.signalled_at = 0.0

    def _pump(self, stream: object, into: list[str]) -> None:
        for line in stream:  # type: ignore[attr-defined]
            into.append(line)
            self._lines.put(line)
        self._lines.put(None)

    @property
    def stdout(self) -> str:
        return "".join(self._out)

    @property
    def stderr(self) -> str:
        return "".join(self._err)

    def wait_for(self, pattern: str, timeout: float = 60.0) -> re.Match[str]:
        """The first new line (stdout or stderr) matching ``pattern``; AssertionError if none comes in time."""
        deadline = time.monotonic() + timeout
        ended = 0
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.kill()
                raise AssertionError(f"no line matching {pattern!r} within {timeout} s; stderr: {self.stderr}")
            if line is None:
                ended += 1
                if ended == 2:
                    raise AssertionError(f"exited ({self.proc.wait()}) before {pattern!r}; stderr: {self.stderr}")
                continue
            found = re.search(pattern, line)
            if found:
                return found

    def send(self, sig: signal.Signals, pid: int | None = None) -> None:
        """Send ``sig`` to the command (or to ``pid``, e.g. the command inside a PID namespace); the stop's
        time runs from here."""
        self.signalled_at = time.monotonic()
        if pid is None:
            self.proc.send_signal(sig)
        else:
            os.kill(pid, sig)

    def finish(self, timeout: float = STOP_BOUND_S) -> tuple[int, float]:
        """Wait for the exit (killing it past ``timeout``): (exit status, seconds since the signal)."""
        try:
            status = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"still running {timeout} s after the signal; stderr: {self.stderr}") from None
        for pump in self._pumps:
            pump.join(10)
        return status, time.monotonic() - self.signalled_at

    def __enter__(self) -> "Command":
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
