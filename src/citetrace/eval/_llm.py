"""LLM support judge over any OpenAI-compatible chat-completions endpoint.

One claim per call, temperature 0, a versioned prompt, strict JSON back. The judge must quote the passage
verbatim for any label other than ABSENT, and the quote is checked mechanically against the passages it was
shown; an unverifiable quote, a refusal, an HTTP failure or unparseable output becomes JUDGE_ERROR (counted,
never dropped), because LLM judges drift and an unchecked "SUPPORTED" is worth little.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from typing import Any, Callable, Sequence

import requests
from urllib3.exceptions import InvalidHeader
from urllib3.util.retry import Retry

from citetrace.eval._types import ABSENT, JUDGE_ERROR, JUDGE_LABELS, Passage, Verdict

__all__ = ["LLMJudge", "PROMPT_VERSION", "build_messages", "parse_reply", "retry_after", "DEFAULT_TIMEOUT",
           "DEFAULT_RETRIES"]

_log = logging.getLogger("citetrace.eval")

DEFAULT_TIMEOUT = 30.0
"""Seconds one request may take (``--judge-timeout``)."""
DEFAULT_RETRIES = 2
"""Retries after a 429, a 5xx, a timeout or a connection error (``--judge-retries``)."""
MAX_RETRY_AFTER = 60.0
"""A ``Retry-After`` longer than this gives up at once (JUDGE_ERROR) rather than stalling the evaluation."""


def retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date), None when absent/bad.

    Parsed by urllib3's ``Retry.parse_retry_after`` (what urllib3's own retries honour). The retry loop
    itself stays here: urllib3 has no cap on a Retry-After (a server asking for an hour would stall the
    evaluation; here it is a JUDGE_ERROR at once) and no injectable sleep.
    """
    if not value or not value.strip():
        return None
    try:
        return float(Retry().parse_retry_after(value.strip()))
    except InvalidHeader:
        return None


PROMPT_VERSION = "citation-support-v2"
"""Bump whenever the prompt text or the reply format changes; it is recorded with every verdict."""

_SYSTEM = f"""You check one citation. [prompt {PROMPT_VERSION}]
You get a CLAIM from a research report and PASSAGES from the page it cites, exactly as the author read it.
Answer one question: do the passages support the claim?
- SUPPORTED: the passages state everything the claim says, including every number, date and name.
- PARTIAL: the passages state part of the claim, or a less precise or hedged version; something is missing.
- CONTRADICTED: the passages state something incompatible with the claim (a different number, date,
  direction or name).
- ABSENT: the passages do not address the claim.
When a SENTENCE is given, the CLAIM is one part of it: use the sentence only to know what the claim's words
(such as "it") refer to, and judge the CLAIM alone.
Use only the passages, never outside knowledge. Reply with one JSON object and nothing else:
{{"label": "SUPPORTED|PARTIAL|CONTRADICTED|ABSENT", "quote": "<exact words copied from the passages, or empty for ABSENT>",
"explanation": "<one short sentence>"}}"""


def build_messages(claim: str, passages: Sequence[Passage], context: str | None = None) -> list[dict[str, str]]:
    """The chat messages for one (claim, passages) question; ``context`` is the sentence an atomic claim was
    split from (sent so that "it costs $12 per seat" has a referent; still one claim per call)."""
    body = "\n\n".join(f"PASSAGE {i + 1}:\n{p.text.strip()}" for i, p in enumerate(passages)) or "(no passages)"
    sentence = f"SENTENCE:\n{context.strip()}\n\n" if context and context.strip() != claim.strip() else ""
    return [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": f"CLAIM:\n{claim.strip()}\n\n{sentence}{body}"},
    ]


def _norm(text: str) -> str:
    text = text.replace("“", '"').replace("”", '"').replace("’", "'").replace("‘", "'")
    return " ".join(text.split()).strip().lower()


def parse_reply(content: str, passages: Sequence[Passage], judge: str = "llm") -> Verdict:
    """Turn the model's reply into a verdict; anything unusable becomes JUDGE_ERROR with a flag saying why."""
    raw = content.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", raw, re.S)
    if fenced:
        raw = fenced.group(1)
    try:
        data = json.loads(raw)
    except ValueError:
        return Verdict(JUDGE_ERROR, judge, explanation=f"reply is not JSON: {content[:120]!r}", flags=("parse_error",))
    if not isinstance(data, dict) or not isinstance(data.get("label"), str):
        return Verdict(JUDGE_ERROR, judge, explanation="reply has no string 'label'", flags=("parse_error",))
    label = data["label"].strip().upper()
    if label not in JUDGE_LABELS:
        return Verdict(JUDGE_ERROR, judge, explanation=f"unknown label {data['label']!r}", flags=("parse_error",))
    quote = data.get("quote")
    quote = quote.strip().strip('"').strip() if isinstance(quote, str) else ""
    explanation = str(data.get("explanation") or "")[:500]
    if label != ABSENT:
        if not quote:
            return Verdict(JUDGE_ERROR, judge, explanation=f"{label} without a quote", flags=("missing_quote",))
        if not any(_norm(quote) in _norm(p.text) for p in passages):
            return Verdict(JUDGE_ERROR, judge, quote, f"{label} quote is not in the passages", ("quote_not_verified",))
    return Verdict(label, judge, quote or None, explanation)


class LLMJudge:
    """Judge with a chat-completions endpoint (``base_url`` ends before ``/chat/completions``)."""

    name = "llm"
    version = PROMPT_VERSION

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        backoff: float = 1.0,
        json_mode: bool = False,
        session: requests.Session | None = None,
        max_retry_after: float = MAX_RETRY_AFTER,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"judge endpoint must be an http(s) URL, got {base_url!r}")
        if not model:
            raise ValueError("an LLM judge needs a model name (--judge-model)")
        if not timeout > 0:
            raise ValueError(f"--judge-timeout must be a positive number of seconds, got {timeout!r}")
        if retries < 0:
            raise ValueError(f"--judge-retries must be 0 or more, got {retries!r}")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.json_mode = json_mode
        self.max_retry_after = max_retry_after
        self._sleep = sleep
        self._shared = session
        self._local = threading.local()  # one Session per thread when the judge is asked concurrently

    @property
    def session(self) -> requests.Session:
        if self._shared is not None:
            return self._shared
        session: requests.Session | None = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
        return session

    def _payload(self, claim: str, passages: Sequence[Passage], context: str | None = None) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.model,
            "temperature": 0,
            "messages": build_messages(claim, passages, context),
        }
        if self.json_mode:
            payload["response_format"] = {"type": "json_object"}
        return payload

    def judge(self, claim: str, passages: Sequence[Passage], context: str | None = None) -> Verdict:
        """Ask once (retrying 429/5xx and connection errors); never raises."""
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        problem = ""
        wait: float | None = None
        for attempt in range(self.retries + 1):
            if attempt:
                self._sleep(wait if wait is not None else self.backoff * 2 ** (attempt - 1))
            wait = None
            try:
                resp = self.session.post(self.url, json=self._payload(claim, passages, context), headers=headers,
                                         timeout=self.timeout)
            except requests.RequestException as exc:
                problem = f"request failed: {type(exc).__name__}"
                continue
            if resp.status_code == 429 or resp.status_code >= 500:
                problem = f"HTTP {resp.status_code}"
                wait = retry_after(resp.headers.get("Retry-After"))
                if wait is not None and wait > self.max_retry_after:
                    problem += f" (Retry-After {wait:.0f} s exceeds {self.max_retry_after:.0f} s)"
                    break
                continue
            if resp.status_code >= 400:
                return Verdict(JUDGE_ERROR, self.name, explanation=f"HTTP {resp.status_code}: {resp.text[:200]}",
                               flags=("http_error",))
            return self._verdict(resp, passages)
        _log.warning("citetrace eval: LLM judge gave up (%s)", problem)
        return Verdict(JUDGE_ERROR, self.name, explanation=problem, flags=("http_error",))

    def _verdict(self, resp: requests.Response, passages: Sequence[Passage]) -> Verdict:
        try:
            choice = resp.json()["choices"][0]
            message = choice["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            return Verdict(JUDGE_ERROR, self.name, explanation="response is not a chat completion",
                           flags=("parse_error",))
        if message.get("refusal") or choice.get("finish_reason") == "content_filter":
            return Verdict(JUDGE_ERROR, self.name, explanation=str(message.get("refusal") or "content filter"),
                           flags=("refusal",))
        content = message.get("content")
        if not isinstance(content, str) or not content.strip():
            return Verdict(JUDGE_ERROR, self.name, explanation="empty reply", flags=("parse_error",))
        return parse_reply(content, passages, self.name)
