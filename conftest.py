"""Session-wide test fixtures: the local fixture sites and one shared Chromium.

At the root of the checkout, so that deepcrawl's tests (``tests/``) and the fixture sites' own
tests (``fixtures/tests/``) share them, and one set of workers' turns (below) covers both.

- ``fixture_server(name, records=500, seed=0, faults=False)``: a started
  :class:`deepcrawl_fixtures.FixtureServer`, one per distinct argument tuple for the whole
  session (servers are shared between tests: call ``srv.reset_stats()`` before counting, or ask
  for a seed of your own to get a private server).
- ``books_server``, ``shop_server``, ``news_server``: the default 500-record sites.
- ``chromium_browser``: a Playwright Chromium browser launched once per session (headless, the
  quiet flags of ``deepcrawl.settings``); open a context of your own and close it after use.

Under pytest-xdist (``make test`` runs three workers), the files holding a ``slow`` test are
handed out first (``pytest_collection_modifyitems``).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING

import pytest
from deepcrawl_fixtures import FixtureServer
from playwright.async_api import Browser, async_playwright

from deepcrawl.browser.chromium import find_chromium
from deepcrawl.settings import QUIET_CHROMIUM_ARGS, load_settings

if TYPE_CHECKING:
    from pathlib import Path

ServerFactory = Callable[..., FixtureServer]


@pytest.fixture(scope="session")
def fixture_server() -> Iterator[ServerFactory]:
    """Factory of started fixture servers, cached per (name, records, seed, faults)."""
    servers: dict[tuple[str, int, int, bool], FixtureServer] = {}

    def get(
        name: str = "books", *, records: int = 500, seed: int = 0, faults: bool = False
    ) -> FixtureServer:
        key = (name, records, seed, faults)
        if key not in servers:
            servers[key] = FixtureServer(name, records=records, seed=seed, faults=faults).start()
        return servers[key]

    yield get
    for server in servers.values():
        server.stop()


@pytest.fixture(scope="session")
def books_server(fixture_server: ServerFactory) -> FixtureServer:
    """The "books" site, 500 records, seed 0, no faults."""
    return fixture_server("books")


@pytest.fixture(scope="session")
def shop_server(fixture_server: ServerFactory) -> FixtureServer:
    """The "shop" site, 500 records, seed 0, no faults."""
    return fixture_server("shop")


@pytest.fixture(scope="session")
def news_server(fixture_server: ServerFactory) -> FixtureServer:
    """The "news" site, 500 records, seed 0, no faults."""
    return fixture_server("news")


def chromium_path() -> Path:
    """The Chromium a headless crawl would launch (``deepcrawl.browser.find_chromium``)."""
    found = find_chromium(load_settings())
    if found is None:
        pytest.fail("no Chromium found: install Debian's chromium or set DEEPCRAWL_CHROMIUM")
    return found


@pytest.fixture(scope="session")
async def chromium_browser(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Browser]:
    """One headless Chromium for the whole session (its temp files in a folder of its own)."""
    tmp = tmp_path_factory.mktemp("chromium")
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=str(chromium_path()),
            headless=True,
            args=list(QUIET_CHROMIUM_ARGS),
            env={**os.environ, "TMPDIR": str(tmp)},
        )
        yield browser
        await browser.close()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files that hold a ``slow`` test come first, the order of the rest unchanged.

    Every xdist worker collects the same order, and ``--dist loadfile`` hands the files out in
    it (``--no-loadscope-reorder``, Makefile): the longest files (the real applications') start
    at once instead of ending the run on one worker while the others wait.
    """
    slow = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow)  # stable
