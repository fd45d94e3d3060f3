"""The LLM judge's time bounds: --judge-timeout, --judge-retries and Retry-After, against real local servers."""

from __future__ import annotations

import email.utils
import json
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable, Iterator

import pytest

from citetrace.eval import ABSENT, JUDGE_ERROR, LLMJudge, Passage, make_judge
from citetrace.eval._llm import retry_after

from .conftest import UNEMPLOYMENT, reply

PASSAGES = [Passage(UNEMPLOYMENT, 0, len(UNEMPLOYMENT))]
CLAIM = "Unemployment rose to 4.2% in March 2024."
ABSENT_REPLY = {"choices": [{"index": 0, "finish_reason": "stop", "message": {
    "role": "assistant", "content": json.dumps({"label": "ABSENT", "quote": "", "explanation": "no"})}}]}


def scripted(http_server: Callable[..., str], answers: list[tuple[int, dict[str, str]]], seen: list[float]) -> str:
    """A chat server that answers (status, headers) in order, then the ABSENT verdict."""
    def handle(h: BaseHTTPRequestHandler) -> None:
        h.rfile.read(int(h.headers["Content-Length"]))
        seen.append(time.monotonic())
        if answers:
            status, headers = answers.pop(0)
            reply(h, status, {"error": "busy"}, headers)
        else:
            reply(h, 200, ABSENT_REPLY, {"Content-Type": "application/json"})

    return http_server(handle) + "/v1"


def test_retry_after_seconds_is_waited(http_server: Callable[..., str]) -> None:
    """A 429 with Retry-After: 2 makes the judge wait exactly 2 s (not its backoff) before the retry."""
    seen: list[float] = []
    waits: list[float] = []
    url = scripted(http_server, [(429, {"Retry-After": "2"}), (503, {})], seen)
    judge = LLMJudge(url, "m", retries=2, backoff=0.25, sleep=waits.append)
    assert judge.judge(CLAIM, PASSAGES).label == ABSENT
    assert waits == [2.0, 0.5] and len(seen) == 3  # Retry-After, then the backoff of the second retry


def test_retry_after_http_date_and_garbage() -> None:
    """An HTTP-date Retry-After becomes the seconds until then; a bad value is ignored."""
    soon = email.utils.format_datetime(email.utils.localtime(), usegmt=False)
    assert retry_after(soon) is not None and retry_after(soon) <= 1.0  # type: ignore[operator]
    future = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 28 <= (retry_after(future) or 0) <= 30
    assert retry_after("soon") is None and retry_after(None) is None


def test_too_long_retry_after_gives_up_at_once(http_server: Callable[..., str]) -> None:
    """A Retry-After beyond the cap is a JUDGE_ERROR after one request, with the reason, and no wait."""
    seen: list[float] = []
    waits: list[float] = []
    url = scripted(http_server, [(429, {"Retry-After": "3600"})], seen)
    v = LLMJudge(url, "m", retries=3, sleep=waits.append).judge(CLAIM, PASSAGES)
    assert v.label == JUDGE_ERROR and "Retry-After 3600" in v.explanation
    assert waits == [] and len(seen) == 1


@pytest.fixture
def hanging(http_server: Callable[..., str]) -> Iterator[tuple[str, list[float]]]:
    """A server that reads the request and never answers until the test ends."""
    release = threading.Event()
    seen: list[float] = []

    def handle(h: BaseHTTPRequestHandler) -> None:
        h.rfile.read(int(h.headers["Content-Length"]))
        seen.append(time.monotonic())
        release.wait(10)

    yield http_server(handle) + "/v1", seen
    release.set()


def test_hanging_endpoint_is_bounded_by_timeout_and_retries(hanging: tuple[str, list[float]]) -> None:
    """--judge-timeout 0.3 with --judge-retries 1: two attempts, then JUDGE_ERROR (not 3 x 60 s)."""
    url, seen = hanging
    judge = make_judge("llm", model="m", base_url=url, environ={}, timeout=0.3, retries=1)
    assert isinstance(judge, LLMJudge) and judge.timeout == 0.3 and judge.retries == 1
    judge.backoff = 0.0
    started = time.monotonic()
    v = judge.judge(CLAIM, PASSAGES)
    assert v.label == JUDGE_ERROR and "Timeout" in v.explanation
    assert len(seen) == 2 and time.monotonic() - started < 5


@pytest.mark.parametrize("kwargs, message", [({"timeout": 0}, "--judge-timeout"), ({"retries": -1}, "--judge-retries")])
def test_bad_bounds_are_named(kwargs: dict[str, Any], message: str) -> None:
    """A non-positive timeout or negative retry count is a one-line error naming the option."""
    with pytest.raises(ValueError, match=message):
        make_judge("llm", model="m", base_url="http://127.0.0.1:9/v1", environ={}, **kwargs)
