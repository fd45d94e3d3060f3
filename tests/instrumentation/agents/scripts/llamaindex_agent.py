"""A research agent on LlamaIndex agent workflows: a scripted ``MockFunctionCallingLLM`` and the
``TavilyToolSpec`` tools (search, extract) over the fake network. Imports nothing of citetrace."""
import asyncio
import sys

from llama_index.core.agent.workflow import AgentWorkflow, FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools import FunctionTool
from llama_index.tools.tavily_research import TavilyToolSpec
from tavily import TavilyClient

base, mode, answer = sys.argv[1], sys.argv[2], sys.argv[3]
SESSION = [("search", {"query": "what is opentelemetry"}), ("search", {"query": "nothing at all"}),
           ("search", {"query": "throttle me"}), ("extract", {"urls": [base + "/page/a"]}),
           ("extract", {"urls": [base + "/gone/x"]})]


def scripted(calls: list) -> MockFunctionCallingLLM:
    """One tool call per model turn, then the answer (the turn is the number of tool results so far)."""

    def respond(messages: list, **kwargs: object) -> ChatMessage:
        turn = sum(m.role == MessageRole.TOOL for m in messages)
        if turn < len(calls):
            name, args = calls[turn]
            return ChatMessage(role="assistant", blocks=[ToolCallBlock(tool_call_id=f"call-{turn}", tool_name=name,
                                                                       tool_kwargs=args)])
        return ChatMessage(role="assistant", blocks=[TextBlock(text=answer)])

    return MockFunctionCallingLLM(response_generator=respond, is_chat_model=True)


def researcher(name: str = "researcher") -> FunctionAgent:
    spec = TavilyToolSpec(api_key="k")
    spec.client = TavilyClient(api_key="k", api_base_url=base)  # only the network is replaced
    return FunctionAgent(name=name, description="researches", tools=spec.to_tool_list(), llm=scripted(SESSION),
                         streaming=False)


def text(result: object) -> str:
    return str(result.response.content)


async def main() -> object:
    if mode == "run":
        return text(await researcher().run(user_msg="What is OpenTelemetry?")) == answer
    if mode == "stream":
        handler = researcher().run(user_msg="What is OpenTelemetry?")
        kinds = {type(event).__name__ async for event in handler.stream_events()}
        return text(await handler) == answer and "ToolCallResult" in kinds
    if mode == "max_iterations":
        try:
            await researcher().run(user_msg="What is OpenTelemetry?", max_iterations=2)
        except Exception as exc:  # noqa: BLE001 - the framework's own error type is what the run records
            return type(exc).__name__
        return "no error"
    if mode == "workflow":
        flow = AgentWorkflow(agents=[researcher()], root_agent="researcher")
        return text(await flow.run(user_msg="What is OpenTelemetry?")) == answer
    if mode == "nested":
        sub = researcher()

        async def research(question: str) -> str:
            """Delegate the research to the researcher agent."""
            return text(await sub.run(user_msg=question))

        editor = FunctionAgent(name="editor", description="edits", tools=[FunctionTool.from_defaults(research)],
                               llm=scripted([("research", {"question": "What is OpenTelemetry?"})]), streaming=False)
        return text(await editor.run(user_msg="Write a cited note on OpenTelemetry")) == answer
    if mode == "concurrent":
        results = await asyncio.gather(researcher("r1").run(user_msg="Q1"), researcher("r2").run(user_msg="Q2"))
        return [text(r) == answer for r in results]
    raise SystemExit(f"unknown mode {mode}")


print(asyncio.run(main()))
