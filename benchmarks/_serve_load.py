"""Synthetic research-run traces as OTLP requests, for benchmarks/bench_serve.py.

Each run looks like a demo run: 4 searches (5 URLs each) and 5 fetches under one ``invoke_agent`` root,
with the attributes capture really writes, so the receiver decodes and summarises realistic spans.
"""

from __future__ import annotations

import random
from typing import Any

from citetrace import names
from citetrace.serve import encode_request
from citetrace.summary import SpanRecord

T0 = 1_700_000_000_000_000_000
SPANS_PER_RUN = 10


def run_spans(rng: random.Random, *, with_root: bool = True) -> list[SpanRecord]:
    """One run's spans (root last, as an SDK exports them)."""
    tid = rng.getrandbits(128) | 1
    run_id = f"run-{tid:032x}"[:24]
    urls = [f"https://site{rng.randrange(50)}.example/p/{rng.randrange(10_000)}" for _ in range(20)]
    common: dict[str, Any] = {names.GEN_AI_OPERATION_NAME: names.OP_EXECUTE_TOOL,
                              names.GEN_AI_TOOL_TYPE: names.TOOL_TYPE_FUNCTION, names.RUN_ID: run_id,
                              names.GEN_AI_AGENT_NAME: "bench-agent"}
    out: list[SpanRecord] = []
    sid = 2
    for i in range(4):
        attrs = dict(common, **{names.GEN_AI_TOOL_NAME: "web_search", names.TOOL_KIND: names.TOOL_KIND_SEARCH,
                                names.TOOL_STATUS: names.STATUS_OK, names.RESULT_COUNT: 5, names.RESULT_SIZE: 1200,
                                names.URLS_RETURNED: tuple(urls[i * 5:i * 5 + 5]),
                                names.QUERY_HASH: f"{rng.getrandbits(64):016x}"})
        out.append(SpanRecord(tid, sid, 1, "execute_tool web_search", T0 + sid * 10**7, T0 + sid * 10**7 + 5 * 10**6,
                              attrs))
        sid += 1
    for i in range(5):
        status = names.STATUS_OK if rng.random() > 0.1 else names.STATUS_ERROR
        attrs = dict(common, **{names.GEN_AI_TOOL_NAME: "read_page", names.TOOL_KIND: names.TOOL_KIND_FETCH,
                                names.TOOL_STATUS: status, names.RESULT_SIZE: 5000, names.URL_FULL: urls[i],
                                names.HTTP_RESPONSE_STATUS_CODE: 200, names.SERVER_ADDRESS: "site.example",
                                names.STORE_REF: f"citetrace-store:{run_id}/{'ab' * 32}",
                                names.CONTENT_HASH: "ab" * 32})
        out.append(SpanRecord(tid, sid, 1, "execute_tool read_page", T0 + sid * 10**7, T0 + sid * 10**7 + 9 * 10**6,
                              attrs, status == names.STATUS_ERROR))
        sid += 1
    if with_root:
        out.append(SpanRecord(tid, 1, None, "invoke_agent bench-agent", T0, T0 + 10**9, {
            names.GEN_AI_OPERATION_NAME: names.OP_INVOKE_AGENT, names.GEN_AI_AGENT_NAME: "bench-agent",
            names.RUN_ID: run_id, names.CITATIONS: tuple(urls[:3]), names.ANSWER_HASH: "cd" * 32}))
    return out


def requests(runs: int, *, seed: int = 7, batch_spans: int = 1000, with_root: bool = True,
             service: str = "bench") -> list[bytes]:
    """``runs`` runs as protobuf ExportTraceServiceRequest bodies of about ``batch_spans`` spans each."""
    rng = random.Random(seed)
    spans = [s for _ in range(runs) for s in run_spans(rng, with_root=with_root)]
    return [encode_request(spans[i:i + batch_spans], service_name=service).SerializeToString()
            for i in range(0, len(spans), batch_spans)]
