"""LiteLLM (in ``.venv-storm``, where knowledge-storm brings it) calling Anthropic with server-side web search:
LiteLLM posts with httpx, never through the anthropic SDK, so only the HTTP layer's provider rules see the
answer. With environment variables only: the search is in the run's summary, the model's citation that the
text does not carry is counted, and the URL no search returned is the uncited one."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from .._net import LocalServer
from .._sidevenv import side_python

SCRIPT = Path(__file__).parent / "scripts" / "litellm_anthropic_agent.py"
A, B, MADE_UP = "https://solar.example/a", "https://solar.example/b", "https://made.example/up"


def _message() -> dict[str, object]:
    result = [{"type": "web_search_result", "url": u, "title": "t", "encrypted_content": "E", "page_age": None}
              for u in (A, B)]
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "stop_reason": "end_turn", "stop_sequence": None,
            "content": [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "solar"}},
                        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": result},
                        {"type": "text", "text": "Solar grew 24 percent.", "citations": [
                            {"type": "web_search_result_location", "url": A, "title": "t", "cited_text": "24",
                             "encrypted_index": "E"}]},
                        {"type": "text", "text": f" See also {MADE_UP}."}],
            "usage": {"input_tokens": 1, "output_tokens": 1, "server_tool_use": {"web_search_requests": 1}}}


def test_litellm_anthropic_web_search_is_in_the_run(tmp_path: Path, server: LocalServer) -> None:
    """One provider-side search with both results, two citations (the model's and the text's), one uncited."""
    server.routes["/v1/messages"] = (200, json.dumps(_message()), "application/json")
    store = f"sqlite:///{tmp_path / 'store.db'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITETRACE_", "OTEL_"))}
    env.update(CITETRACE_AUTO_INSTRUMENT="true", OTEL_TRACES_EXPORTER="none", CITETRACE_STORE=store,
               LITELLM_LOCAL_MODEL_COST_MAP="True")
    python = side_python("storm")
    done = subprocess.run([python, str(SCRIPT), f"http://api.anthropic.com:{server.port}"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    assert [(m, p) for m, p, _b in server.requests] == [("POST", "/v1/messages")]
    listed = subprocess.run([python, "-m", "citetrace", "runs", "--json", "--store", store], env=env,
                            capture_output=True, text=True, timeout=60)
    (run,) = json.loads(listed.stdout)
    summary = run["summary"]
    assert (summary["searches"], summary["citations"], summary["uncited_from_retrieval"]) == (1, 2, 1)
    assert summary["uncited_urls"] == [MADE_UP]
