"""Replay: every traced tool returns what a recorded run's same call returned, instead of calling out.

``with citetrace.replay(run_id):`` (or ``CITETRACE_REPLAY=RUN_ID``, or the ``citetrace_replay`` pytest
fixture) makes every tool call that goes through capture (``@traced_tool``, the auto-instrumented
libraries, ``CITETRACE_TOOLS``) take the next recorded response of the same tool with the same normalised
arguments, in recorded order, and return it (or raise the recorded exception again). The call still makes
its span, so the replayed run is summarized like any other: it is a new run, marked
``citetrace.run.replay_of``. On a miss the policy decides: ``error`` (default) raises ``ReplayMiss`` naming
the tool and the arguments; ``passthrough`` calls the real tool; ``empty`` returns an empty result.

Replay is process-wide while it is on (worker threads an agent starts replay too). Record runs to replay
with ``CITETRACE_RECORD_RESPONSES=true`` (``configure(record_responses=True)``).

A replay that cannot be served never goes to the network, whatever the miss policy: ``replay()`` of an
unknown run raises ``ValueError`` on entry; ``CITETRACE_REPLAY`` naming an unknown run (or a store that cannot
be read) logs one warning and then every traced call raises ``ReplayMiss`` saying why; a run that recorded
no responses makes every traced call raise ``ReplayMiss`` saying so (it was recorded without
``CITETRACE_RECORD_RESPONSES=true``). Running live again is a matter of unsetting ``CITETRACE_REPLAY``.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Mapping, Sequence

from citetrace import names
from citetrace import _telemetry
from citetrace.config import Settings
from citetrace.capture._responses import args_key, decode
from citetrace.capture._status import feed_observations

__all__ = ["Replay", "ReplayMiss", "replay", "current", "MISS_POLICIES"]

MISS_POLICIES = ("error", "passthrough", "empty")
"""What a call with no recorded response does (``CITETRACE_REPLAY_MISS``)."""

_log = logging.getLogger("citetrace")


class ReplayMiss(LookupError):
    """A tool call the recorded run never made (or made fewer times)."""


class Replay:
    """The recorded responses of one run, handed out in order per (tool, arguments)."""

    def __init__(self, run_id: str, *, store: Any = None, miss: str = "error") -> None:
        if miss not in MISS_POLICIES:
            raise ValueError(f"replay miss policy must be one of {MISS_POLICIES}, got {miss!r}")
        if store is None:
            store = _telemetry.current().run_store()
        run = store.get_run(run_id)
        self.run_id = run.run_id if run is not None else run_id
        responses = store.responses(self.run_id)
        if run is None and not responses:
            raise ValueError(f"no run {run_id!r} to replay in {store.uri}")
        self.miss = miss
        self._lock = threading.Lock()
        self._queues: dict[tuple[str, str], deque[Mapping[str, Any]]] = {}
        for r in responses:
            self._queues.setdefault((r.tool, r.args_key), deque()).append(r.payload)
        self.recorded = len(responses)
        self.replayed = 0
        self.missed = 0
        self.refusal: str | None = None if responses else (
            f"run {self.run_id} recorded no tool responses (record it with {names.ENV_RECORD_RESPONSES}=true)")
        """Why no call of this replay can be served (then every call raises ``ReplayMiss``), or None."""

    @classmethod
    def refused(cls, run_id: str, reason: str) -> "Replay":
        """A replay that serves nothing: every traced call raises ``ReplayMiss`` with ``reason``, none goes out."""
        rp = cls.__new__(cls)
        rp.run_id, rp.miss, rp._lock, rp._queues = run_id, "error", threading.Lock(), {}
        rp.recorded = rp.replayed = rp.missed = 0
        rp.refusal = reason
        return rp

    def _take(self, tool: str, key: str) -> Mapping[str, Any] | None:
        with self._lock:
            queue = self._queues.get((tool, key))
            if queue:
                self.replayed += 1
                return queue.popleft()
            self.missed += 1
            return None

    def stand_in(self, spec: Any, args: Sequence[Any], kwargs: Mapping[str, Any],
                 wrapped: Callable[..., Any], is_async: bool) -> Callable[..., Any]:
        """What ``invoke`` calls instead of ``wrapped``: the recorded response, or the miss policy's answer."""
        if self.refusal is not None:  # nothing recorded: never the network, whatever the miss policy
            with self._lock:
                self.missed += 1
            return _returning(ReplayMiss(f"replay of run {self.run_id} cannot answer tool {spec.name!r}: "
                                         f"{self.refusal}"), is_async)
        payload = self._take(spec.name, args_key(spec.name, args, kwargs, spec.skip_self))
        unrecorded = payload.get("unrecorded") if payload is not None else None
        if unrecorded is not None:  # its place in the order, without the response (over the recording cap)
            with self._lock:
                self.replayed, self.missed = self.replayed - 1, self.missed + 1
        if payload is None or unrecorded is not None:
            if self.miss == "passthrough":
                return wrapped
            if self.miss == "empty":
                outcome: Any = [] if spec.kind == names.TOOL_KIND_SEARCH else ""
            elif unrecorded is not None:
                size = unrecorded.get("over_bytes") if isinstance(unrecorded, dict) else None
                outcome = ReplayMiss(f"replay of run {self.run_id}: tool {spec.name!r} answered these arguments "
                                     f"({_shown(args, kwargs, spec.skip_self)}) with a response over {size} bytes, "
                                     "which was not recorded")
            else:
                outcome = ReplayMiss(f"replay of run {self.run_id}: no recorded response left for tool "
                                     f"{spec.name!r} with these arguments ({_shown(args, kwargs, spec.skip_self)})")
        else:
            outcome = decode(payload)
            return _returning(outcome, is_async, payload.get("observed"))
        return _returning(outcome, is_async)


def _shown(args: Sequence[Any], kwargs: Mapping[str, Any], skip_self: bool) -> str:
    from citetrace._redact import redact_text

    parts = [repr(a) for a in (args[1:] if skip_self else args)] + [f"{k}={v!r}" for k, v in kwargs.items()
                                                                   if k != "tool_call_id"]
    return redact_text(", ".join(parts), 300)


def _returning(outcome: Any, is_async: bool, observed: Any = None) -> Callable[..., Any]:
    """The stand-in: shows the probes what the recorded call's HTTP requests showed them (``observed``),
    then returns or raises the recorded outcome."""
    if is_async:
        async def arecorded(*_args: Any, **_kwargs: Any) -> Any:
            feed_observations(observed)
            if isinstance(outcome, BaseException):
                raise outcome
            return outcome

        return arecorded

    def recorded(*_args: Any, **_kwargs: Any) -> Any:
        feed_observations(observed)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    return recorded


_active: list[Replay] = []
_env: tuple[Any, Replay | None] | None = None  # (the settings it was read from, the replay they name)
_lock = threading.Lock()


def current(settings: Settings | None = None) -> Replay | None:
    """The replay in force: the innermost ``replay()`` block, else ``CITETRACE_REPLAY``'s, else None.
    ``settings``: the current telemetry's, when the caller has them (a traced call reads them once)."""
    if _active:
        return _active[-1]
    if settings is None:
        settings = _telemetry.current().settings
    env = _env
    if env is not None and env[0] is settings:
        return env[1]
    return _load_env(settings)


def _load_env(settings: Any) -> Replay | None:
    global _env
    found: Replay | None = None
    if settings.replay:
        try:
            found = Replay(settings.replay, miss=settings.replay_miss)
        except Exception as exc:  # noqa: BLE001 - the agent starts; its traced calls refuse, none goes live
            found = Replay.refused(settings.replay, _why(settings.replay, exc))
        if found.refusal is not None:
            _log.warning("citetrace: %s=%s cannot be replayed: %s; every traced tool call raises ReplayMiss "
                         "(unset it to run live)", names.ENV_REPLAY, settings.replay, found.refusal)
    with _lock:
        _env = (settings, found)
    return found


def _why(run_id: str, exc: Exception) -> str:
    """The refusal for a replay whose run could not be opened: the ``ValueError`` says which run and store."""
    from citetrace._redact import redact_text

    if isinstance(exc, ValueError) and str(exc).startswith("no run "):
        return str(exc)
    return f"run {run_id} could not be read from the store ({type(exc).__name__}: {redact_text(str(exc), 200)})"


@contextmanager
def replay(run_id: str, *, store: Any = None, miss: str = "error") -> Iterator[Replay]:
    """Replay ``run_id``'s recorded tool responses while the block runs."""
    rp = Replay(run_id, store=store, miss=miss)
    with _lock:
        _active.append(rp)
    try:
        yield rp
    finally:
        with _lock:
            _active.remove(rp)
