"""Is a cited URL still live today? HEAD with a GET fallback, redirects followed, timeouts, bounded
concurrency and a cache.

This is the one place evaluation touches the network, and it never feeds a judge: liveness only. ``--offline``
skips it entirely. Servers that reject HEAD (405, 403, 501 and friends) get a streamed GET whose body is not
read.
"""

from __future__ import annotations

import json
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Iterable

import requests

from citetrace._urls import url_key

__all__ = ["Liveness", "Resolver"]

_HEAD_REJECTED = frozenset({400, 403, 404, 405, 406, 429, 501})
_USER_AGENT = "citetrace-eval/0.1 (+liveness check)"


@dataclass(frozen=True)
class Liveness:
    """The outcome for one URL: ``live`` is True for a final 2xx/3xx answer."""

    url: str
    live: bool
    status: int | None
    final_url: str | None
    method: str
    error: str | None = None
    checked_at: float = 0.0


class Resolver:
    """Checks URLs with at most ``workers`` requests in flight; results cached in memory and optionally on disk."""

    def __init__(
        self,
        *,
        timeout: float = 10.0,
        workers: int = 8,
        cache_path: str | None = None,
        cache_ttl: float = 24 * 3600.0,
        max_redirects: int = 10,
    ) -> None:
        self.timeout = timeout
        self.workers = max(1, workers)
        self.cache_path = cache_path
        self.cache_ttl = cache_ttl
        self.max_redirects = max_redirects
        self._lock = threading.Lock()
        self._cache: dict[str, Liveness] = {}
        self._load()

    def _load(self) -> None:
        if not self.cache_path or not os.path.exists(self.cache_path):
            return
        try:
            with open(self.cache_path, encoding="utf-8") as fh:
                for key, row in json.load(fh).items():
                    self._cache[key] = Liveness(**row)
        except (OSError, ValueError, TypeError):
            self._cache = {}  # a corrupt cache is only a cache

    def _save(self) -> None:
        if not self.cache_path:
            return
        try:
            os.makedirs(os.path.dirname(os.path.abspath(self.cache_path)), exist_ok=True)
            tmp = self.cache_path + ".tmp"
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump({k: asdict(v) for k, v in self._cache.items()}, fh)
            os.replace(tmp, self.cache_path)
        except OSError:
            pass

    def _request(self, session: requests.Session, method: str, url: str) -> requests.Response:
        session.max_redirects = self.max_redirects
        resp = session.request(method, url, timeout=self.timeout, allow_redirects=True, stream=method == "GET",
                               headers={"User-Agent": _USER_AGENT})
        resp.close()
        return resp

    def check_one(self, url: str) -> Liveness:
        """Check one URL now (no cache)."""
        if not url.startswith(("http://", "https://")):
            return Liveness(url, False, None, None, "none", "not an http(s) URL", time.time())
        with requests.Session() as session:
            method, error = "HEAD", None
            try:
                resp = self._request(session, "HEAD", url)
                if resp.status_code in _HEAD_REJECTED or resp.status_code >= 500:
                    method = "GET"
                    resp = self._request(session, "GET", url)
            except requests.RequestException as exc:
                error = type(exc).__name__
                if method == "HEAD":  # a server that drops HEAD may still answer GET
                    method = "GET"
                    try:
                        resp = self._request(session, "GET", url)
                        error = None
                    except requests.RequestException as exc2:
                        error = type(exc2).__name__
            if error is not None:
                return Liveness(url, False, None, None, method, error, time.time())
            return Liveness(url, resp.status_code < 400, resp.status_code, resp.url, method, None, time.time())

    def check(self, urls: Iterable[str]) -> dict[str, Liveness]:
        """Check every distinct URL (cached answers younger than the TTL are reused)."""
        wanted = list(dict.fromkeys(urls))
        now = time.time()
        out: dict[str, Liveness] = {}
        todo: list[str] = []
        with self._lock:
            for url in wanted:
                hit = self._cache.get(url_key(url))
                if hit is not None and now - hit.checked_at < self.cache_ttl:
                    out[url] = hit
                else:
                    todo.append(url)
        if todo:
            with ThreadPoolExecutor(max_workers=min(self.workers, len(todo))) as pool:
                for url, result in zip(todo, pool.map(self.check_one, todo)):
                    out[url] = result
            with self._lock:
                for url in todo:
                    self._cache[url_key(url)] = out[url]
                self._save()
        return out
