"""What the approval tests share (OpenAI Agents SDK tool approvals, PydanticAI deferred tools): one page,
a report citing it, and citetrace ``traced_tool`` search and fetch functions the frameworks' tools call."""

from __future__ import annotations

from citetrace import traced_tool

PAGE = "https://a.example/solar"
ANSWER = f"Solar grew 24 percent [1]({PAGE})."


@traced_tool(kind="search")
def search(query: str) -> list[dict[str, str]]:
    return [{"url": PAGE, "title": "Solar"}]


@traced_tool(kind="fetch")
def fetch(url: str) -> str:
    return "Solar capacity grew 24 percent in 2024, the bureau says. " * 4
