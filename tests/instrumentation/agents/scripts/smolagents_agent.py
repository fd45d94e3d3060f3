"""A smolagents research agent with a scripted model and smolagents' own web tools (not citetrace-aware).

Usage: ``python smolagents_agent.py BASE MODE[,MODE...]``, each MODE one invocation, in order, by an agent
named ``{MODE}_agent`` (the managed case: ``boss``). MODE is ``tool`` (ToolCallingAgent, ``run``), ``stream``
(the same, ``run(stream=True)`` drained), ``code`` (CodeAgent: tools called from its executor's worker
thread), ``managed`` (a manager whose managed agent does the research), or ``submit`` / ``map`` /
``run_in_executor``: the pages are read by the agent's own ``read_pages`` tool, which fans the reads out to
a thread pool that way (as deep-research agents do). Prints ``{"answers": {MODE: answer}}``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the test directory, for the fake network

from _fakenet import reroute  # noqa: E402
from _smolscript import Scripted  # noqa: E402

BASE, MODES = sys.argv[1], sys.argv[2].split(",")
reroute(BASE)

import asyncio  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

from smolagents import CodeAgent, Tool, ToolCallingAgent  # noqa: E402
from smolagents.default_tools import DuckDuckGoSearchTool, VisitWebpageTool, WebSearchTool  # noqa: E402
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction  # noqa: E402

ANSWER = "Solar grew fast [1](https://lite.example/0), says [2](https://never.example/z)."
VISITS = ["https://lite.example/0", "https://gone.example/x", "https://slow.example/y"]


def call(i: int, name: str, **arguments: Any) -> ChatMessageToolCall:
    return ChatMessageToolCall(ChatMessageToolCallFunction(name=name, arguments=arguments), id=f"c{i}",
                               type="function")


POOL = ThreadPoolExecutor(max_workers=3, thread_name_prefix="readers")  # the application's, made up front


class ReadPages(Tool):
    """The agent's own fan-out reader: VisitWebpageTool over a thread pool."""

    name = "read_pages"
    description = "Read several web pages at once."
    inputs = {"urls": {"type": "string", "description": "comma-separated URLs"}}
    output_type = "string"

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def forward(self, urls: str) -> str:
        visit = VisitWebpageTool()
        todo = urls.split(",")
        if self.mode == "submit":
            pages = [f.result() for f in [POOL.submit(visit, u) for u in todo]]
        elif self.mode == "map":
            pages = list(POOL.map(visit, todo))
        else:
            async def gather() -> list[str]:
                loop = asyncio.get_running_loop()
                return list(await asyncio.gather(*(loop.run_in_executor(None, visit, u) for u in todo)))

            pages = asyncio.run(gather())
        return "\n\n".join(pages)


def tool_steps(mode: str) -> list[ChatMessage]:
    if mode in ("submit", "map", "run_in_executor"):
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


def tools(mode: str) -> list[Any]:
    ddg = DuckDuckGoSearchTool()
    ddg.name = "duckduckgo_search"  # both search tools are called web_search by default
    return [WebSearchTool(engine="duckduckgo"), ddg, VisitWebpageTool(), ReadPages(mode)]


QUESTION = "How fast is solar growing?"


def invoke(mode: str) -> Any:
    """One invocation of the agent this mode describes; returns its answer."""
    name = f"{mode}_agent"
    if mode == "code":
        steps = [ChatMessage(role="assistant", content=c) for c in CODE_STEPS]
        return CodeAgent(tools=tools(mode), model=Scripted(steps), max_steps=5, verbosity_level=0, name=name).run(QUESTION)
    if mode == "managed":
        researcher = ToolCallingAgent(tools=tools(mode), model=Scripted(tool_steps(mode)), max_steps=6,
                                      verbosity_level=0, name="researcher", description="Researches the web.")
        boss_steps = [ChatMessage(role="assistant", content="", tool_calls=[call(1, "researcher", task=QUESTION)]),
                      ChatMessage(role="assistant", content="", tool_calls=[call(2, "final_answer", answer=ANSWER)])]
        boss = ToolCallingAgent(tools=[], managed_agents=[researcher], verbosity_level=0, max_steps=3, name="boss",
                                model=Scripted(boss_steps))
        return boss.run("Write a cited note on solar growth.")
    agent = ToolCallingAgent(tools=tools(mode), model=Scripted(tool_steps(mode)), max_steps=6, verbosity_level=0,
                             name=name)
    if mode == "stream":
        return list(agent.run(QUESTION, stream=True))[-1].output
    return agent.run(QUESTION)


print(json.dumps({"answers": {mode: invoke(mode) for mode in MODES}}))
