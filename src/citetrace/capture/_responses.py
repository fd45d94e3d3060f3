"""What a tool call returned or raised, in a form that replays faithfully, and the key replay matches on.

Encodings (the payload's one key says which):
- ``json``: a JSON-able value (dicts, lists, strings, numbers; tuples come back as lists);
- ``requests`` / ``httpx``: a response's status, headers, URL and text, rebuilt as the same class;
- ``pydantic``: a model's class and ``model_dump(mode="json")``, rebuilt with ``model_validate``
  (a Tavily or Exa result object comes back as its own class);
- ``dataclass``: a dataclass's class and JSON-able fields, rebuilt by calling the class with them;
- ``text``: anything else, as the text the agent would have seen (``str(result)``);
- ``raise``: an exception's class and message, raised again as the same type with the same message.

Every string in a payload goes through ``redact_text`` (URL secrets, key shapes), like every stored URL, and
the arguments are keyed in that same redacted form, so replay still matches. A payload over
``MAX_PAYLOAD_BYTES`` is not recorded (counted as a store-write error).
"""

from __future__ import annotations

import dataclasses
import email.message
import hashlib
import importlib
import io
import json
import urllib.error
from typing import Any, Mapping, Sequence

from citetrace._redact import redact_text
from citetrace._urls import redact_url
from citetrace.capture._extract import http_status_of_exc

__all__ = ["MAX_PAYLOAD_BYTES", "args_key", "encode_result", "encode_exception", "decode", "ReplayUnavailable"]

MAX_PAYLOAD_BYTES = 4 * 1024 * 1024
"""Largest payload recorded for one call (a bigger one is dropped and counted)."""


class ReplayUnavailable(ValueError):
    """A recorded payload that cannot be turned back into a value (its class is gone, or it was text)."""


def _clean(value: Any, depth: int = 0) -> Any:
    """The value as JSON with every string redacted; raises TypeError for what JSON cannot hold."""
    if isinstance(value, str):
        return redact_text(value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if depth > 64:
        raise TypeError("nested too deeply")
    if isinstance(value, Mapping):
        return {str(k): _clean(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v, depth + 1) for v in value]
    raise TypeError(type(value).__name__)


def _plain(value: Any, depth: int = 0) -> Any:
    """The value as JSON types (tuples as lists); raises TypeError for what JSON cannot hold."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if depth > 64:
        raise TypeError("nested too deeply")
    if isinstance(value, Mapping):
        return {str(k): _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, depth + 1) for v in value]
    raise TypeError(type(value).__name__)


def _redacted_json(value: Any) -> Any:
    """``_clean`` in one redaction pass over the serialised value (one regex pass instead of one per string);
    per string when the pass would not leave valid JSON."""
    text = json.dumps(_plain(value), ensure_ascii=False)
    try:
        return json.loads(redact_text(text))
    except ValueError:
        return _clean(value)


def _qualname(obj: Any) -> str:
    cls = obj if isinstance(obj, type) else type(obj)
    return f"{cls.__module__}:{cls.__qualname__}"


def _load(qualname: str) -> Any:
    module, _, name = qualname.partition(":")
    target: Any = importlib.import_module(module)
    for part in name.split("."):
        target = getattr(target, part)
    return target


def args_key(tool: str, args: Sequence[Any], kwargs: Mapping[str, Any], skip_self: bool) -> str:
    """A stable key of a call's arguments, after redaction (``self`` and ``tool_call_id`` left out)."""
    payload = {"args": list(args[1:] if skip_self else args),
               "kwargs": {k: v for k, v in sorted(kwargs.items()) if k != "tool_call_id"}}
    text = redact_text(json.dumps(payload, default=repr, sort_keys=True))
    return hashlib.sha256(f"{tool}\x00{text}".encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _response(result: Any) -> dict[str, Any] | None:
    module = type(result).__module__
    if module.startswith("requests") and hasattr(result, "status_code") and hasattr(result, "content"):
        return {"requests": {"status": int(result.status_code), "headers": _clean(dict(result.headers)),
                             "url": redact_text(str(result.url or "")), "text": redact_text(result.text),
                             "encoding": result.encoding}}
    if module.startswith("httpx") and hasattr(result, "status_code") and hasattr(result, "content"):
        return {"httpx": {"status": int(result.status_code), "headers": _clean(dict(result.headers)),
                          "url": redact_text(str(result.request.url)), "text": redact_text(result.text)}}
    return None


def encode_result(result: Any) -> dict[str, Any]:
    """The payload of a returned value."""
    response = _response(result)
    if response is not None:
        return response
    try:
        return {"json": _redacted_json(result)}
    except TypeError:
        pass
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        try:
            fields = {f.name: _clean(getattr(result, f.name)) for f in dataclasses.fields(result) if f.init}
            return {"dataclass": {"cls": _qualname(result), "fields": fields}}
        except TypeError:
            pass
    dump = getattr(result, "model_dump", None)
    if callable(dump):
        try:
            return {"pydantic": {"cls": _qualname(result), "data": _clean(dump(mode="json"))}}
        except Exception:  # noqa: BLE001 - not a pydantic v2 model after all
            pass
    return {"text": redact_text(str(result))}


def encode_exception(exc: BaseException) -> dict[str, Any]:
    """The payload of a raised exception: its class, (redacted) message and the HTTP status it carried (read as
    the span reads it, so urllib's ``code`` counts too), and urllib's URL and reason, which its constructor needs."""
    out: dict[str, Any] = {"cls": _qualname(exc), "message": redact_text(str(exc))}
    status = http_status_of_exc(exc)
    if status is not None:
        out["http_status"] = status
    if isinstance(exc, urllib.error.HTTPError):
        out["url"] = redact_url(str(exc.filename or ""))
        out["reason"] = redact_text(str(exc.msg))
    elif _qualname(exc) == "httpx:HTTPStatusError":  # its constructor needs the request (method, URL)
        try:
            request = exc.request  # type: ignore[attr-defined]
            out["url"], out["method"] = redact_url(str(request.url)), str(request.method)
        except Exception:  # noqa: BLE001 - no request: rebuilt without one, as before
            pass
    return {"raise": out}


def _with_status(exc: BaseException, status: int) -> BaseException:
    """Give a rebuilt exception the response status it carried (a 429 stays rate_limited when replayed)."""
    if getattr(exc, "response", None) is not None or http_status_of_exc(exc) == status:
        return exc
    try:
        import requests

        response: Any = requests.models.Response()
        response.status_code = status
    except ImportError:  # pragma: no cover - requests is a base dependency
        response = type("RecordedResponse", (), {"status_code": status})()
    try:
        exc.response = response  # type: ignore[attr-defined]
    except AttributeError:
        pass
    return exc


def _exception(cls_name: str, message: str, raised: Mapping[str, Any]) -> BaseException:
    try:
        cls = _load(cls_name)
    except (ImportError, AttributeError):
        cls = None
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        return RuntimeError(f"{cls_name}: {message}")
    status = raised.get("http_status")
    if cls.__module__ == "httpx" and cls.__name__ == "HTTPStatusError" and isinstance(status, int) and raised.get("url"):
        import httpx

        request = httpx.Request(str(raised.get("method") or "GET"), str(raised["url"]))
        return httpx.HTTPStatusError(message, request=request, response=httpx.Response(status, request=request))
    if issubclass(cls, urllib.error.HTTPError) and isinstance(raised.get("http_status"), int):
        # built by its own constructor: without it every attribute raises KeyError('file') (its __getattr__
        # reads a file object __init__ sets), so e.code, str(e) and printing the traceback all failed
        return cls(str(raised.get("url") or ""), int(raised["http_status"]), str(raised.get("reason") or ""),
                   email.message.Message(), io.BytesIO(b""))
    try:
        exc = cls(message)
        if str(exc) == message:
            return exc
    except Exception:  # noqa: BLE001 - a constructor with other arguments: build it without calling it
        pass
    exc = cls.__new__(cls)
    exc.args = (message,)
    try:
        str(exc), repr(exc)
    except Exception:  # noqa: BLE001 - a class that needs its __init__ even to print: a subclass that can
        exc = _printable(cls)(message)
    return exc


def _printable(cls: type[BaseException]) -> type[BaseException]:
    """A subclass of ``cls`` (so ``except cls`` still catches it) that prints its message and has only the
    attributes it was given: a replayed exception must never fail where the live one was handled."""
    def __init__(self: BaseException, message: str) -> None:
        BaseException.__init__(self, message)

    def __str__(self: BaseException) -> str:
        return str(self.args[0]) if self.args else ""

    def __getattr__(self: BaseException, name: str) -> Any:
        raise AttributeError(name)

    return type(cls.__name__, (cls,), {"__init__": __init__, "__str__": __str__, "__repr__": BaseException.__repr__,
                                       "__getattr__": __getattr__, "__module__": cls.__module__,
                                       "__qualname__": cls.__qualname__})


def decode(payload: Mapping[str, Any]) -> Any:
    """The value a payload encodes (an exception is returned, not raised: the caller raises it)."""
    if "json" in payload:
        return payload["json"]
    if "raise" in payload:
        exc = _exception(str(payload["raise"]["cls"]), str(payload["raise"]["message"]), payload["raise"])
        status = payload["raise"].get("http_status")
        return _with_status(exc, status) if isinstance(status, int) else exc
    if "requests" in payload:
        import requests

        data = payload["requests"]
        response = requests.models.Response()
        response.status_code = int(data["status"])
        response.headers = requests.structures.CaseInsensitiveDict(data["headers"])
        response.url = data["url"]
        response.encoding = data.get("encoding") or "utf-8"
        response._content = str(data["text"]).encode(response.encoding, "replace")  # noqa: SLF001 - requests' own field
        return response
    if "httpx" in payload:
        import httpx

        data = payload["httpx"]
        headers = {k: v for k, v in data["headers"].items() if k.lower() not in ("content-encoding", "content-length")}
        return httpx.Response(int(data["status"]), headers=headers, content=str(data["text"]).encode(),
                              request=httpx.Request("GET", data["url"]))
    if "pydantic" in payload:
        data = payload["pydantic"]
        try:
            return _load(str(data["cls"])).model_validate(data["data"])
        except Exception as exc:  # noqa: BLE001
            raise ReplayUnavailable(f"cannot rebuild {data['cls']}: {exc}") from exc
    if "dataclass" in payload:
        data = payload["dataclass"]
        try:
            return _load(str(data["cls"]))(**data["fields"])
        except Exception as exc:  # noqa: BLE001
            raise ReplayUnavailable(f"cannot rebuild {data['cls']}: {exc}") from exc
    if "text" in payload:
        return payload["text"]
    raise ReplayUnavailable(f"unknown recorded payload with keys {sorted(payload)}")
