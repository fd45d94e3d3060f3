"""A research crew on CrewAI: a scripted ``BaseLLM`` answering in CrewAI's own ReAct text format, and
crewai-tools' ``SerperDevTool`` and ``ScrapeWebsiteTool`` over the fake network. Imports nothing of citetrace.
Runs in the CrewAI venv (CrewAI cannot be installed next to the other frameworks)."""
import asyncio
import json
import sys
from typing import Any

from crewai import Agent, Crew, Task
from crewai.llms.base_llm import BaseLLM
from crewai_tools import ScrapeWebsiteTool, SerperDevTool

base, mode, answer = sys.argv[1], sys.argv[2], sys.argv[3].strip()  # CrewOutput.raw is stripped
SEARCH, READ = "Search the internet with Serper", "Read website content"
SESSION = [(SEARCH, {"search_query": "what is opentelemetry"}), (SEARCH, {"search_query": "nothing at all"}),
           (SEARCH, {"search_query": "throttle me"}), (READ, {"website_url": base + "/page/a"}),
           (READ, {"website_url": base + "/gone/x"})]


class ScriptedLLM(BaseLLM):
    """One tool call per model turn, then the final answer (the turn is the number of calls so far). With
    ``native``, it calls tools the function-calling way instead, two at a time (CrewAI runs them in parallel)."""

    calls: int = 0
    native: bool = False

    def call(self, messages: Any, tools: Any = None, callbacks: Any = None, available_functions: Any = None,
             from_task: Any = None, from_agent: Any = None, response_model: Any = None) -> Any:
        turn, self.calls = self.calls, self.calls + 1
        if self.native and 2 * turn < len(SESSION):
            pair = SESSION[2 * turn:2 * turn + 2]
            return [{"id": f"call-{turn}-{i}", "type": "function",
                     "function": {"name": name.lower().replace(" ", "_"), "arguments": json.dumps(args)}}
                    for i, (name, args) in enumerate(pair)]
        if self.native:
            return answer
        if turn < len(SESSION):
            name, args = SESSION[turn]
            return f"Thought: I need more.\nAction: {name}\nAction Input: {json.dumps(args)}"
        return f"Thought: I know the answer.\nFinal Answer: {answer}"

    def supports_function_calling(self) -> bool:
        return self.native


def crew(name: str = "research crew", stream: bool = False, native: bool = False) -> Crew:
    researcher = Agent(role="researcher", goal="answer with sources", backstory="careful", allow_delegation=False,
                       tools=[SerperDevTool(base_url=base + "/serper"), ScrapeWebsiteTool()],
                       llm=ScriptedLLM(model="scripted", native=native), max_iter=10, verbose=False)
    task = Task(description="Research: {topic}", expected_output="a cited note", agent=researcher)
    return Crew(name=name, agents=[researcher], tasks=[task], verbose=False, stream=stream)


INPUTS = {"topic": "What is OpenTelemetry?"}


async def main() -> object:
    if mode == "akickoff":
        return (await crew().akickoff(inputs=INPUTS)).raw == answer
    if mode == "kickoff_async":
        return (await crew().kickoff_async(inputs=INPUTS)).raw == answer
    if mode == "concurrent":
        results = await asyncio.gather(crew("c1").akickoff(inputs={"topic": "Q1"}),
                                       crew("c2").akickoff(inputs={"topic": "Q2"}))
        return [r.raw == answer for r in results]
    raise SystemExit(f"unknown mode {mode}")


if mode == "kickoff":
    print(crew().kickoff(inputs=INPUTS).raw == answer)
elif mode == "native":
    print(crew(native=True).kickoff(inputs=INPUTS).raw == answer)
elif mode == "stream":
    streaming = crew(stream=True).kickoff(inputs=INPUTS)
    for _chunk in streaming:  # the scripted LLM does not stream tokens: there may be no chunks
        pass
    print(streaming.result.raw == answer)
elif mode == "for_each":
    outputs = crew().kickoff_for_each(inputs=[{"topic": "Q1"}, {"topic": "Q2"}])
    print([o.raw == answer for o in outputs])
else:
    print(asyncio.run(main()))
