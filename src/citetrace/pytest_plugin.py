"""citetrace's pytest plugin (registered under ``pytest11``): the ``citetrace_replay`` fixture.

    def test_agent_offline(citetrace_replay):
        citetrace_replay("20261201-101500-ab12cd34")          # store: the configured one, or store=...
        report = my_agent.run("the question")                  # every traced tool answers from the recording

Replay ends with the test. Light on purpose: citetrace is imported only when the fixture is used.
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any, Callable, Iterator

import pytest

__all__ = ["citetrace_replay"]


@pytest.fixture
def citetrace_replay() -> Iterator[Callable[..., Any]]:
    """Start replaying a recorded run for the rest of the test: ``citetrace_replay(run_id, store=None,
    miss="error")`` returns the ``Replay`` (its ``replayed`` and ``missed`` counts)."""
    from citetrace.capture import replay

    with ExitStack() as stack:
        yield lambda run_id, **kwargs: stack.enter_context(replay(run_id, **kwargs))
