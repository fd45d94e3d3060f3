"""How citetrace's long-running commands (``serve``, ``ui``, ``demo --loop``) are asked to stop: one way for all.

SIGINT (Ctrl-C), SIGTERM (compose, Kubernetes, systemd) and SIGHUP (the terminal closed) each ask for the same
clean stop: the command finishes or cuts what is in flight within a bound (``STOP_GRACE_S`` for requests),
prints one line naming the signal, and exits 0. A second stop signal while stopping exits at once (status
128 + the signal's number), for a stop that is itself stuck.

Why explicit handlers, rather than Python's ``KeyboardInterrupt`` and the default actions (issue 12, "stuck
exits"):

- Python turns SIGINT into ``KeyboardInterrupt`` only when the process starts with SIGINT at its default
  action. A shell without job control (a script, CI, a test suite started with ``&``) starts background jobs
  with SIGINT *ignored*, and children inherit that: ``citetrace ui`` started that way ignored every SIGINT
  and stayed up until killed, which is what the PostgreSQL run-browser test met in some full runs (its
  thread dump showed only the pool's idle workers and the serving loop, hence the wrong suspicion of the
  pool's close).
- SIGTERM and SIGHUP killed the process through their default action, with no message and no cleanup; and
  PID 1 in a container (our image's ``ENTRYPOINT ["citetrace"]``, no init) has no default action at all, so
  ``docker stop`` waited its 10 s and sent SIGKILL.
- ``KeyboardInterrupt`` lands wherever the main thread is, inside a store write or the pool's own code.

SIGHUP is left alone when it is already ignored (``nohup``): whoever started the command asked it to survive
the terminal. ``wait()`` blocks on a pipe that is also the interpreter's wakeup fd (``signal.set_wakeup_fd``):
the kernel may deliver the signal to any of the command's threads, and a Python handler alone runs only
when the main thread next runs Python code, which a main thread blocked in ``select`` never does. The
wakeup byte wakes it wherever the signal landed.
"""

from __future__ import annotations

import os
import select
import signal
import threading
import time
from types import FrameType, TracebackType
from typing import Any, Callable

__all__ = ["STOP_GRACE_S", "STOP_SIGNALS", "StopSignals"]

STOP_GRACE_S = 2.0
"""How long requests in flight may finish after a stop signal before the command exits without them."""

STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals that ask a long-running command to stop (SIGHUP only when not inherited as ignored)."""

_Handler = Callable[[int, FrameType | None], Any] | int | None


class StopSignals:
    """``with StopSignals("citetrace ui") as stop: ... stop.wait()``: the first stop signal ends ``wait()``.

    Outside the main thread (a command run from a test's thread) no handler can be installed: ``wait()``
    then only returns on its timeout or after ``request()``.
    """

    def __init__(self, command: str) -> None:
        self.command = command
        self.received: signal.Signals | None = None
        self.requested = False
        self._handled = 0
        self._previous: dict[signal.Signals, _Handler] = {}
        self._previous_fd: int | None = None
        self._fd_lock = threading.Lock()  # request() from another thread never writes to a closed (reused) fd
        self._read_fd, self._write_fd = os.pipe()
        os.set_blocking(self._write_fd, False)

    @property
    def name(self) -> str:
        """The signal that asked for the stop ("SIGINT"), "request" for ``request()``, "" before either."""
        return self.received.name if self.received is not None else ("request" if self.requested else "")

    def __enter__(self) -> "StopSignals":
        if threading.current_thread() is threading.main_thread():
            self._previous_fd = signal.set_wakeup_fd(self._write_fd)
            for sig in STOP_SIGNALS:
                current = signal.getsignal(sig)
                if sig == signal.SIGHUP and current == signal.SIG_IGN:
                    continue  # nohup: surviving the terminal was asked for
                self._previous[sig] = current
                signal.signal(sig, self._on_signal)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        for sig, previous in self._previous.items():
            signal.signal(sig, previous if previous is not None else signal.SIG_DFL)
        self._previous.clear()
        if self._previous_fd is not None:
            signal.set_wakeup_fd(self._previous_fd)
            self._previous_fd = None
        with self._fd_lock:
            for fd in (self._read_fd, self._write_fd):
                os.close(fd)
            self._read_fd = self._write_fd = -1

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:  # noqa: ARG002 - signal's signature
        """Python's half, in the main thread: the first signal is the stop (``wait()`` has seen its byte); a
        second one means the stop itself is stuck, or the user insists."""
        self._handled += 1
        if self._handled > 1:
            os.write(2, f"{self.command}: stopping at once ({signal.Signals(signum).name} again)\n".encode())
            os._exit(128 + signum)
        if self.received is None:
            self.received = signal.Signals(signum)

    def request(self) -> None:
        """Ask for the stop as a signal would (a test, or a component that decides to stop)."""
        with self._fd_lock:
            if self._write_fd < 0:  # the block has been left: nothing waits any more
                return
            try:
                os.write(self._write_fd, b"\0")
            except BlockingIOError:  # the pipe is full of earlier wake-ups: one is enough
                pass

    def asked(self) -> bool:
        """Whether a stop has been asked for, without waiting (a loop's check between two units of work)."""
        return self.wait(0)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until a stop is asked for (True) or ``timeout`` seconds pass (False)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.received is None and not self.requested:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([self._read_fd], [], [], left)[0]:
                return False
            # the wakeup fd writes the number of every signal with a Python handler (another library's
            # too: those are not a stop); request() writes a 0
            for byte in os.read(self._read_fd, 64):
                if byte == 0:
                    self.requested = True
                elif self.received is None and byte in self._previous:
                    self.received = signal.Signals(byte)
        return True
