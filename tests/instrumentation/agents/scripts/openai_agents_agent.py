"""A research agent on the OpenAI Agents SDK: a scripted model, Tavily over the fake network."""
import asyncio
import json
import sys

from agents import Agent, MaxTurnsExceeded, ModelSettings, OpenAIResponsesModel, Runner, WebSearchTool, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call
from openai import AsyncOpenAI
from tavily import TavilyClient

base, mode, answer = sys.argv[1], sys.argv[2], sys.argv[3]
client = TavilyClient(api_key="k", api_base_url=base)


@function_tool
def web_search(query: str) -> str:
    """Search the web."""
    return json.dumps(client.search(query)["results"])


@function_tool
def read_page(url: str) -> str:
    """Read one page."""
    return json.dumps(client.extract(url)["results"])


def session() -> list:
    calls = [("web_search", {"query": "what is opentelemetry"}), ("web_search", {"query": "nothing at all"}),
             ("web_search", {"query": "throttle me"}), ("read_page", {"url": base + "/page/a"}),
             ("read_page", {"url": base + "/gone/x"})]
    return [[function_call(n, a, call_id=f"call-{i}")] for i, (n, a) in enumerate(calls)] + [[assistant_message(answer)]]


def researcher(name: str = "researcher") -> Agent:
    return Agent(name=name, instructions="research", tools=[web_search, read_page], model=ScriptedModel(session()))


async def main() -> None:
    if mode == "run":
        result = await Runner.run(researcher(), "What is OpenTelemetry?")
        print(result.final_output == answer)
    elif mode == "streamed":
        result = Runner.run_streamed(researcher(), "What is OpenTelemetry?")
        kinds = set()
        async for event in result.stream_events():
            kinds.add(event.type)
        print(result.final_output == answer and {"raw_response_event", "run_item_stream_event"} <= kinds)
    elif mode == "streamed_undrained":
        result = Runner.run_streamed(researcher(), "What is OpenTelemetry?")
        await result.run_loop_task  # nobody reads the events
        print(result.final_output == answer)
    elif mode == "streamed_max_turns":
        result = Runner.run_streamed(researcher(), "What is OpenTelemetry?", max_turns=2)
        try:
            async for _event in result.stream_events():
                pass
        except MaxTurnsExceeded:
            print(True)
    elif mode == "nested":
        tool = researcher().as_tool("research", "Research a question")
        steps = [[function_call("research", {"input": "What is OpenTelemetry?"}, call_id="outer-1")],
                 [assistant_message(answer)]]
        boss = Agent(name="editor", instructions="delegate", tools=[tool], model=ScriptedModel(steps))
        result = await Runner.run(boss, "Write a cited note on OpenTelemetry")
        print(result.final_output == answer)
    elif mode == "user_run":
        from citetrace import research_run

        with research_run("my question", agent="mine") as run:
            result = await Runner.run(researcher(), "What is OpenTelemetry?")
        print(result.final_output == answer and run.answer == answer)
    elif mode == "hosted":
        model = OpenAIResponsesModel(model="gpt-5", openai_client=AsyncOpenAI(api_key="k", base_url=base + "/v1"))
        agent = Agent(name="researcher", instructions="research", tools=[WebSearchTool()], model=model,
                      model_settings=ModelSettings(response_include=["web_search_call.action.sources"]))
        result = await Runner.run(agent, "What is OpenTelemetry?")
        print(result.final_output == answer)
    elif mode == "concurrent":
        results = await asyncio.gather(Runner.run(researcher("r1"), "Q1"), Runner.run(researcher("r2"), "Q2"))
        print([r.final_output == answer for r in results])


if mode == "sync":
    print(Runner.run_sync(researcher(), "What is OpenTelemetry?").final_output == answer)
else:
    asyncio.run(main())
