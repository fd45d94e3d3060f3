"""Public entry point for ``citetrace bench --agent citetrace.demo.bench_agent:answer`` (see ``_bench_agent``)."""

from __future__ import annotations

from citetrace.demo._bench_agent import answer, answer_with_faults

__all__ = ["answer", "answer_with_faults"]
