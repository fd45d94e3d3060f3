"""The five HTTP clients the HTTP-layer rows watch, each called the way agents call it, and the search
endpoints with what each API answers. Shared by the search and fetch-rule tests."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import urlencode

import aiohttp
import httpx
import requests


@dataclass(frozen=True)
class Call:
    """One request: method, URL, URL parameters, JSON body."""

    method: str
    url: str
    params: dict[str, str]
    body: dict[str, Any] | None = None

    def at(self, port: int) -> Call:
        """The same call to the same host on ``port`` (where fake_dns sends it to the local server)."""
        scheme, _, rest = self.url.partition("://")
        host, slash, path = rest.partition("/")
        return Call(self.method, f"{scheme}://{host}:{port}{slash}{path}", self.params, self.body)


def _requests(call: Call) -> bytes:
    resp = requests.request(call.method, call.url, params=call.params or None, json=call.body, timeout=5)
    return resp.content


def _httpx(call: Call) -> bytes:
    with httpx.Client(timeout=5) as client:
        return client.request(call.method, call.url, params=call.params or None, json=call.body).content


def _httpx_async(call: Call) -> bytes:
    async def go() -> bytes:
        async with httpx.AsyncClient(timeout=5) as client:
            resp = await client.request(call.method, call.url, params=call.params or None, json=call.body)
            return resp.content

    return asyncio.run(go())


def _aiohttp(call: Call) -> bytes:
    async def go() -> bytes:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5)) as session:
            send = session.post if call.method == "POST" else session.get
            kwargs: dict[str, Any] = {"params": call.params} if call.params else {}
            if call.body is not None:
                kwargs["json"] = call.body
            async with send(call.url, **kwargs) as resp:
                return await resp.read()

    return asyncio.run(go())


def _urllib(call: Call) -> bytes:
    url = call.url + ("?" + urlencode(call.params) if call.params else "")
    data = json.dumps(call.body).encode() if call.body is not None else None
    request = urllib.request.Request(url, data=data, method=call.method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as resp:
        return bytes(resp.read())


CLIENTS: dict[str, Callable[[Call], bytes]] = {
    "requests": _requests, "httpx": _httpx, "httpx_async": _httpx_async, "aiohttp": _aiohttp, "urllib": _urllib,
}
"""client name -> send one call and return the body bytes the caller read."""


@dataclass(frozen=True)
class Api:
    """One search endpoint: the call an agent makes, the tool name, and its answer for given result URLs."""

    name: str
    call: Call
    answer: Callable[[list[str]], dict[str, Any]]

    @property
    def host(self) -> str:
        return self.call.url.split("/")[2]


def _links(key: str, field: str = "link") -> Callable[[list[str]], dict[str, Any]]:
    return lambda urls: {key: [{"title": "t", field: u, "snippet": "s"} for u in urls]}


QUERY = "solar capacity 2024"
APIS: tuple[Api, ...] = (
    Api("tavily", Call("POST", "http://api.tavily.com/search", {}, {"query": QUERY, "api_key": "tvly-k"}),
        lambda urls: {"query": QUERY, "results": [{"url": u, "title": "t", "content": "c"} for u in urls]}),
    Api("serper", Call("POST", "http://google.serper.dev/search", {}, {"q": QUERY}), _links("organic")),
    Api("serper", Call("GET", "http://google.serper.dev/search", {"q": QUERY, "apiKey": "k"}), _links("organic")),
    Api("serpapi", Call("GET", "http://serpapi.com/search.json", {"q": QUERY, "api_key": "k"}),
        _links("organic_results")),
    Api("brave", Call("GET", "http://api.search.brave.com/res/v1/web/search", {"q": QUERY}),
        lambda urls: {"web": {"results": [{"url": u, "title": "t"} for u in urls]}}),
    Api("bing", Call("GET", "http://api.bing.microsoft.com/v7.0/search", {"q": QUERY}),
        lambda urls: {"webPages": {"value": [{"url": u, "name": "t"} for u in urls]}}),
    Api("you", Call("GET", "http://api.ydc-index.io/search", {"query": QUERY}), _links("hits", "url")),
    Api("google_cse", Call("GET", "http://www.googleapis.com/customsearch/v1", {"q": QUERY, "key": "k", "cx": "c"}),
        _links("items")),
    Api("exa", Call("POST", "http://api.exa.ai/search", {}, {"query": QUERY, "numResults": 2}),
        lambda urls: {"results": [{"url": u, "title": "t"} for u in urls]}),
    Api("jina", Call("GET", "http://s.jina.ai/" + QUERY.replace(" ", "%20"), {}),
        lambda urls: {"code": 200, "data": [{"url": u, "title": "t", "content": ""} for u in urls]}),
)
"""Every documented endpoint, as agents call it (http:// so a loopback server can answer it)."""
