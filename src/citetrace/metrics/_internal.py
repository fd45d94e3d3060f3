"""metrics' interface to its sibling packages (serve, the Go names generator): the histogram buckets and the
no-``_created`` exposition both share, so metric shapes cannot drift.

An explicit internal module: other citetrace packages import these names from here (never from
``metrics``' other private modules; ``tests/test_boundaries.py`` enforces it). Not a public API.
"""

from __future__ import annotations

from citetrace.metrics._metrics import COUNT_BUCKETS, RUN_SECONDS_BUCKETS, TOOL_SECONDS_BUCKETS
from citetrace.metrics._metrics import _NoCreated as NoCreated

__all__ = ["COUNT_BUCKETS", "NoCreated", "RUN_SECONDS_BUCKETS", "TOOL_SECONDS_BUCKETS"]
