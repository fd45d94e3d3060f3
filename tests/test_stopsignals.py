"""``citetrace._stopsignals``: the one way serve, ui and demo --loop are asked to stop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import pytest

from _stopping import STOP_BOUND_S, STOP_SIGNALS, clean_env, default_stop_signals
from citetrace._stopsignals import StopSignals

_STUCK_STOP = """
import time
from citetrace._stopsignals import StopSignals
with StopSignals("stuck") as stop:
    print("ready", flush=True)
    stop.wait()
    print("stopping", stop.name, flush=True)
    time.sleep(120)  # a stop that never ends
"""


@pytest.fixture(autouse=True)
def _default_dispositions() -> object:
    """The stop signals at their defaults in this process for each test (a test run under ``nohup`` ignores
    SIGHUP, which StopSignals rightly leaves alone), put back afterwards."""
    before = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig in STOP_SIGNALS:
        if before[sig] == signal.SIG_IGN:
            signal.signal(sig, signal.SIG_DFL)
    yield
    for sig, handler in before.items():
        signal.signal(sig, handler)


def test_the_first_stop_signal_ends_wait_and_handlers_are_restored() -> None:
    """SIGTERM ends ``wait()`` and names itself; leaving the block puts the previous handlers back."""
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    with StopSignals("t") as stop:
        assert not stop.wait(0) and stop.name == ""
        os.kill(os.getpid(), signal.SIGTERM)
        assert stop.wait(STOP_BOUND_S) and stop.name == "SIGTERM"
    assert {sig: signal.getsignal(sig) for sig in before} == before


def test_another_librarys_signal_is_not_a_stop() -> None:
    """The wakeup pipe carries every handled signal's number: SIGUSR1 (someone else's handler) is not a stop."""
    seen: list[int] = []
    previous = signal.signal(signal.SIGUSR1, lambda signum, _frame: seen.append(signum))
    try:
        with StopSignals("t") as stop:
            os.kill(os.getpid(), signal.SIGUSR1)
            os.kill(os.getpid(), signal.SIGHUP)
            assert stop.wait(STOP_BOUND_S) and stop.name == "SIGHUP"
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert seen == [signal.SIGUSR1]


def test_request_from_another_thread_ends_wait() -> None:
    """``request()`` (from any thread) ends ``wait()`` as a signal does."""
    with StopSignals("t") as stop:
        asking = threading.Thread(target=stop.request)
        asking.start()
        assert stop.wait(STOP_BOUND_S) and stop.name == "request"
        asking.join()


def test_a_second_signal_during_a_stuck_stop_exits_at_once() -> None:
    """Ctrl-C twice: the second one exits 130 at once with one line, whatever the stop is doing."""
    proc = subprocess.Popen([sys.executable, "-c", _STUCK_STOP], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=clean_env(), preexec_fn=default_stop_signals)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
        proc.send_signal(signal.SIGINT)
        assert proc.stdout.readline() == "stopping SIGINT\n"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=STOP_BOUND_S)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 128 + signal.SIGINT
    assert err == "stuck: stopping at once (SIGINT again)\n"
