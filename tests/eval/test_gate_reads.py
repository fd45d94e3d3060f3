"""The gate and eval say what happened to a cited page the run could not check: never fetched, fetched and
failed (a 404), or fetched with no text to store (a PDF the model read server-side). Before, all three were
"cited but never fetched", which the run's own summary contradicts for the last two. A real run: a
``@traced_tool`` fetch with requests and the real anthropic client (server-side ``web_fetch``), both against
a server on 127.0.0.1."""

from __future__ import annotations

import base64
import json
from typing import Iterator

import anthropic
import pytest
import requests

from citetrace import names, traced_tool
from citetrace.eval import evaluate_run, gate
from citetrace.store import MemoryStore

from _instrumented import summarized_run
from instrumentation._net import LocalServer

PDF_URL = "https://docs.example/report.pdf"
NEVER = "https://never.example/page"


@traced_tool(kind="fetch")
def read_page(url: str) -> str:
    """Read one page."""
    response = requests.get(url, timeout=5)
    response.raise_for_status()
    return response.text


def _message() -> dict[str, object]:
    pdf = base64.b64encode(b"%PDF-1.4 binary").decode()
    blocks = [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_fetch", "input": {"url": PDF_URL}},
        {"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_1", "content": {
            "type": "web_fetch_result", "url": PDF_URL, "retrieved_at": "2026-11-30T10:00:00Z",
            "content": {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": pdf}}}},
        {"type": "text", "text": "Read."},
    ]
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-scripted", "stop_reason": "end_turn",
            "stop_sequence": None, "content": blocks, "usage": {"input_tokens": 1, "output_tokens": 1}}


@pytest.fixture
def server() -> Iterator[LocalServer]:
    """A page that is gone and an Anthropic Messages endpoint, on 127.0.0.1."""
    with LocalServer() as srv:
        srv.routes["/gone"] = (404, "<html>Not found</html>", "text/html")
        srv.routes["/v1/messages"] = (200, json.dumps(_message()), "application/json")
        yield srv


def test_gate_names_failed_and_textless_reads_apart_from_unfetched(server: LocalServer) -> None:
    """Three cited URLs the run cannot check fail the gate, each with what really happened to it."""
    store = MemoryStore()
    with summarized_run(store) as run:
        with pytest.raises(requests.HTTPError):
            read_page(f"{server.base}/gone")
        client = anthropic.Anthropic(base_url=server.base, api_key="sk-ant-test", max_retries=0)
        client.messages.create(model="claude-scripted", max_tokens=10, messages=[{"role": "user", "content": "q"}],
                               tools=[{"type": "web_fetch_20250910", "name": "web_fetch"}])
        run.record_answer(f"Solar grew [1]. The report agrees [2]. Nobody read this [3].\n\n"
                          f"[1] {server.base}/gone\n[2] {PDF_URL}\n[3] {NEVER}\n")
    ev = evaluate_run(store, run.id, offline=True)
    flags = {p.pair.url: p.flags() for p in ev.pairs if p.pair.url}
    assert "fetch_failed" in flags[f"{server.base}/gone"] and "unfetched" not in flags[f"{server.base}/gone"]
    assert "fetch_failed" in flags[PDF_URL] and "unfetched" not in flags[PDF_URL]
    assert "unfetched" in flags[NEVER]
    assert ev.unfetched_urls == [f"{server.base}/gone", PDF_URL, NEVER]  # still never read successfully
    result = gate(ev, rules=(names.GATE_UNFETCHED,))
    assert result.failures == [
        (names.GATE_UNFETCHED, f"cited, but its read failed in run {run.id} (error, HTTP 404): {server.base}/gone"),
        (names.GATE_UNFETCHED, f"cited and read in run {run.id}, but no text of it was stored (ok), so it cannot "
                               f"be checked: {PDF_URL}"),
        (names.GATE_UNFETCHED, f"cited but never fetched in run {run.id}: {NEVER}"),
    ]
