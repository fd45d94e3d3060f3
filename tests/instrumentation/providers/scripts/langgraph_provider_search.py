"""A LangGraph agent (langchain's create_agent) whose model searches server-side: OpenAI's web_search through
langchain-openai, or Anthropic's web_search and web_fetch through langchain-anthropic. No citetrace code:
the environment switches it on. Prints the final AI message as JSON."""

import json
import sys

from langchain.agents import create_agent

base, provider = sys.argv[1], sys.argv[2]
if provider == "openai":
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(model="gpt-5", base_url=base + "/v1", api_key="sk-test", max_retries=0,
                       use_responses_api=True, include=["web_search_call.action.sources"])
    tools = [{"type": "web_search"}]
else:
    from langchain_anthropic import ChatAnthropic

    model = ChatAnthropic(model="claude-scripted", base_url=base, api_key="sk-ant-test", max_retries=0,
                          streaming=provider == "anthropic-stream")
    tools = [{"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
             {"type": "web_fetch_20250910", "name": "web_fetch"}]
agent = create_agent(model, tools=tools, name="provider-scout")
out = agent.invoke({"messages": [{"role": "user", "content": "What is the status of the GenAI conventions?"}]})
print(json.dumps({"answer": out["messages"][-1].text}))
