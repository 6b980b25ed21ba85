"""The reference client over a mock transport: what it counts, and the politeness it keeps."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

import httpx

from deepcrawl.bench.reference import fetch_all, main

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

_PAGE = b"<html><body><h1>Row</h1><a href='/a'>a</a><a href='/b'>b</a><a>no href</a></body></html>"


class _Server:
    """Answers a record page with two links, 404 for ``/missing``, a reset for ``/broken``;
    keeps the most requests it had in flight at once."""

    def __init__(self, delay_s: float = 0.0) -> None:
        self.delay_s = delay_s
        self.in_flight = self.most_in_flight = 0
        self.paths: list[str] = []

    async def handle(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(request.url.path)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay_s)
            if request.url.path == "/broken":
                raise httpx.ReadError("connection reset", request=request)
            if request.url.path == "/missing":
                return httpx.Response(404, content=b"not here")
            return httpx.Response(200, content=_PAGE, headers={"content-type": "text/html"})
        finally:
            self.in_flight -= 1


def test_each_url_is_fetched_once_parsed_and_counted() -> None:
    server = _Server()
    urls = [f"http://site.test/rows/{i}" for i in range(10)]
    urls += ["http://site.test/missing", "http://site.test/broken"]
    result = asyncio.run(
        fetch_all(
            urls,
            requests_per_second=0,
            concurrency=3,
            transport=httpx.MockTransport(server.handle),
        )
    )
    assert sorted(server.paths) == sorted(httpx.URL(u).path for u in urls)
    assert (result.urls, result.ok, result.failed) == (12, 10, 2)
    assert result.links == 20  # two <a href> a record page; the anchor without href is none
    assert result.bytes == 10 * len(_PAGE) + len(b"not here")
    assert result.wall_s > 0
    assert result.cpu_s > 0


def test_the_crawls_politeness_is_kept() -> None:
    server = _Server(delay_s=0.1)
    urls = [f"http://site.test/rows/{i}" for i in range(12)]
    transport = httpx.MockTransport(server.handle)
    result = asyncio.run(
        fetch_all(urls, requests_per_second=100, concurrency=4, transport=transport)
    )
    assert result.ok == 12
    assert server.most_in_flight == 4  # as many in flight as the politeness allows, no more
    assert result.wall_s >= 11 / 100  # twelve starts 10 ms apart at least


def test_the_command_prints_its_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = _Server()
    real_client = httpx.AsyncClient

    def mocked(**kwargs: object) -> httpx.AsyncClient:
        kwargs["transport"] = httpx.MockTransport(server.handle)
        return real_client(**kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(httpx, "AsyncClient", mocked)
    urls = tmp_path / "urls.txt"
    urls.write_text("http://site.test/rows/1\nhttp://site.test/rows/2\n")
    assert main([str(urls), "--rate", "0", "--concurrency", "2"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert (figures["urls"], figures["ok"], figures["failed"], figures["links"]) == (2, 2, 0, 4)
