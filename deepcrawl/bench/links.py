"""The link learners' bench (issue 8): bfs, ACHE, apprentice and xCrawl on the "stacks" site.

Two jobs, each strategy run on the same fixture server (counters reset between runs), every
request counted by the server:

* **form** — entry-point discovery (:func:`~deepcrawl.links.discover.discover_forms`) from
  the home page until a page with a searchable form is found; the search form is two clicks
  deep with an even seed, three with an odd one; the path's wording changes with the seed.
  The learners start from the prior deepcrawl ships (``settings.links.prior``, built from
  other seeds by ``scripts/train_link_prior.py``), as ``deepcrawl discover`` does. Figures:
  pages fetched and server requests until the form, and ACHE's own measure, forms found per
  page fetched.
* **navigate** — the whole crawl (:class:`~deepcrawl.crawler.engine.Crawl`, setup by
  discovery, auto-labelled, queried to saturation) with ``crawl.navigate`` and the strategy as
  ``links.navigate_strategy``. Figures: record recall, recall of the records the form never
  returns (``nav_only``), harvest rate (records ÷ server requests); over the navigate phase
  (the server's requests after the last result page): its requests, the apprentice paper's
  loss rate (share of its fetched pages that are no new record) and xCrawl's measure, the
  nav-only recall at a fixed request budget (``budget`` requests into the phase); and the
  requests into the phase until every nav-only record was fetched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from deepcrawl.bench.runner import CountingFetcher, fixture_settings
from deepcrawl.errors import ConfigError, FixtureError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from rich.table import Table

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.settings import Settings

__all__ = [
    "LINK_STRATEGIES",
    "LinkRun",
    "form_job",
    "links_table",
    "navigate_figures",
    "navigate_job",
]

#: The strategies compared by default: the baseline first.
LINK_STRATEGIES = ("bfs", "ache", "apprentice", "xcrawl")
#: The fixture site built for these jobs.
SITE = "stacks"


@dataclass
class LinkRun:
    """One strategy on one job and site: its figures by name."""

    job: str
    site: str
    strategy: str
    figures: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"job": self.job, "site": self.site, "strategy": self.strategy, **self.figures}


def _servers() -> Any:
    try:
        from deepcrawl_fixtures import FixtureServer
    except ImportError as exc:
        raise FixtureError(
            "the fixture sites are not installed: pip install -e fixtures (from a source checkout)"
        ) from exc
    return FixtureServer


async def form_job(
    strategies: Sequence[str],
    settings: Settings,
    *,
    make_fetcher: Callable[..., Fetcher],
    seeds: Sequence[int] = (0, 1),
    records: int = 300,
    progress: Callable[[str], None] | None = None,
) -> list[LinkRun]:
    """Pages fetched until the search form is found, per seed of the site and strategy.

    The learners start from the prior ``settings.links.prior`` names, as ``deepcrawl
    discover`` does (the one shipped with deepcrawl by default, built from other seeds).

    Raises:
        ConfigError: the prior was built from one of the seeds tested.
    """
    from deepcrawl.links.discover import discover_forms
    from deepcrawl.links.prior import load_prior

    prior = load_prior(settings.links.prior)
    trained = {int(s["seed"]) for s in (prior.sources if prior else []) if s.get("site") == SITE}
    if trained & set(seeds):
        raise ConfigError(
            f"the link prior was built from {SITE} seeds {sorted(trained & set(seeds))}, "
            "which the form job tests on"
        )
    server_cls = _servers()
    settings = fixture_settings(settings)
    runs: list[LinkRun] = []
    for seed in seeds:
        with server_cls(SITE, records=records, seed=seed) as srv:
            form_paths = set(srv.truth().search_form_paths)
            site = f"{SITE}-{seed}"
            for name in strategies:
                if progress:
                    progress(f"form job, {site}: {name}")
                srv.reset_stats()
                fetcher = CountingFetcher(make_fetcher(settings, render="never", forms=False))
                async with fetcher:
                    found = await discover_forms(
                        srv.url + "/", settings, fetcher=fetcher, strategy=name
                    )
                pages = {urlsplit(form["page"]).path for form in found.forms}
                ok = bool(pages & form_paths)
                runs.append(
                    LinkRun("form", site, name, {
                        "found": ok,
                        "pages_to_form": found.pages_fetched if ok else None,
                        "requests": int(srv.stats(log=False)["requests"]),
                        "forms_per_page": round(len(pages) / found.pages_fetched, 4)
                        if found.pages_fetched else 0.0,
                    })
                )  # fmt: skip
    return runs


async def navigate_job(
    strategies: Sequence[str],
    settings: Settings,
    *,
    make_fetcher: Callable[..., Fetcher],
    seed: int = 0,
    records: int = 300,
    budget: int = 300,
    progress: Callable[[str], None] | None = None,
) -> list[LinkRun]:
    """The crawl with ``--navigate`` and each strategy; see the module docstring."""
    from deepcrawl.bench.strategy import DeepcrawlStrategy

    server_cls = _servers()
    settings = fixture_settings(settings)
    runs: list[LinkRun] = []
    with server_cls(SITE, records=records, seed=seed) as srv:
        truth = srv.truth()
        wanted, nav_only = set(truth.detail_paths), set(truth.nav_only_paths)
        for name in strategies:
            if progress:
                progress(f"navigate job, {SITE}-{seed}: {name}")
            srv.reset_stats()
            run_settings = settings.with_overrides(
                crawl={"navigate": True}, links={"navigate_strategy": name}
            )
            strategy = DeepcrawlStrategy(run_settings)
            got: set[str] = set()
            async with CountingFetcher(make_fetcher(run_settings)) as fetcher:
                async for page in strategy.crawl(
                    srv.url + "/", fetcher=fetcher, max_requests=10 * records
                ):
                    record = truth.record_of(page.final_url)
                    if page.status == 200 and record:
                        got.add(record)
            stats = srv.stats()
            runs.append(
                LinkRun(
                    "navigate", f"{SITE}-{seed}", name,
                    navigate_figures(stats, truth, got & wanted, nav_only, budget),
                )
            )  # fmt: skip
    return runs


def navigate_figures(
    stats: dict[str, Any], truth: Any, got: set[str], nav_only: set[str], budget: int
) -> dict[str, Any]:
    """The navigate job's figures of one run (module docstring) from the server's stats.

    Args:
        stats: the fixture server's counters, with the request log.
        truth: the site's ``GroundTruth``.
        got: canonical detail paths of the records the crawl delivered.
        nav_only: the detail paths the search form never returns.
        budget: the fixed request budget of xCrawl's measure.
    """
    log: list[dict[str, Any]] = stats["log"]
    last_results = max((i for i, e in enumerate(log) if e["kind"] == "results"), default=-1)
    phase = log[last_results + 1 :]
    before = {truth.record_of(e["path"]) for e in log[: last_results + 1] if e["kind"] == "detail"}
    new: set[str] = set()
    at_budget = 0
    all_nav_only: int | None = None  # requests into the phase until every nav-only record
    for i, entry in enumerate(phase):
        record = truth.record_of(entry["path"]) if entry["kind"] == "detail" else None
        if record and record not in before:
            new.add(record)
            if all_nav_only is None and nav_only <= new | before:
                all_nav_only = i + 1
        if i + 1 == budget:
            at_budget = len(new & nav_only)
    if len(phase) < budget:
        at_budget = len(new & nav_only)
    requests = int(stats["requests"])
    return {
        "recall": round(len(got) / len(truth.detail_paths), 4),
        "nav_only_recall": round(len(got & nav_only) / max(1, len(nav_only)), 4),
        "harvest": round(len(got) / requests, 4) if requests else 0.0,
        "requests": requests,
        "navigate_requests": len(phase),
        "navigate_records": len(new),
        "loss_rate": round(1 - len(new) / len(phase), 4) if phase else 1.0,
        f"nav_only_recall_at_{budget}": round(at_budget / max(1, len(nav_only)), 4),
        "requests_to_all_nav_only": all_nav_only,
    }


def links_table(runs: Sequence[LinkRun]) -> list[Table]:
    """One rich table per job, one row per (site, strategy), every figure a column."""
    from rich.table import Table

    tables = []
    for job in dict.fromkeys(run.job for run in runs):
        rows = [run for run in runs if run.job == job]
        table = Table(title=f"deepcrawl bench --job {job}", title_justify="left")
        table.add_column("site")
        table.add_column("strategy")
        names = list(rows[0].figures)
        for name in names:
            table.add_column(name.replace("_", " "), justify="right")
        for run in rows:
            table.add_row(run.site, run.strategy, *(str(run.figures[n]) for n in names))
        tables.append(table)
    return tables
