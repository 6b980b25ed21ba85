"""Run crawl strategies against a local fixture site and measure them against its ground truth.

For each site, one fixture server is started (in its own process, so the crawler under test
does not share an interpreter with it); for each strategy the server's counters are reset, the
strategy runs with a request budget, and the figures of docs/ARCHITECTURE.md ("Measures") are taken:

* record recall — distinct record pages fetched ÷ records on the site;
* harvest rate — distinct record pages fetched ÷ requests the *server* counted;
* requests by kind and bytes, as the server counted them;
* wall time and the crawler process's peak memory;
* the recall curve against requests sent, for the plot.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from deepcrawl.bench.memory import PeakMemory
from deepcrawl.browser.base import Fetcher
from deepcrawl.errors import ConfigError, FixtureError
from deepcrawl.links import STRATEGIES

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.settings import Settings

__all__ = [
    "FIXTURE_POLITENESS",
    "MAX_REQUESTS",
    "RECORDS",
    "SEED",
    "BenchRun",
    "CountingFetcher",
    "fixture_settings",
    "run_bench",
]

#: Records of each fixture site when ``--records`` is not given.
RECORDS = 500
#: Request budget of one strategy run when ``--max-requests`` is not given.
MAX_REQUESTS = 5000
#: Seed of the fixture sites' data: every run crawls the same sites.
SEED = 0
#: The politeness the local fixture sites are crawled at: no rate limit (they are ours, and the
#: bench measures the strategies, not the rate limit) and eight requests in flight; robots.txt
#: is still obeyed.
FIXTURE_POLITENESS: dict[str, Any] = {"requests_per_second": 0.0, "concurrency_per_host": 8}


def fixture_settings(settings: Settings) -> Settings:
    """``settings`` with the politeness the fixture sites are crawled at
    (:data:`FIXTURE_POLITENESS`)."""
    return settings.with_overrides(politeness=dict(FIXTURE_POLITENESS))


@dataclass
class BenchRun:
    """The figures of one strategy on one site."""

    site: str
    strategy: str
    records: int
    records_fetched: int
    requests: int
    requests_by_kind: dict[str, int]
    bytes: int
    wall_s: float
    peak_rss_mb: float
    pages_fetched: int
    failures: int
    curve: list[tuple[int, float]] = field(default_factory=list)
    """(requests sent by the crawler, record recall) after each record page."""

    @property
    def recall(self) -> float:
        """Record recall: records fetched ÷ records on the site."""
        return self.records_fetched / self.records if self.records else 0.0

    @property
    def harvest_rate(self) -> float:
        """Records fetched ÷ all requests the server counted."""
        return self.records_fetched / self.requests if self.requests else 0.0

    @property
    def pages_per_s(self) -> float:
        """Pages fetched per second of wall time."""
        return self.pages_fetched / self.wall_s if self.wall_s else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures, derived ones included."""
        data = asdict(self)
        data.update(
            recall=round(self.recall, 4),
            harvest_rate=round(self.harvest_rate, 4),
            pages_per_s=round(self.pages_per_s, 1),
        )
        return data


class CountingFetcher(Fetcher):
    """Wrap a fetcher and count the requests sent through it."""

    def __init__(self, inner: Fetcher) -> None:
        self.inner = inner
        self.sent = 0

    async def open(self) -> None:
        await self.inner.__aenter__()

    async def close(self) -> None:
        await self.inner.__aexit__(None, None, None)

    async def fetch(self, url: str) -> FetchedPage:
        self.sent += 1
        return await self.inner.fetch(url)


async def run_bench(
    sites: Sequence[str],
    strategies: Sequence[str],
    settings: Settings,
    *,
    make_fetcher: Callable[[Settings], Fetcher],
    records: int | None = None,
    faults: bool = False,
    max_requests: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[BenchRun]:
    """Run every strategy on every site; return one :class:`BenchRun` per pair.

    Raises:
        ConfigError: an unknown strategy name.
        FixtureError: an unknown site name, or the fixture sites are not installed.
    """
    try:
        from deepcrawl_fixtures import SITES, FixtureServer
    except ImportError as exc:
        raise FixtureError(
            "the fixture sites are not installed: pip install -e fixtures (from a source checkout)"
        ) from exc
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown:
        raise ConfigError(
            f"unknown strategy {unknown[0]!r}; known: {', '.join(sorted(STRATEGIES))}"
        )
    bad_sites = [s for s in sites if s not in SITES]
    if bad_sites:
        raise FixtureError(f"unknown fixture site {bad_sites[0]!r}; known: {', '.join(SITES)}")
    records = records or RECORDS
    budget = max_requests or MAX_REQUESTS
    settings = fixture_settings(settings)
    runs: list[BenchRun] = []
    for site in sites:
        with FixtureServer(site, records=records, seed=SEED, faults=faults) as srv:
            truth = srv.truth()
            total = len(truth.detail_paths)
            for name in strategies:
                if progress:
                    progress(f"{site}: running {name}")
                srv.reset_stats()
                strategy_cls = STRATEGIES[name]
                strategy = strategy_cls(settings)
                fetched: set[str] = set()
                curve: list[tuple[int, float]] = []
                pages = 0
                run_settings = settings
                if strategy_cls.render is not None:
                    run_settings = settings.with_overrides(browser={"render": strategy_cls.render})
                counting = CountingFetcher(make_fetcher(run_settings))
                with PeakMemory() as memory:
                    started = time.perf_counter()
                    async with counting:
                        async for page in strategy.crawl(
                            srv.url + "/", fetcher=counting, max_requests=budget
                        ):
                            pages += 1
                            # Near-duplicate URLs of one record (keys reordered, tracking
                            # added) count once.
                            record = truth.record_of(page.final_url)
                            if page.status == 200 and record and record not in fetched:
                                fetched.add(record)
                                curve.append((counting.sent, len(fetched) / total))
                    wall = time.perf_counter() - started
                stats = srv.stats()
                runs.append(
                    BenchRun(
                        site=site,
                        strategy=name,
                        records=total,
                        records_fetched=len(fetched),
                        requests=int(stats["requests"]),
                        requests_by_kind=dict(stats["by_kind"]),
                        bytes=int(stats["bytes"]),
                        wall_s=round(wall, 3),
                        peak_rss_mb=round(memory.peak_mb, 1),
                        pages_fetched=pages,
                        failures=len(strategy.failures),
                        curve=curve,
                    )
                )
    return runs
