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

Under pytest-xdist (``make test`` runs three workers), a test marked ``alone`` runs while no other
test does: the other workers wait before their next test. It is for tests that assert a time
budget of the product (a crawl stops within 5 s of SIGINT), which a second test beside them on a
two-core machine would eat into. Such a test waits for the tests running beside it to end, and
the other workers wait while it runs: so that it waits for no long test, and keeps no other test
of its file waiting with it, it sits in a file of its own, and files holding an ``alone`` test
are handed out after every other (``pytest_collection_modifyitems``), when the other workers'
last tests are short unit tests.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest
from deepcrawl_fixtures import FixtureServer
from playwright.async_api import Browser, async_playwright

from deepcrawl.browser.chromium import find_chromium
from deepcrawl.settings import QUIET_CHROMIUM_ARGS, load_settings

ServerFactory = Callable[..., FixtureServer]

#: The controller's folder of the run's two lock files (``gate`` and ``room``), which it hands
#: to every worker in its ``workerinput``.
_LOCKS = pytest.StashKey[Path]()
_LOCKS_INPUT = "deepcrawl_test_locks"


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


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist's controller: one lock folder for the run, named to every worker."""
    config: pytest.Config = node.config
    if _LOCKS not in config.stash:
        config.stash[_LOCKS] = Path(tempfile.mkdtemp(prefix="deepcrawl-test-locks-"))
    node.workerinput[_LOCKS_INPUT] = str(config.stash[_LOCKS])


def pytest_unconfigure(config: pytest.Config) -> None:
    """The controller removes the lock folder once every worker has ended."""
    folder = config.stash.get(_LOCKS, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files that hold a ``slow`` test come first, those that hold an ``alone`` test last, the
    order of the rest unchanged (see above).

    Every xdist worker collects the same order, and ``--dist loadfile`` hands the files out in
    it (``--no-loadscope-reorder``, Makefile): the longest files (the real applications') start
    at once instead of ending the run on one worker while the others wait.
    """

    def holding(mark: str) -> set[Path]:
        return {item.path for item in items if item.get_closest_marker(mark) is not None}

    slow, alone = holding("slow"), holding("alone")
    items.sort(key=lambda item: (item.path in alone, item.path not in slow))  # stable


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    """Run each test (set-up to teardown) in its turn: ``alone`` ones with no other beside them.

    Outermost (``tryfirst``), so that waiting for a turn counts against no test's timeout.
    """
    folder = getattr(item.config, "workerinput", {}).get(_LOCKS_INPUT)
    if folder is None:  # one process: no other test runs beside this one
        return (yield)
    with _turn(Path(folder), alone=item.get_closest_marker("alone") is not None):
        return (yield)


@contextlib.contextmanager
def _turn(folder: Path, *, alone: bool) -> Iterator[None]:
    """Hold the room: shared with the other workers' tests, or to oneself when ``alone``.

    A test passes the gate to enter; an ``alone`` test keeps it closed behind itself while it
    waits for the tests inside to end, so that no worker overtakes it, and until it is done.
    Closing the files releases both locks, whatever happens.
    """
    with (folder / "gate").open("a") as gate, (folder / "room").open("a") as room:
        fcntl.flock(gate, fcntl.LOCK_EX)
        fcntl.flock(room, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        if not alone:
            fcntl.flock(gate, fcntl.LOCK_UN)
        yield
