"""Benchmarks of the browser layer, as ratios against a reference measured in the same run.

Usage (from /work/main)::

    PYTHONPATH=.:fixtures .venv/bin/python benchmarks/browser_bench.py speed  [--pages 200]
    PYTHONPATH=.:fixtures .venv/bin/python benchmarks/browser_bench.py auto   [--pages 3000]
    PYTHONPATH=.:fixtures .venv/bin/python benchmarks/browser_bench.py memory [--pages 10000]

* ``speed``: pages/s of :class:`BrowserFetcher` (the pool: routing, scope, links with DOM paths)
  against a bare Playwright loop (one page, ``goto`` + ``content()`` + the anchors' hrefs) over
  the same fixture pages; rounds alternate and the best round of each counts. Target >= 0.9x.
* ``auto``: pages/s of auto mode against plain httpx + lxml (:class:`HttpFetcher`) over the same
  pages of the "books" site (server-rendered except a JS menu), and whether auto mode still finds
  the JS-only links of the books and news sites. Target >= 0.5x.
* ``memory``: the pool over N distinct pages; PSS of the browser's process tree (and the Python
  process's RSS) at page 1,000 and at page N. Target: within 20 %.

Each prints one JSON object per measurement on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

import psutil
from deepcrawl_fixtures import FixtureServer
from playwright.async_api import async_playwright

from deepcrawl.browser import AdaptiveFetcher, BrowserFetcher, HttpFetcher, find_chromium
from deepcrawl.settings import Settings, load_settings


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


def main() -> None:
    """Parse the command line and run one benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench", choices=["speed", "auto", "memory"])
    parser.add_argument("--pages", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if args.bench == "speed":
        results = asyncio.run(speed(args.pages or 200, args.rounds))
    elif args.bench == "auto":
        results = asyncio.run(auto(args.pages or 3000))
    else:
        results = asyncio.run(memory(args.pages or 10_000))
    for result in results:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
