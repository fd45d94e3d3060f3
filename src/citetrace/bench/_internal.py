"""bench's interface to its sibling packages: the bench commands ``citetrace eval``'s CLI dispatches to.

An explicit internal module: other citetrace packages import these names from here (never from
``bench``'s other private modules; ``tests/test_boundaries.py`` enforces it). Not a public API.
"""

from __future__ import annotations

from citetrace.bench._cli import baseline_bench_command, gate_bench_command

__all__ = ["baseline_bench_command", "gate_bench_command"]
