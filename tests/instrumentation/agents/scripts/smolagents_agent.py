"""A smolagents research agent with a scripted model and smolagents' own web tools (not citetrace-aware).

Usage: ``python smolagents_agent.py BASE MODE`` with MODE ``tool`` (ToolCallingAgent, ``run``), ``stream``
(the same, ``run(stream=True)`` drained), ``code`` (CodeAgent: tools called from its executor's worker
thread), ``managed`` (a manager whose managed agent does the research), or ``submit`` / ``map`` /
``run_in_executor``: the pages are read by the agent's own ``read_pages`` tool, which fans the reads out to
a thread pool that way (as deep-research agents do). Prints the answer.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the test directory, for the fake network

from _fakenet import reroute  # noqa: E402

BASE, MODE = sys.argv[1], sys.argv[2]
reroute(BASE)

import asyncio  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

from smolagents import CodeAgent, Tool, ToolCallingAgent  # noqa: E402
from smolagents.default_tools import DuckDuckGoSearchTool, VisitWebpageTool, WebSearchTool  # noqa: E402
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, Model  # noqa: E402

ANSWER = "Solar grew fast [1](https://lite.example/0), says [2](https://never.example/z)."
VISITS = ["https://lite.example/0", "https://gone.example/x", "https://slow.example/y"]


def call(i: int, name: str, **arguments: Any) -> ChatMessageToolCall:
    return ChatMessageToolCall(ChatMessageToolCallFunction(name=name, arguments=arguments), id=f"c{i}",
                               type="function")


class Scripted(Model):
    """Answers from a fixed list of assistant messages, one per model call."""

    def __init__(self, steps: list[ChatMessage]) -> None:
        super().__init__(model_id="scripted")
        self.steps = steps

    def generate(self, messages: Any, stop_sequences: Any = None, response_format: Any = None,
                 tools_to_call_from: Any = None, **kwargs: Any) -> ChatMessage:
        return self.steps.pop(0)


POOL = ThreadPoolExecutor(max_workers=3, thread_name_prefix="readers")  # the application's, made up front


class ReadPages(Tool):
    """The agent's own fan-out reader: VisitWebpageTool over a thread pool."""

    name = "read_pages"
    description = "Read several web pages at once."
    inputs = {"urls": {"type": "string", "description": "comma-separated URLs"}}
    output_type = "string"

    def forward(self, urls: str) -> str:
        visit = VisitWebpageTool()
        todo = urls.split(",")
        if MODE == "submit":
            pages = [f.result() for f in [POOL.submit(visit, u) for u in todo]]
        elif MODE == "map":
            pages = list(POOL.map(visit, todo))
        else:
            async def gather() -> list[str]:
                loop = asyncio.get_running_loop()
                return list(await asyncio.gather(*(loop.run_in_executor(None, visit, u) for u in todo)))

            pages = asyncio.run(gather())
        return "\n\n".join(pages)


def tool_steps() -> list[ChatMessage]:
    if MODE in ("submit", "map", "run_in_executor"):
        reads = [call(3, "read_pages", urls=",".join(VISITS))]
    else:
        reads = [call(3 + i, "visit_webpage", url=u) for i, u in enumerate(VISITS)]  # parallel tool calls
    return [
        ChatMessage(role="assistant", content="", tool_calls=[call(1, "web_search", query="solar growth")]),
        ChatMessage(role="assistant", content="", tool_calls=[call(2, "duckduckgo_search", query="nothing")]),
        ChatMessage(role="assistant", content="", tool_calls=reads),
        ChatMessage(role="assistant", content="", tool_calls=[call(9, "final_answer", answer=ANSWER)]),
    ]


CODE_STEPS = [
    "Thought: search.\n<code>\nprint(web_search(query='solar growth'))\n</code>",
    "Thought: more.\n<code>\ntry:\n    duckduckgo_search(query='nothing')\nexcept Exception as e:\n"
    f"    print(e)\npages = [visit_webpage(url=u) for u in {VISITS!r}]\nprint(len(pages))\n</code>",
    f"Thought: done.\n<code>\nfinal_answer({ANSWER!r})\n</code>",
]


def tools() -> list[Any]:
    ddg = DuckDuckGoSearchTool()
    ddg.name = "duckduckgo_search"  # both search tools are called web_search by default
    return [WebSearchTool(engine="duckduckgo"), ddg, VisitWebpageTool(), ReadPages()]


if MODE in ("tool", "stream", "submit", "map", "run_in_executor"):
    agent: Any = ToolCallingAgent(tools=tools(), model=Scripted(tool_steps()), max_steps=6, verbosity_level=0)
    if MODE == "tool":
        out = agent.run("How fast is solar growing?")
    else:
        steps = list(agent.run("How fast is solar growing?", stream=True))
        out = steps[-1].output
elif MODE == "code":
    agent = CodeAgent(tools=tools(), model=Scripted([ChatMessage(role="assistant", content=c) for c in CODE_STEPS]),
                      max_steps=5, verbosity_level=0)
    out = agent.run("How fast is solar growing?")
else:
    researcher = ToolCallingAgent(tools=tools(), model=Scripted(tool_steps()), max_steps=6, verbosity_level=0,
                                  name="researcher", description="Researches the web.")
    boss = ToolCallingAgent(tools=[], managed_agents=[researcher], verbosity_level=0, max_steps=3, name="boss",
                            model=Scripted([
                                ChatMessage(role="assistant", content="", tool_calls=[
                                    call(1, "researcher", task="How fast is solar growing?")]),
                                ChatMessage(role="assistant", content="", tool_calls=[
                                    call(2, "final_answer", answer=ANSWER)])]))
    out = boss.run("Write a cited note on solar growth.")
print(json.dumps({"answer": out}))
