"""A run whose every field carries markup and script: what an attacker controls on a real run."""

from __future__ import annotations

import time

from citetrace.store import RunRecord, Store, ToolCallRecord

PAYLOAD = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
EVIL_URL = 'https://evil.example/p?q="><script>window.__pwned=3</script>'


def write_hostile_run(store: Store, run_id: str = "hostile-run-0001") -> str:
    """Record a run with injections in the question, query, URLs, page text and answer; return its id."""
    now = time.time()
    answer = (f"Claim one {PAYLOAD} [1]. Claim two [2].\n\n[1] {EVIL_URL}\n[2] javascript:alert(1)//https://x\n"
              "[3] https://ok.example/page")
    store.put_run(RunRecord(run_id, "ab" * 16, f"agent{PAYLOAD}", f"question {PAYLOAD}", now - 2, now, answer))
    store.put_document(run_id, EVIL_URL, f"page text {PAYLOAD} </pre></details><script>window.__pwned=4</script>",
                       status="ok", http_status=200, fetched_at=now - 1)
    store.put_calls([
        ToolCallRecord(run_id, 0, f"search{PAYLOAD}", "search", "ok", now - 2, 12.0, result_count=2,
                       query_text=f"query {PAYLOAD}", urls_returned=(EVIL_URL, "https://ok.example/page")),
        ToolCallRecord(run_id, 1, "fetch", "fetch", "ok", now - 1.5, 30.0, http_status=200, url=EVIL_URL,
                       result_size=120),
        ToolCallRecord(run_id, 2, "fetch", "fetch", "error", now - 1.2, 5.0, url="javascript:alert(2)",
                       error_type=f"Err{PAYLOAD}"),
    ])
    store.put_summary(run_id, {"searches": 1, "reads": 2, "citations": 3, "uncited_from_retrieval": 1,
                               "cited_not_fetched": 1, "failure_reasons": [f"uncited_url{PAYLOAD}"]},
                      trace_id="ab" * 16, agent="agent")
    return run_id
