"""Benchmarks of the browser layer, as ratios against a reference measured in the same run.

Usage (from /work/main)::

    PYTHONPATH=.:fixtures .venv/bin/python benchmarks/browser_bench.py speed  [--pages 200]
    PYTHONPATH=.:fixtures .venv/bin/python benchmarks/browser_bench.py auto   [--pages 3000]
    PYTHONPATH=.:fixtures .venv/bin/python benchmarks/browser_bench.py memory [--pages 10000]
    PYTHONPATH=.:fixtures .venv/bin/python benchmarks/browser_bench.py sphinx [--pages 20]

* ``speed``: pages/s of :class:`BrowserFetcher` (the pool: routing, scope, links with DOM paths)
  against a bare Playwright loop (one page, ``goto`` + ``content()`` + the anchors' hrefs) over
  the same fixture pages; rounds alternate and the best round of each counts. Target >= 0.9x.
* ``auto``: pages/s of auto mode against plain httpx + lxml (:class:`HttpFetcher`) over the same
  pages of the "books" site (server-rendered except a JS menu), and whether auto mode still finds
  the JS-only links of the books and news sites. Target >= 0.5x.
* ``memory``: the pool over N distinct pages; PSS of the browser's process tree (and the Python
  process's RSS) at page 1,000 and at page N. Target: within 20 %.
* ``sphinx``: the real Sphinx build of ``tests/data/real/sphinx`` (a client-side search that
  fetches every result's page), five queries through the form filler with the sub-request rules
  and the settle wait after load off (as before issue 14) and on: requests the server saw per query,
  results read; then the median render time of N "books" fixture pages, settle wait off and on.

Each prints one JSON object per measurement on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from email.utils import formatdate
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psutil
from deepcrawl_fixtures import FixtureServer
from playwright.async_api import async_playwright

from deepcrawl.browser import (
    AdaptiveFetcher,
    BrowserFetcher,
    BrowserPool,
    HttpFetcher,
    Subrequests,
    find_chromium,
    render_page,
)
from deepcrawl.browser.render import SETTLE_MAX_S
from deepcrawl.browser.testing import LocalSite, Reply
from deepcrawl.search import FormFiller, find_search_form
from deepcrawl.settings import Settings, load_settings

if TYPE_CHECKING:
    from collections.abc import Callable


def _urls(srv: FixtureServer, count: int) -> list[str]:
    truth = srv.truth()
    paths: list[str] = []
    for kind, kind_paths in sorted(truth.sample_paths(per_kind=20).items()):
        if kind in {"home", "results", "detail", "print", "category", "browse", "calendar"}:
            paths += kind_paths
    paths += list(truth.detail_paths)
    paths += [p + "/print" for p in truth.detail_paths]
    return [srv.url + p for p in dict.fromkeys(paths)][:count]


async def _bare_loop(settings: Settings, urls: list[str]) -> float:
    chromium = find_chromium(settings)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=str(chromium), args=list(settings.browser.launch_args)
        )
        page = await browser.new_page()
        await page.goto(urls[0])
        started = time.perf_counter()
        for url in urls:
            await page.goto(url)
            await page.content()
            await page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
        elapsed = time.perf_counter() - started
        await browser.close()
    return len(urls) / elapsed


async def _pool_loop(settings: Settings, urls: list[str], *, forms: bool) -> float:
    async with BrowserFetcher(settings, {"127.0.0.1"}, forms=forms) as fetcher:
        await fetcher.fetch(urls[0])
        started = time.perf_counter()
        for url in urls:
            await fetcher.fetch(url)
        elapsed = time.perf_counter() - started
    return len(urls) / elapsed


async def speed(pages: int, rounds: int) -> list[dict[str, Any]]:
    """Pool vs bare Playwright loop, best of ``rounds`` alternating rounds."""
    settings = load_settings()
    with FixtureServer("books", records=max(500, pages)) as srv:
        urls = _urls(srv, pages)
        bare: list[float] = []
        pool: list[float] = []
        pool_forms: list[float] = []
        for _ in range(rounds):
            bare.append(await _bare_loop(settings, urls))
            pool.append(await _pool_loop(settings, urls, forms=False))
            pool_forms.append(await _pool_loop(settings, urls, forms=True))
    return [
        {
            "bench": "pool_vs_bare",
            "pages": len(urls),
            "bare_pages_s": round(max(bare), 2),
            "pool_pages_s": round(max(pool), 2),
            "pool_with_forms_pages_s": round(max(pool_forms), 2),
            "ratio": round(max(pool) / max(bare), 3),
            "ratio_with_forms": round(max(pool_forms) / max(bare), 3),
            "rounds": {"bare": bare, "pool": pool, "pool_forms": pool_forms},
        }
    ]


async def _run(fetcher: Any, urls: list[str]) -> tuple[float, int]:
    started = time.perf_counter()
    errors = 0
    async with fetcher:
        for url in urls:
            try:
                await fetcher.fetch(url)
            except Exception:  # counted, the benchmark goes on
                errors += 1
        elapsed = time.perf_counter() - started
    return len(urls) / elapsed, errors


async def _js_links_found(site: str, wanted: list[str]) -> dict[str, Any]:
    settings = load_settings()
    with FixtureServer(site, records=500) as srv:
        async with AdaptiveFetcher(settings, render="auto") as fetcher:
            home = await fetcher.fetch(srv.url + "/")
        found = {link.url for link in home.links}
        return {
            "site": site,
            "js_only_links_found": all(srv.url + w in found for w in wanted),
            "wanted": wanted,
        }


async def auto(pages: int) -> list[dict[str, Any]]:
    """Auto mode vs plain httpx + lxml on the books site; JS-only links on books and news."""
    settings = load_settings()
    with FixtureServer("books", records=max(500, pages // 2)) as srv:
        urls = [srv.url + "/", *_urls(srv, pages - 1)]
        http_rate, http_errors = await _run(HttpFetcher(settings), urls)
        fetcher = AdaptiveFetcher(settings, render="auto")
        auto_rate, auto_errors = await _run(fetcher, urls)
        http_rate2, _ = await _run(HttpFetcher(settings), urls)
    verdicts = {
        key: ("browser" if v.browser else "http", v.samples) for key, v in fetcher.verdicts.items()
    }
    results: list[dict[str, Any]] = [
        {
            "bench": "auto_vs_http",
            "site": "books",
            "pages": len(urls),
            "http_pages_s": round(max(http_rate, http_rate2), 1),
            "auto_pages_s": round(auto_rate, 1),
            "ratio": round(auto_rate / max(http_rate, http_rate2), 3),
            "errors": {"http": http_errors, "auto": auto_errors},
            "auto_counts": fetcher.counts,
            "verdicts": verdicts,
        }
    ]
    results.append(await _js_links_found("books", ["/new", "/bestsellers"]))
    results.append(await _js_links_found("news", ["/section/politics", "/section/travel"]))
    return results


def _python_rss_mb() -> float:
    return float(psutil.Process().memory_info().rss) / (1024 * 1024)


async def memory(pages: int) -> list[dict[str, Any]]:
    """Browser PSS at page 1,000 and page ``pages`` of one long pool run."""
    settings = load_settings()
    checkpoints: dict[int, dict[str, float]] = {}
    with FixtureServer("books", records=max(500, pages // 2 + 1)) as srv:
        urls = _urls(srv, pages)
        async with BrowserFetcher(settings, {"127.0.0.1"}) as fetcher:
            started = time.perf_counter()
            peak = 0.0
            errors = 0
            for number, url in enumerate(urls, 1):
                try:
                    await fetcher.fetch(url)
                except Exception:  # counted, the run goes on
                    errors += 1
                if number % 100 == 0:
                    pss = await asyncio.to_thread(fetcher.pool.memory_mb)
                    peak = max(peak, pss)
                    checkpoints[number] = {
                        "browser_pss_mb": round(pss, 1),
                        "peak_browser_pss_mb": round(peak, 1),
                        "python_rss_mb": round(_python_rss_mb(), 1),
                        "elapsed_s": round(time.perf_counter() - started, 1),
                    }
            stats = fetcher.pool.stats
    first = checkpoints[1000]
    last = checkpoints[max(checkpoints)]
    window = [v["browser_pss_mb"] for k, v in checkpoints.items() if k > max(checkpoints) - 1000]
    early = [v["browser_pss_mb"] for k, v in checkpoints.items() if k <= 1000]
    return [
        {
            "bench": "memory",
            "pages": len(urls),
            "errors": errors,
            "at_1000": first,
            "at_last": last,
            "peak_first_1000_mb": max(early),
            "peak_last_1000_mb": max(window),
            "ratio_peak_last_vs_first": round(max(window) / max(early), 3),
            "python_rss_ratio": round(last["python_rss_mb"] / first["python_rss_mb"], 3),
            "pool": {
                "contexts": stats.contexts,
                "launches": stats.launches,
                "memory_restarts": stats.memory_restarts,
                "discarded": stats.discarded,
            },
        }
    ]


_SPHINX = Path(__file__).parents[1] / "tests" / "data" / "real" / "sphinx"


def _pool(settings: Settings, *, off: bool) -> BrowserPool:
    """A pool with (``off``: without) the subrequest rules: no refusal, no memory cache."""
    timeout = settings.browser.page_timeout_s
    answers = Subrequests(timeout, block_linked=False, cache_bytes=0) if off else None
    return BrowserPool(settings, {"127.0.0.1"}, subrequests=answers)


def _sphinx_routes() -> dict[str, Reply | Callable[[str], Reply]]:
    types = {".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css"}
    return {
        "/" + path.relative_to(_SPHINX).as_posix(): Reply(
            path.read_bytes(),
            content_type=types[path.suffix],
            headers=(("Last-Modified", formatdate(path.stat().st_mtime, usegmt=True)),),
        )
        for path in _SPHINX.rglob("*")
        if path.suffix in types
    }


async def _sphinx_queries(settings: Settings, site: LocalSite, *, off: bool) -> dict[str, Any]:
    words = ("river", "castle", "falcon", "copper", "meadow")
    async with _pool(settings, off=off) as pool:
        form, verdict = await find_search_form(f"{site.url}/search.html", settings, pool)
        filler = FormFiller(pool, form, verdict, settings)
        await filler.learn_baseline()
        asked: list[int] = []
        documents: list[int] = []
        results: list[int] = []
        for word in words:
            before = len(site.log)
            result = await filler.query(word, max_pages=1)
            paths = [path.split("?", 1)[0] for _method, path in site.log[before:]]
            asked.append(len(paths))
            documents.append(sum(path.endswith(".html") for path in paths))
            results.append(len(result.result_urls))
    return {"requests": asked, "documents": documents, "results": results}


async def sphinx(pages: int) -> list[dict[str, Any]]:
    """Requests per query on a real client-side search, and the settle wait's cost."""
    settings = load_settings()
    out: dict[str, Any] = {"bench": "sphinx"}
    for name in ("off", "on"):
        with LocalSite(_sphinx_routes()) as site:
            out[f"queries_{name}"] = await _sphinx_queries(settings, site, off=name == "off")
    timings: dict[str, list[float]] = {"off": [], "on": []}
    with FixtureServer("books", records=500) as srv:
        urls = _urls(srv, pages)
        async with _pool(settings, off=True) as old, _pool(settings, off=False) as new:
            for url in urls:
                for name, pool, settle_s in (("off", old, 0.0), ("on", new, SETTLE_MAX_S)):
                    async with pool.page() as lease:
                        started = time.perf_counter()
                        await render_page(lease, url, forms=False, settle_s=settle_s)
                        timings[name].append(time.perf_counter() - started)
    for name, values in timings.items():
        out[f"render_median_ms_{name}"] = round(statistics.median(values) * 1000, 1)
    out["pages"] = len(urls)
    return [out]


def main() -> None:
    """Parse the command line and run one benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench", choices=["speed", "auto", "memory", "sphinx"])
    parser.add_argument("--pages", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if args.bench == "speed":
        results = asyncio.run(speed(args.pages or 200, args.rounds))
    elif args.bench == "auto":
        results = asyncio.run(auto(args.pages or 3000))
    elif args.bench == "sphinx":
        results = asyncio.run(sphinx(args.pages or 20))
    else:
        results = asyncio.run(memory(args.pages or 10_000))
    for result in results:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
