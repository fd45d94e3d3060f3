"""summary's interface to its sibling packages (serve, the dashboards generator): the run accumulator
and the metric pieces they share, so names and buckets cannot drift.

An explicit internal module: other citetrace packages import these names from here (never from
``summary``'s other private modules; ``tests/test_boundaries.py`` enforces it). Not a public API.
"""

from __future__ import annotations

from citetrace.summary._metrics import COUNT_BUCKETS, RUN_SECONDS_BUCKETS, TOOL_SECONDS_BUCKETS, _NoCreated as NoCreated
from citetrace.summary._summarize import RunAccumulator

__all__ = ["COUNT_BUCKETS", "NoCreated", "RUN_SECONDS_BUCKETS", "RunAccumulator", "TOOL_SECONDS_BUCKETS"]
