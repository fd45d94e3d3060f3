"""A research agent on PydanticAI: a scripted ``FunctionModel``, PydanticAI's own ``tavily_search`` and
``web_fetch`` tools over the fake network. Imports nothing of citetrace (except in ``user_run`` mode)."""
import asyncio
import json
import sys
from typing import AsyncIterator

from pydantic_ai import Agent, RunContext
from pydantic_ai.common_tools.tavily import tavily_search_tool
from pydantic_ai.common_tools.web_fetch import web_fetch_tool
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from tavily import AsyncTavilyClient

base, mode, answer = sys.argv[1], sys.argv[2], sys.argv[3]
SESSION = [("tavily_search", {"query": "what is opentelemetry"}), ("tavily_search", {"query": "nothing at all"}),
           ("web_fetch", {"url": base + "/page/a"}), ("web_fetch", {"url": base + "/gone/x"}),
           ("web_fetch", {"url": base + "/slow/x"})]


def scripted(calls: list) -> FunctionModel:
    """One tool call per model turn, then the answer (the turn is the number of requests so far)."""

    def respond(messages: list, info: AgentInfo) -> ModelResponse:
        turn = sum(isinstance(m, ModelRequest) for m in messages) - 1
        if turn < len(calls):
            name, args = calls[turn]
            return ModelResponse(parts=[ToolCallPart(name, json.dumps(args), tool_call_id=f"call-{turn}")])
        return ModelResponse(parts=[TextPart(answer)])

    async def stream(messages: list, info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        response = respond(messages, info)
        part = response.parts[0]
        if isinstance(part, TextPart):
            yield part.content
        else:
            yield {0: DeltaToolCall(name=part.tool_name, json_args=part.args, tool_call_id=part.tool_call_id)}

    return FunctionModel(respond, stream_function=stream)


def researcher(name: str = "researcher", instrument: bool = False) -> Agent:
    tools = [tavily_search_tool(client=AsyncTavilyClient(api_key="k", api_base_url=base)),
             web_fetch_tool(allow_local_urls=True, timeout=5)]
    agent = Agent(scripted(SESSION), name=name, tools=tools, retries=3)
    if instrument:
        agent.instrument = True
    return agent


async def main() -> object:
    if mode == "run":
        return (await researcher().run("What is OpenTelemetry?")).output == answer
    if mode == "instrumented":  # PydanticAI's own OpenTelemetry spans on as well
        return (await researcher(instrument=True).run("What is OpenTelemetry?")).output == answer
    if mode == "usage_limit":
        from pydantic_ai.usage import UsageLimits

        try:
            await researcher().run("What is OpenTelemetry?", usage_limits=UsageLimits(request_limit=2))
        except Exception as exc:  # noqa: BLE001 - the framework's own error type is what the run records
            return type(exc).__name__
        return "no error"
    if mode == "iter":
        async with researcher().iter("What is OpenTelemetry?") as agent_run:
            async for _node in agent_run:
                pass
        return agent_run.result is not None and agent_run.result.output == answer
    if mode == "stream_events":
        async with researcher().run_stream_events("What is OpenTelemetry?") as stream:
            events = [event async for event in stream]
        return type(events[-1]).__name__ == "AgentRunResultEvent" and events[-1].result.output == answer
    if mode == "run_stream":
        async with researcher().run_stream("What is OpenTelemetry?") as streamed:
            output = await streamed.get_output()
        return output == answer
    if mode == "nested":
        sub = researcher()
        editor = Agent(scripted([("research", {"question": "What is OpenTelemetry?"})]), name="editor")

        @editor.tool
        async def research(ctx: RunContext[None], question: str) -> str:
            """Delegate the research to the researcher agent."""
            return (await sub.run(question, usage=ctx.usage)).output

        return (await editor.run("Write a cited note on OpenTelemetry")).output == answer
    if mode == "concurrent":
        results = await asyncio.gather(researcher("r1").run("Q1"), researcher("r2").run("Q2"))
        return [r.output == answer for r in results]
    raise SystemExit(f"unknown mode {mode}")


if mode == "sync":
    print(researcher().run_sync("What is OpenTelemetry?").output == answer)
else:
    print(asyncio.run(main()))
