"""``deepcrawl bench --suite real``: the crawl on real web applications, counted by the server.

For each real site of the test bed (``fixtures/real/``, package ``deepcrawl_fixtures.real``):

1. the application is installed if needed and served behind the counting proxy;
2. ``deepcrawl crawl START --like EXAMPLE`` runs as a child process — the start URL and one
   example, nothing else, as a new user would — under a wall-time cap
   (``bench.real_timeout_s``); a crawl that does not stop by itself is killed and said so;
3. the proxy's log of that crawl, the delivered URLs and the application's own truth give the
   figures of :class:`deepcrawl_fixtures.real.score.RealScore`;
4. the log is emptied and the breadth-first baseline (:mod:`deepcrawl.links.bfs`) runs with
   a budget of :data:`BASELINE_FACTOR` × the records, through the same proxy;
5. every same-site URL the baseline saw (fetched or only linked) is a breadth-first URL list of
   the site: ``deepcrawl prototypes --from-file LIST --like EXAMPLE --json`` runs on it as a
   child process, the site still served (it may fetch pages to check the prototype by their
   layout), and its answer is scored against the record pages
   (:mod:`deepcrawl.bench.real_prototypes`).

On a big site (the application's ``reference_client``), the reference client fetches the
truth's record pages right after the crawl, through the same proxy at the same politeness, and
the crawl's time, CPU and memory are compared with it (:mod:`deepcrawl.bench.real_speed`). The
crawl's process tree is sampled on every site (:class:`~deepcrawl.bench.usage.TreeSampler`).
The crawl and the ``prototypes`` command run with the bench's ``--set`` assignments.

With ``no_example`` (``--no-example``) step 2 runs twice: with the example, then with the
start URL alone (``deepcrawl crawl START --auto``: the crawl picks the records' kind itself,
:mod:`deepcrawl.records.pick`), each scored against the same truth; the second run says
whether its pick holds the example (:attr:`RealRun.picked`).

The job ``prototypes`` runs steps 4 and 5 alone (no crawl): the URL list and its F1; the job
``speed`` runs the crawl and the reference client, not the baseline.

The test bed is no part of the installed product: it is imported when a bench runs.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urldefrag

from deepcrawl.bench.child import crawl_stop, delivered_urls, wait_capped
from deepcrawl.bench.real_prototypes import PrototypeF1, prototype_f1, run_prototypes
from deepcrawl.bench.real_run import RealRun
from deepcrawl.bench.real_speed import compare, run_reference
from deepcrawl.bench.usage import TreeSampler
from deepcrawl.errors import FixtureError
from deepcrawl.links import STRATEGIES
from deepcrawl.settings import override_args

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from deepcrawl_fixtures.real import RealApp, Running

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.page.fetched import Link
    from deepcrawl.settings import Settings

__all__ = [
    "BASELINE_FACTOR",
    "REAL_JOBS",
    "RealRun",
    "real_site_names",
    "run_real_bench",
    "settings_args",
]

REAL_JOBS = ("sites", "prototypes", "speed")
"""What a real-site bench runs: everything; the baseline and ``prototypes`` only; the crawl
and the reference client only."""

#: The breadth-first baseline's request budget on a real site, in records of its truth: enough
#: for a crawler that follows every link to reach most records of the bed's sites.
BASELINE_FACTOR = 5


def real_site_names() -> list[str]:
    """The names of the real sites of the test bed.

    Raises:
        FixtureError: the test bed is not installed (``pip install -e fixtures``).
    """
    return sorted(_real_apps())


def run_real_bench(
    sites: Sequence[str],
    settings: Settings,
    *,
    make_fetcher: Callable[[Settings], Fetcher],
    out: Path | None = None,
    progress: Callable[[str], None] | None = None,
    job: str = "sites",
    no_example: bool = False,
) -> list[RealRun]:
    """Crawl every named real site with deepcrawl and with the baseline (and on a big site the
    reference client); a run each.

    Args:
        sites: names of real sites (keys of ``REAL_APPS``).
        settings: the bench's settings (``bench.real_timeout_s``).
        make_fetcher: the baseline's fetcher factory.
        out: a folder kept for each crawl's pages, stats, log and proxy log (``out/SITE/``);
            a temporary one when ``None``.
        progress: called with one line per step.
        job: one of :data:`REAL_JOBS`: ``sites`` runs everything; ``prototypes`` the baseline
            and ``prototypes --like`` over its URL list (written to ``out/SITE/bfs-urls.txt``),
            without the crawl; ``speed`` the crawl and the reference client, without the
            baseline.
        no_example: crawl each site a second time with its start URL alone (module docstring).

    Raises:
        FixtureError: an unknown site or job, or a site that cannot be installed or started.
    """
    from deepcrawl_fixtures.real import serve

    apps = _real_apps()
    unknown = [s for s in sites if s not in apps]
    if unknown:
        raise FixtureError(f"unknown real site {unknown[0]!r}; known: {', '.join(sorted(apps))}")
    if job not in REAL_JOBS:
        raise FixtureError(f"unknown real-site job {job!r}; known: {', '.join(REAL_JOBS)}")
    say = progress or (lambda _msg: None)
    runs: list[RealRun] = []
    with tempfile.TemporaryDirectory(prefix="deepcrawl-real-") as scratch:
        root = out or Path(scratch)
        for name in sites:
            app = apps[name]()
            folder = root / name
            shutil.rmtree(folder, ignore_errors=True)  # a fresh crawl, never a resumed one
            folder.mkdir(parents=True)
            say(f"{name}: installing and starting")
            with serve(app, log_path=folder / "requests.jsonl") as site:
                if job != "prototypes":
                    example = f"--like …{app.like_path}"
                    say(f"{name}: deepcrawl crawl {site.url}{app.start_path} {example}")
                    crawl = _crawl(app, site, folder, settings)
                    runs.append(crawl)
                    shutil.copy(site.log_path, folder / "requests-deepcrawl.jsonl")
                    site.reset()
                    if no_example:
                        say(f"{name}: deepcrawl crawl {site.url}{app.start_path} --auto")
                        runs.append(_crawl(app, site, folder, settings, example=False))
                        shutil.copy(site.log_path, folder / "requests-deepcrawl-auto.jsonl")
                        site.reset()
                    if app.reference_client:
                        say(f"{name}: the reference client over the record pages")
                        reference = run_reference(app, site, folder, settings)
                        crawl.versus_reference = compare(crawl, reference)
                        runs.append(reference)
                        shutil.copy(site.log_path, folder / "requests-reference.jsonl")
                        site.reset()
                if job == "speed":
                    continue
                say(f"{name}: breadth-first baseline")
                baseline = asyncio.run(_baseline(app, site, settings, make_fetcher, folder))
                shutil.copy(site.log_path, folder / "requests-bfs.jsonl")
                site.reset()
                say(
                    f"{name}: deepcrawl prototypes --from-file bfs-urls.txt --like …{app.like_path}"
                )
                baseline.prototypes = _prototypes(app, site, folder, settings)
                runs.append(baseline)
    return runs


def _real_apps() -> dict[str, type[RealApp]]:
    try:
        from deepcrawl_fixtures.real import REAL_APPS
    except ImportError as exc:
        raise FixtureError(
            "the real-site test bed is not installed: pip install -e fixtures (from a source "
            "checkout)"
        ) from exc
    return REAL_APPS


def _crawl(
    app: RealApp, site: Running, folder: Path, settings: Settings, *, example: bool = True
) -> RealRun:
    """Run ``deepcrawl crawl`` as a child under the wall-time cap and score it: with the
    site's example, or (``example`` False) with its start URL alone, in ``crawl-auto``."""
    from deepcrawl_fixtures.real.process import python_env
    from deepcrawl_fixtures.real.score import score

    name = "crawl" if example else "crawl-auto"
    how = ("--like", site.url + app.like_path) if example else ("--auto",)
    cmd = [
        *(sys.executable, "-m", "deepcrawl", *settings_args(), "crawl", site.url + app.start_path),
        *how,
        *("--out", str(folder / name)),
        *("--db", f"sqlite:///{folder / f'{name}.db'}"),
    ]
    started = time.perf_counter()
    with (folder / f"{name}.log").open("w") as log:
        # A session of its own: a kill reaches the browser the crawl started, too. The folder is
        # the working directory: the crawl's stored bodies go there.
        # python_env: the checkout's own code, whatever the working directory.
        proc = subprocess.Popen(
            cmd,
            cwd=folder,
            env=python_env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        with TreeSampler(proc.pid) as sampler:
            killed = wait_capped(proc, settings.bench.real_timeout_s)
    wall = round(time.perf_counter() - started, 1)
    if killed:
        stop = f"killed after {settings.bench.real_timeout_s:.0f} s"
    else:
        stop = crawl_stop(folder, name, proc.returncode)
    delivered = delivered_urls(folder / name / "pages.jsonl")
    return RealRun(
        site=app.name,
        title=app.title,
        crawler="deepcrawl" if example else "deepcrawl-auto",
        score=score(app, site.requests(), delivered),
        stop=stop,
        wall_s=wall,
        usage=sampler.usage,
        picked=None if example else _picked(folder / name, site.url + app.like_path, settings),
    )


def _picked(out: Path, like: str, settings: Settings) -> dict[str, Any] | None:
    """The crawl's ``picked`` object (``stats.json``) and whether the kinds it took hold the
    site's example (``same_as_like``); None when it picked nothing."""
    from deepcrawl.urls import URLNormaliser

    stats = out / "stats.json"
    picked = json.loads(stats.read_text()).get("picked") if stats.exists() else None
    if not picked:
        return None
    normal = URLNormaliser()(like)
    regexes = [r for kind in picked["taken"] for r in kind["prototypes"]]
    return {**picked, "same_as_like": any(re.fullmatch(r, normal) for r in regexes)}


def settings_args() -> list[str]:
    """The ``--set`` assignments in force, as arguments of a ``deepcrawl`` child command: the
    crawl runs with the bench's settings (a raised politeness, say)."""
    return override_args()


async def _baseline(
    app: RealApp,
    site: Running,
    settings: Settings,
    make_fetcher: Callable[[Settings], Fetcher],
    folder: Path,
) -> RealRun:
    """The breadth-first crawler from the start URL, delivering every page it fetched; the URLs
    it saw are written to ``folder/bfs-urls.txt``."""
    from deepcrawl_fixtures.real.score import score

    strategy_cls = STRATEGIES["bfs"]
    run_settings = settings.with_overrides(browser={"render": strategy_cls.render})
    strategy = strategy_cls(run_settings)
    budget = BASELINE_FACTOR * len(app.truth().records)
    delivered: list[str] = []
    start = site.url + app.start_path
    seen: dict[str, None] = {start: None}
    pages = 0
    started = time.perf_counter()
    async with make_fetcher(run_settings) as fetcher:
        async for page in strategy.crawl(start, fetcher=fetcher, max_requests=budget):
            pages += 1
            if page.status == 200:
                delivered.append(page.final_url)
            seen.update(dict.fromkeys(_same_site(site.url, [page.final_url, *page.links])))
    wall = round(time.perf_counter() - started, 1)
    urls = list(seen)
    (folder / "bfs-urls.txt").write_text("".join(f"{url}\n" for url in urls))
    # robots.txt is one request of the budget when it is obeyed
    sent = pages + len(strategy.failures) + run_settings.politeness.obey_robots
    return RealRun(
        site=app.name,
        title=app.title,
        crawler="bfs",
        score=score(app, site.requests(), delivered),
        stop=(f"budget of {budget} requests" if sent >= budget else "no more links")
        + (f"; {len(strategy.failures)} URLs failed" if strategy.failures else ""),
        wall_s=wall,
    )


def _prototypes(app: RealApp, site: Running, folder: Path, settings: Settings) -> PrototypeF1:
    """Run ``prototypes --from-file bfs-urls.txt --like EXAMPLE --json`` on the served site and
    score its answer; the requests it sent are kept in ``requests-prototypes.jsonl``."""
    from deepcrawl_fixtures.real.process import python_env

    urls_file = folder / "bfs-urls.txt"
    answer = run_prototypes(
        urls_file,
        site.url + app.like_path,
        folder,
        timeout_s=settings.bench.real_timeout_s,
        env=python_env(),
        settings_args=settings_args(),
    )
    shutil.copy(site.log_path, folder / "requests-prototypes.jsonl")
    documents = sum(not entry.get("asset") for entry in site.requests())
    return prototype_f1(app, urls_file.read_text().split(), answer, requests=documents)


def _same_site(origin: str, found: Sequence[str | Link]) -> list[str]:
    """The URLs of ``found`` (URLs or links) on the site at ``origin``, fragments removed."""
    prefix = origin.rstrip("/") + "/"
    urls = (urldefrag(item if isinstance(item, str) else item.url).url for item in found)
    return [url for url in urls if url.startswith(prefix) or url == prefix[:-1]]
