"""Every request of a crawl passes one gate, in real crawls of the fixture sites, counted by
the server: each takes its own turn of the host's rate, and each is counted once.

A rate of ten requests a second makes the turns visible. A query's result pages used to share
the one slot the whole query took, and a link strategy run inside a crawl kept a rate (and a
robots.txt) of its own: now every request the server logs (``at``: when it came in) had a turn
of its own at the host's limiter, the turns a tenth of a second apart, whoever sends them, and
``stats.requests`` is what the server answered.

The turns are read at the limiter (:class:`Turns`: the instant it took each, as
:meth:`~deepcrawl.fetch.politeness.HostLimiter.turn` returns it), not from the server's arrival
times alone, nor from a clock read after the turn: on a loaded machine a request reaches the
server up to a tenth of a second after its turn (the event loop finishes other work first, the
process waits for a core), so two arrivals may be closer than the rate although their turns
were not; what the server shows is that no request came in before a turn of its own.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import pytest

from deepcrawl.crawler import CallbackSink, Crawl
from deepcrawl.fetch.politeness import HostLimiter
from deepcrawl.settings import load_settings

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

    from deepcrawl.crawler import CrawlStats
    from deepcrawl.settings import Settings

    ServerFactory = Callable[..., FixtureServer]

pytestmark = pytest.mark.browser

#: The rate of these crawls: a request every tenth of a second.
RATE = 10.0
INTERVAL = 1 / RATE

#: How far the server's clock reading may precede the limiter's for the same instant (both read
#: the system's monotonic clock, a few microseconds apart).
_CLOCKS = 0.002


def _target(url: str) -> str:
    """A request's path and query, as the server logs it."""
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}" if parts.query else parts.path


@dataclass
class Turns:
    """The turns the crawl's limiters gave: when each was taken, for which request."""

    taken: list[tuple[float, str]] = field(default_factory=list)

    def assert_spaced(self) -> None:
        """The turns themselves are one interval apart (the rate holds at the door)."""
        close = [
            (round(b[0] - a[0], 4), a[1], b[1])
            for a, b in itertools.pairwise(sorted(self.taken))
            if b[0] - a[0] < INTERVAL * 0.95
        ]
        assert not close, close  # (the gap, the earlier turn's request, the later's)

    def assert_each_own(self, log: list[dict[str, Any]]) -> None:
        """Each request in ``log`` came in after a turn of its own, taken for its URL."""
        free = sorted(self.taken)
        for entry in sorted(log, key=lambda entry: entry["at"]):
            own = next(
                (
                    turn
                    for turn in free
                    if turn[1] == entry["path"] and turn[0] <= entry["at"] + _CLOCKS
                ),
                None,
            )
            assert own is not None, f"{entry['path']} came in with no turn of its own"
            free.remove(own)


@pytest.fixture
def turns(monkeypatch: pytest.MonkeyPatch) -> Turns:
    """Every turn :meth:`HostLimiter.turn` gives in this test, recorded as it is taken."""
    recorded = Turns()
    take = HostLimiter.turn

    async def turn(limiter: HostLimiter, url: str) -> float:
        # the instant the limiter took the turn: a reading of the clock after it returns may
        # come later by however long a loaded machine kept the process from running
        taken = await take(limiter, url)
        recorded.taken.append((taken, _target(url)))
        return taken

    monkeypatch.setattr(HostLimiter, "turn", turn)
    return recorded


def _settings(tmp_path: Path, **sections: dict[str, Any]) -> Settings:
    base = load_settings(
        storage={"url": f"sqlite:///{tmp_path / 'crawl.db'}", "bodies_dir": tmp_path / "bodies"},
        politeness={"requests_per_second": RATE, "concurrency_per_host": 4},
    )
    return base.with_overrides(**sections)


async def _crawl(
    server: FixtureServer, settings: Settings, like: str | None, *, status: str = "done"
) -> tuple[CrawlStats, list[dict[str, Any]]]:
    server.reset_stats()
    examples = [like] if like else []
    async with Crawl(server.url + "/", settings=settings, like=examples) as crawl:
        report = await crawl.run(CallbackSink(lambda _record: None))
    assert report.status == status
    return report.stats, server.stats()["log"]


def _assert_one_door(stats: CrawlStats, log: list[dict[str, Any]]) -> None:
    """Every request counted once, robots.txt read once, each request its own turn."""
    assert stats.requests == len(log)
    assert [entry["path"] for entry in log].count("/robots.txt") == 1
    times = sorted(entry["at"] for entry in log)
    # each turn is an interval after the one before: the span holds them all (a request may
    # reach the server a little after its turn, never before it)
    assert times[-1] - times[0] >= (len(times) - 1) * INTERVAL * 0.95


def _paged(log: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The result pages of each keyword, for the keywords whose lists were read past their
    first page."""
    pages: dict[str, list[dict[str, Any]]] = {}
    later: set[str] = set()
    for entry in log:
        query = parse_qs(urlsplit(entry["path"]).query)
        if entry["kind"] == "results" and "q" in query:
            pages.setdefault(query["q"][0], []).append(entry)
            if "page" in query:
                later.add(query["q"][0])
    return {word: entries for word, entries in pages.items() if word in later}


async def test_each_result_page_of_a_query_takes_its_own_turn(
    fixture_server: ServerFactory, tmp_path: Path, turns: Turns
) -> None:
    server = fixture_server("books")
    # every setup query three pages deep: lists of several pages within the page budget
    crawl = {"max_pages": 60, "auto_label": True}
    settings = _settings(tmp_path, crawl=crawl, querying={"max_queries": 16})
    stats, log = await _crawl(server, settings, None, status="max_pages")
    _assert_one_door(stats, log)
    # lists of several pages, by the browser or by the form's URL template over plain HTTP
    # (a page as soon as the one before it is read): one turn of the rate each
    paged = _paged(log)
    assert len(paged) >= 2
    turns.assert_spaced()
    turns.assert_each_own([entry for entries in paged.values() for entry in entries])


async def test_sitemaps_take_their_turns_and_are_counted(
    fixture_server: ServerFactory, tmp_path: Path, turns: Turns
) -> None:
    server = fixture_server("catalogue", records=40, seed=5)
    settings = _settings(tmp_path, querying={"max_queries": 12})
    stats, log = await _crawl(server, settings, "/book/1")
    _assert_one_door(stats, log)
    assert stats.sitemaps_read >= 3
    sitemaps = [entry for entry in log if entry["kind"] == "sitemap"]
    assert len(sitemaps) == stats.sitemaps_read
    turns.assert_spaced()
    turns.assert_each_own(sitemaps)


async def test_navigate_and_discovery_keep_to_the_crawls_gate(
    fixture_server: ServerFactory, tmp_path: Path, turns: Turns
) -> None:
    server = fixture_server("stacks", records=60, seed=0)
    truth = server.truth()
    settings = _settings(
        tmp_path,
        crawl={"navigate": True},
        links={"navigate_strategy": "bfs", "navigate_max_requests": 40},
        querying={"max_queries": 8},
    )
    stats, log = await _crawl(server, settings, truth.detail_paths[0])
    assert stats.discovery_pages > 2  # the search form is two clicks deep
    assert stats.nav_requests > 0
    # one robots.txt for the crawl, its discovery and its navigate phase; one count; one rate
    _assert_one_door(stats, log)
    turns.assert_spaced()
