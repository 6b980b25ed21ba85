"""FixtureServer and the serve command: a real server in a child process."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Callable

import httpx
import pytest
from deepcrawl_fixtures import SITES, FixtureServer, build_site

from deepcrawl.errors import FixtureError

ServerFactory = Callable[..., FixtureServer]


@pytest.mark.parametrize("name", sorted(SITES))
def test_server_serves_the_site_and_counts(name: str, fixture_server: ServerFactory) -> None:
    server = fixture_server(name)
    assert server.url.startswith("http://127.0.0.1:")
    assert not server.url.endswith("/")
    server.reset_stats()
    truth = server.truth()
    with httpx.Client(base_url=server.url) as client:
        assert client.get("/").status_code == 200
        assert client.get(truth.detail_paths[0]).status_code == 200
        assert client.get("/robots.txt").text.startswith("User-agent: *\nDisallow: /")
        assert client.get("/__fixture__/health").json()["site"] == name
    stats = server.stats()
    assert stats["requests"] == 3
    assert stats["by_kind"] == {"home": 1, "detail": 1, "robots": 1}
    assert stats["by_status"] == {200: 3}
    assert [e["path"] for e in stats["log"]] == ["/", truth.detail_paths[0], "/robots.txt"]


def test_truth_matches_build_site(books_server: FixtureServer) -> None:
    truth = books_server.truth()
    assert truth.detail_paths == build_site("books").truth().detail_paths


def test_many_concurrent_connections(books_server: FixtureServer) -> None:
    """100 connections opened at once: the listen backlog holds them all."""

    async def burst() -> list[int]:
        limits = httpx.Limits(max_connections=100)
        async with httpx.AsyncClient(base_url=books_server.url, limits=limits) as client:
            paths = books_server.truth().detail_paths[:100]
            responses = await asyncio.gather(*(client.get(p) for p in paths))
        return [r.status_code for r in responses]

    assert asyncio.run(burst()) == [200] * 100


def test_unknown_site_is_a_fixture_error() -> None:
    with pytest.raises(FixtureError, match=f"valid names: {', '.join(sorted(SITES))}$"):
        FixtureServer("library")


def test_serve_command_fails_in_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "deepcrawl_fixtures", "serve", "library", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: unknown fixture site 'library'; valid names: {', '.join(sorted(SITES))}"
    ]


def test_stop_is_quick_even_with_a_hanging_request() -> None:
    server = FixtureServer("news", records=50, seed=3, faults=True).start()
    hanging = next(p for p, f in server.truth().faults.items() if f == "timeout")
    with pytest.raises(httpx.ReadTimeout):
        httpx.get(server.url + hanging, timeout=0.3)
    start = time.perf_counter()
    server.stop()
    assert time.perf_counter() - start < 8.0  # ~1.2 s here; the hang itself would be 30 s
    server.stop()  # twice is fine


def test_double_start_is_refused() -> None:
    server = FixtureServer("books", records=20, seed=5)
    with server, pytest.raises(FixtureError, match="already running"):
        server.start()
