"""``TraceSummaryProcessor``: the SDK span processor that summarizes each run in the agent as its spans end,
records its metrics, writes the summary to the store (on a worker thread of its own) and, with embedded
sampling, exports kept traces through the SDK's ``BatchSpanProcessor``.
"""

from __future__ import annotations

from citetrace.processor._processor import TraceSummaryProcessor

__all__ = ["TraceSummaryProcessor"]
