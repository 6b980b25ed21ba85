"""Benchmark of the link-learning strategies (ACHE, apprentice, xCrawl) against breadth-first.

Two jobs (issue 8), each with the figures of DESIGN.md and each paper's own measure:

A. **finding the search form** on maze sites (``benchmarks/links_sites.py``) whose form is two
   or three clicks deep behind pages of unrelated links: requests until the first page holding
   a form the critic (deepcrawl's form critic) accepts; ACHE's measure, forms per page fetched.
   The learners run *Online* (from scratch) and *Offline-Online* (a prior learnt on the other
   maze sites, leave-one-site-out: ACHE's paths, the apprentice's baseline-crawl lessons).
B. **navigational recall**: records reached by following links, on the fixture sites (books,
   shop, news) and the maze sites (where 10% of the records are never returned by the form),
   with the record validator a URL pattern: record recall and harvest rate at a fixed request
   budget (requests counted by the server); the apprentice's loss rate (against its own
   best-first baseline too, as the paper compares); xCrawl's recall at a fixed time (the wall
   time xCrawl took to converge, as the paper's protocol; every run is cut there).

Run: ``PYTHONPATH=.:fixtures .venv/bin/python benchmarks/links_bench.py [--quick] [--json F]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from links_sites import MazeServer, MazeSite

from deepcrawl.browser.base import FetchedPage, Fetcher, Link
from deepcrawl.classify.dom import page_links
from deepcrawl.crawler import STRATEGIES, form_target, pattern_target
from deepcrawl.crawler.ache import AcheCrawler
from deepcrawl.crawler.apprentice import ApprenticeCrawler
from deepcrawl.crawler.focused import url_key
from deepcrawl.errors import NetworkError
from deepcrawl.settings import Settings, load_settings

if TYPE_CHECKING:
    from collections.abc import Callable

RECORD_PATTERNS = {
    "books": r"/book/\d+",
    "shop": r"/item\?id=\d+&cat=[a-z]+",
    "news": r"/\d{4}/\d{2}/\d{2}/[a-z0-9-]+/?",
    "maze": r"/item/\d+",
}


class HttpFetcher(Fetcher):
    """Plain httpx + lxml fetcher (the bench measures strategies, not rendering)."""

    def __init__(self) -> None:
        self.client: httpx.AsyncClient | None = None
        self.sent = 0

    async def open(self) -> None:
        self.client = httpx.AsyncClient(follow_redirects=True, timeout=10.0)

    async def close(self) -> None:
        if self.client is not None:
            await self.client.aclose()

    async def fetch(self, url: str) -> FetchedPage:
        assert self.client is not None
        self.sent += 1
        started = time.perf_counter()
        try:
            response = await self.client.get(url)
        except httpx.HTTPError as exc:
            raise NetworkError(url, str(exc) or type(exc).__name__) from exc
        ctype = response.headers.get("content-type", "").split(";")[0].strip().lower()
        body = response.text
        links = (
            [Link(c.url, c.anchor) for c in page_links(body, str(response.url), d_max=0)]
            if ctype == "text/html"
            else []
        )
        return FetchedPage(
            url=url,
            final_url=str(response.url),
            status=response.status_code,
            content_type=ctype,
            body=body,
            links=links,
            elapsed_s=time.perf_counter() - started,
        )


def _settings(**links: Any) -> Settings:
    return load_settings(
        politeness={"requests_per_second": 0.0, "concurrency_per_host": 4}, links=links
    )


def _make(name: str, settings: Settings, target: Callable[[FetchedPage], bool], prior: Any) -> Any:
    if name == "bfs":
        return STRATEGIES["bfs"](settings)
    base = name.split("-")[0]
    cls: Any = STRATEGIES[base]
    if prior is not None and base in {"ache", "apprentice"}:
        return cls(settings, is_target=target, prior=prior)
    return cls(settings, is_target=target)


async def _run(
    strategy: Any, url: str, budget: int, judge: Callable[[FetchedPage], bool], stop_first: bool
) -> dict[str, Any]:
    fetched: list[tuple[float, str, bool]] = []
    started = time.perf_counter()
    async with HttpFetcher() as fetcher:
        async for page in strategy.crawl(url + "/", fetcher=fetcher, max_requests=budget):
            ok = strategy.judged.get(page.final_url) if hasattr(strategy, "judged") else None
            verdict = judge(page) if ok is None else ok
            fetched.append((time.perf_counter() - started, url_key(page.final_url), verdict))
            if stop_first and verdict:
                break
        sent = fetcher.sent
    return {"pages": fetched, "sent": sent, "wall_s": time.perf_counter() - started}


# -- job A --------------------------------------------------------------------------------------


async def _training_sets(
    seeds: list[int], target: Callable[[FetchedPage], bool]
) -> dict[int, tuple[list[Any], list[Any]]]:
    """Per maze seed: ACHE paths and apprentice lessons from a full crawl of that site."""
    out: dict[int, tuple[list[Any], list[Any]]] = {}
    for seed in seeds:
        site = MazeSite(seed, form_depth=2 + seed % 2, records=60)
        with MazeServer(site) as srv:
            ache = AcheCrawler(_settings(learning_threshold=10**9), is_target=target)
            await _run(ache, srv.url, 400, target, stop_first=False)
            apprentice = ApprenticeCrawler(_settings(apprentice_batch=50), is_target=target)
            await _run(apprentice, srv.url, 400, target, stop_first=False)
        out[seed] = (ache.collect_examples(), [(list(x), v) for x, v in apprentice.instances])
    return out


async def job_a(seeds: list[int], settings_target: Settings) -> list[dict[str, Any]]:
    """Requests until the search form is found, per maze site and strategy."""
    target = form_target(settings_target)
    training = await _training_sets(seeds, target)
    rows = []
    variants = ["bfs", "ache-online", "ache", "ache-svm", "apprentice-online", "apprentice"]
    variants.append("xcrawl")
    for seed in seeds:
        site = MazeSite(seed, form_depth=2 + seed % 2)
        others = [s for s in seeds if s != seed]
        for name in variants:
            prior: Any = None
            links: dict[str, Any] = {"max_targets": 1}
            if name in {"ache", "ache-svm"}:
                prior = [ex for s in others for ex in training[s][0]]
                links["link_model"] = "svm" if name == "ache-svm" else "nb"
            elif name == "apprentice":
                prior = [ex for s in others for ex in training[s][1]]
            strategy = _make(name, _settings(**links), target, prior)
            with MazeServer(site) as srv:
                run = await _run(strategy, srv.url, 600, target, stop_first=True)
                requests = srv.requests
            found = any(v for _, _, v in run["pages"])
            rows.append(
                {
                    "job": "A",
                    "site": f"maze-{seed}(depth {site.form_depth})",
                    "strategy": name,
                    "found": found,
                    "requests_to_form": requests if found else None,
                    "forms_per_page": round(1 / len(run["pages"]), 4) if found else 0.0,
                }
            )
            print(rows[-1], file=sys.stderr)
    return rows


# -- job B --------------------------------------------------------------------------------------


async def _job_b_site(
    label: str, url: str, records: list[str], extra: dict[str, list[str]], kind: str,
    budget: int, count: Callable[[], int], reset: Callable[[], None],
) -> list[dict[str, Any]]:  # fmt: skip
    target = pattern_target(RECORD_PATTERNS[kind])
    wanted = set(records)
    runs = {}
    variants: dict[str, dict[str, Any]] = {
        "bfs": {},
        "ache": {},  # the paper's learning threshold: 100 targets
        "ache-t10": {"learning_threshold": 10},
        "ache-svm-t10": {"learning_threshold": 10, "link_model": "svm"},
        "apprentice-baseline": {"apprentice_batch": 10**9},  # never consulted: best-first
        "apprentice": {},
        "xcrawl": {},
    }
    for name, links in variants.items():
        strategy = _make(name, _settings(**links), target, None)
        reset()
        run = await _run(strategy, url, budget, target, stop_first=False)
        run["requests"] = count()
        runs[name] = run
    # xCrawl's measure: recall when xCrawl stopped (its convergence time), for every run.
    fixed_time = runs["xcrawl"]["wall_s"]
    rows = []
    for name, run in runs.items():
        got: set[str] = set()
        got_at_time: set[str] = set()
        for t, key, _ in run["pages"]:
            if key in wanted:
                got.add(key)
                if t <= fixed_time:
                    got_at_time.add(key)
        pages = len(run["pages"])
        row = {
            "job": "B",
            "site": label,
            "strategy": name,
            "requests": run["requests"],
            "records": len(got),
            "recall": round(len(got) / len(wanted), 4),
            "harvest": round(len(got) / run["requests"], 4) if run["requests"] else 0.0,
            "loss_rate": round(1 - len(got) / pages, 4) if pages else 1.0,
            "recall_at_fixed_time": round(len(got_at_time) / len(wanted), 4),
            "fixed_time_s": round(fixed_time, 2),
        }
        for extra_name, paths in extra.items():
            row[f"recall_{extra_name}"] = round(len(got & set(paths)) / max(1, len(paths)), 4)
        rows.append(row)
        print(row, file=sys.stderr)
    return rows


def _counter(srv: MazeServer) -> Callable[[], int]:
    return lambda: srv.requests


def _fixture_counter(srv: Any) -> Callable[[], int]:
    return lambda: int(srv.stats()["requests"])


async def job_b(fixture_sites: list[str], maze_seeds: list[int], budget: int) -> list[Any]:
    """Record recall and harvest at a fixed budget, per site and strategy."""
    rows: list[Any] = []
    for seed in maze_seeds:
        site = MazeSite(seed, form_depth=2 + seed % 2, records=300)
        with MazeServer(site) as srv:
            rows += await _job_b_site(
                f"maze-{seed}", srv.url, site.record_paths, {"nav_only": site.nav_only_paths},
                "maze", budget, _counter(srv), srv.reset,
            )  # fmt: skip
    if fixture_sites:
        from deepcrawl_fixtures import FixtureServer

        for name in fixture_sites:
            with FixtureServer(name, records=500, seed=0) as fsrv:
                truth = fsrv.truth()
                rows += await _job_b_site(
                    name, fsrv.url, truth.detail_paths, {}, name, budget,
                    _fixture_counter(fsrv), fsrv.reset_stats,
                )  # fmt: skip
    return rows


def main() -> None:
    """Run both jobs and print a table (and JSON when asked)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sites, smaller budget")
    parser.add_argument("--job", choices=["A", "B", "both"], default="both")
    parser.add_argument("--json", type=Path, help="write the rows as JSON here")
    parser.add_argument("--fixtures", nargs="*", help="fixture sites of job B")
    parser.add_argument("--mazes", type=int, help="maze sites (job A: at least 2)")
    parser.add_argument("--budget", type=int, help="request budget of job B")
    args = parser.parse_args()
    seeds = [1, 2, 3, 4] if args.quick else [1, 2, 3, 4, 5, 6]
    if args.mazes:
        seeds = list(range(1, args.mazes + 1))
    rows: list[Any] = []
    if args.job in {"A", "both"}:
        rows += asyncio.run(job_a(seeds, load_settings()))
    if args.job in {"B", "both"}:
        fixtures = ["books"] if args.quick else ["books", "shop", "news"]
        if args.fixtures is not None:
            fixtures = args.fixtures
        budget = args.budget or (600 if args.quick else 1000)
        rows += asyncio.run(job_b(fixtures, seeds[:2], budget))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    for row in rows:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
