"""The LLM judge's client against a local server that speaks the chat-completions protocol."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable

from citetrace.eval import ABSENT, JUDGE_ERROR, PROMPT_VERSION, SUPPORTED, LLMJudge, Passage

from .conftest import UNEMPLOYMENT, reply

PASSAGES = [Passage(UNEMPLOYMENT, 0, len(UNEMPLOYMENT))]
CLAIM = "Unemployment rose to 4.2% in March 2024."


def completion(content: str | None, **message: Any) -> dict[str, Any]:
    return {"id": "x", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content, **message}}]}


def chat_server(http_server: Callable[..., str], answers: list[tuple[int, Any]],
                seen: list[dict[str, Any]]) -> str:
    def handle(h: BaseHTTPRequestHandler) -> None:
        body = json.loads(h.rfile.read(int(h.headers["Content-Length"])))
        seen.append({"path": h.path, "auth": h.headers.get("Authorization"), "body": body})
        status, payload = answers.pop(0) if answers else (500, {"error": "no more answers"})
        reply(h, status, payload, {"Content-Type": "application/json"})

    return http_server(handle) + "/v1"


def test_supported_with_a_verified_quote(http_server: Callable[..., str]) -> None:
    """A SUPPORTED answer whose quote is in the passage is accepted; the request is temperature 0, one claim."""
    seen: list[dict[str, Any]] = []
    answer = json.dumps({"label": "SUPPORTED", "quote": "The unemployment rate rose to 4.2% in March 2024",
                         "explanation": "stated"})
    url = chat_server(http_server, [(200, completion(answer))], seen)
    v = LLMJudge(url, "judge-model", api_key="sk-test").judge(CLAIM, PASSAGES)
    assert v.label == SUPPORTED and v.quote is not None and "4.2%" in v.quote
    (req,) = seen
    assert req["path"] == "/v1/chat/completions" and req["auth"] == "Bearer sk-test"
    assert req["body"]["temperature"] == 0 and req["body"]["model"] == "judge-model"
    assert PROMPT_VERSION in req["body"]["messages"][0]["content"]
    assert req["body"]["messages"][1]["content"].count("CLAIM:") == 1 and CLAIM in req["body"]["messages"][1]["content"]


def test_invented_quote_is_a_judge_error(http_server: Callable[..., str]) -> None:
    """A quote that is not in the passages makes the verdict JUDGE_ERROR, not SUPPORTED."""
    answer = json.dumps({"label": "SUPPORTED", "quote": "unemployment fell to 3%", "explanation": ""})
    v = LLMJudge(chat_server(http_server, [(200, completion(answer))], []), "m").judge(CLAIM, PASSAGES)
    assert v.label == JUDGE_ERROR and v.flags == ("quote_not_verified",)


def test_fenced_json_and_absent_without_quote(http_server: Callable[..., str]) -> None:
    """JSON inside a code fence is accepted, and ABSENT needs no quote."""
    answer = "```json\n" + json.dumps({"label": "absent", "quote": "", "explanation": "not addressed"}) + "\n```"
    v = LLMJudge(chat_server(http_server, [(200, completion(answer))], []), "m").judge(CLAIM, PASSAGES)
    assert v.label == ABSENT


def test_refusal_parse_errors_and_bad_labels_are_counted(http_server: Callable[..., str]) -> None:
    """Refusals, prose replies and unknown labels all become JUDGE_ERROR with the reason as a flag."""
    answers = [(200, completion(None, refusal="I can't help with that")),
               (200, completion("I think it is supported.")),
               (200, completion(json.dumps({"label": "MOSTLY_TRUE", "quote": "x"}))),
               (200, {"unexpected": True}),
               (400, {"error": {"message": "bad model"}})]
    judge = LLMJudge(chat_server(http_server, answers, []), "m", retries=0)
    flags = [judge.judge(CLAIM, PASSAGES).flags for _ in range(5)]
    assert flags == [("refusal",), ("parse_error",), ("parse_error",), ("parse_error",), ("http_error",)]


def test_server_errors_are_retried_then_counted(http_server: Callable[..., str]) -> None:
    """A 503 then a 429 are retried; after the retries a persistent 500 is a JUDGE_ERROR."""
    answer = json.dumps({"label": "ABSENT", "quote": "", "explanation": ""})
    seen: list[dict[str, Any]] = []
    url = chat_server(http_server, [(503, {}), (429, {}), (200, completion(answer))], seen)
    assert LLMJudge(url, "m", retries=2, backoff=0.01).judge(CLAIM, PASSAGES).label == ABSENT
    assert len(seen) == 3
    v = LLMJudge(url, "m", retries=1, backoff=0.01).judge(CLAIM, PASSAGES)
    assert v.label == JUDGE_ERROR and v.flags == ("http_error",)


def test_unreachable_endpoint_is_a_judge_error() -> None:
    """Connection refused becomes JUDGE_ERROR instead of an exception."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    v = LLMJudge(f"http://127.0.0.1:{port}/v1", "m", retries=0, timeout=2).judge(CLAIM, PASSAGES)
    assert v.label == JUDGE_ERROR and "ConnectionError" in v.explanation


def test_concurrent_claims_are_bounded_and_one_per_call(http_server: Callable[..., str]) -> None:
    """With workers=3, at most three claims are in flight, each request carrying exactly one claim."""
    import threading

    from citetrace.eval import evaluate_report
    from citetrace.store import MemoryStore

    from .conftest import make_run

    lock = threading.Lock()
    state = {"active": 0, "peak": 0, "calls": 0}
    three_at_once = threading.Event()  # each call is held until three are in flight together (no timing)

    def handle(h: BaseHTTPRequestHandler) -> None:
        body = json.loads(h.rfile.read(int(h.headers["Content-Length"])))
        with lock:
            state["active"] += 1
            state["calls"] += 1
            state["peak"] = max(state["peak"], state["active"])
            if state["active"] == 3:
                three_at_once.set()
        assert body["messages"][1]["content"].count("CLAIM:") == 1
        three_at_once.wait(10)
        with lock:
            state["active"] -= 1
        reply(h, 200, completion(json.dumps({"label": "ABSENT", "quote": "", "explanation": ""})))

    store = MemoryStore()
    report = " ".join(f"Claim number {i} about wages [1]." for i in range(8)) + "\n\n[1] https://stats.example/unemployment\n"
    make_run(store, report)
    ev = evaluate_report(store, "run-1", report, judge=LLMJudge(http_server(handle) + "/v1", "m"), workers=3)
    assert state["calls"] == 8 and state["peak"] == 3
    assert ev.rates["judge_error_rate"].numerator == 0 and ev.label_counts() == {"ABSENT": 8}
