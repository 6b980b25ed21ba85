"""Throughput of 1, 2 and 4 ``deepcrawl worker`` processes on one PostgreSQL crawl (issue 9).

Usage::

    PYTHONPATH=.:fixtures .venv/bin/python benchmarks/scale_workers.py --records 100000

Serves the books fixture site with ``--records`` records (its own process) and starts a
throw-away PostgreSQL server. Each round is a crawl of its own (a site row with the record
prototype labelled wanted, and ``--pages`` record URLs of the site in its frontier — what the
setup phase and the query loop of ``deepcrawl crawl`` leave for the workers), then K real
``deepcrawl worker`` processes fetch and store every page over plain HTTP. Throughput is pages
stored per second between the first and the last page's ``fetched_at`` (process start-up
excluded). Rounds run in the order 1, 2, 4, 4, 2, 1 so that a change of load on the machine
shows as a difference between the two rounds of one K.

Workers deliver nothing: the ``deepcrawl crawl`` process is the crawl's one delivery point. Each
round then measures that point's capacity on its own — the crawl's
:class:`~deepcrawl.crawler.deliver.DeliveryPoller` polling the round's stored pages into a JSON
lines file, pages/s — which must stay above the workers' rate for delivery to keep up.

Politeness is off for the fixture site (it is ours): no rate limit, 64 requests in flight; the
record pages' own links are not followed, so each round fetches exactly its ``--pages``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import sqlalchemy as sa
from deepcrawl_fixtures import FixtureServer
from deepcrawl_fixtures.postgres import PostgresServer

from deepcrawl.crawler.context import CrawlContext, CrawlStats
from deepcrawl.crawler.deliver import DeliveryPoller, JsonlSink
from deepcrawl.fetch.politeness import HostLimiter
from deepcrawl.fetch.robots import RobotsPolicy
from deepcrawl.search.results import ResultLink
from deepcrawl.settings import load_settings
from deepcrawl.storage import PrototypeBase, QueryBase, Repository
from deepcrawl.storage.frontier import NewURL, SqlFrontier
from deepcrawl.storage.state import CrawlState

ROOT = Path(__file__).resolve().parents[1]


def prepare(db: str, server: FixtureServer, paths: list[str], name: str) -> int:
    """A labelled crawl of the site whose frontier holds ``paths``; returns its site id."""
    base = server.url
    with Repository.open(db) as repo:
        site = repo.site(f"{base}/?round={name}")
        key = "book"
        pattern = f"{base}/book/[0-9]+".replace(".", r"\.")
        repo.save_prototypes(
            site.id,
            [PrototypeBase(key=key, regex=pattern, count=len(paths), examples=[base + paths[0]])],
        )
        repo.set_label(site.id, key, name="record", relevant=True)
        links = [
            ResultLink(url=base + p, text="", dom_path="", page=1, role="result")
            for p in paths[:50]
        ]
        CrawlState(repo, site.id).save_query(QueryBase(keyword="bench"), links, form_id=None)
        SqlFrontier(repo.engine, site.id).add(NewURL(base + p, priority=0.9) for p in paths)
        return site.id


def run_round(db: str, site_id: int, k: int, tasks: int, work: Path) -> dict[str, float]:
    """Run ``k`` worker processes to the end; pages/s between the first and last fetch."""
    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'fixtures'}",
        "DEEPCRAWL_BROWSER__RENDER": "never",
        "DEEPCRAWL_POLITENESS__REQUESTS_PER_SECOND": "0",
        "DEEPCRAWL_POLITENESS__CONCURRENCY_PER_HOST": "64",
        "DEEPCRAWL_CRAWL__HEARTBEAT_S": "1",
        # the round's pages only (their "related books" links would lead over the whole site)
        "DEEPCRAWL_CRAWL__FOLLOW_RECORD_LINKS": "false",
    }
    cmd = [sys.executable, "-m", "deepcrawl", "worker", "--db", db, "--site", str(site_id)]
    started = time.monotonic()
    procs = [
        subprocess.Popen(
            [*cmd, "--concurrency", str(tasks)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for i in range(k)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=1800)
        if proc.returncode != 0:
            raise SystemExit(f"worker failed: {err.decode()[-2000:]}")
    wall = time.monotonic() - started
    engine = sa.create_engine(db)
    with engine.connect() as conn:
        n, first, last = conn.execute(
            sa.text(
                "SELECT count(*), min(fetched_at), max(fetched_at) FROM page "
                "WHERE site_id = :s AND kind = 'record'"
            ),
            {"s": site_id},
        ).one()
    engine.dispose()
    span = (last - first).total_seconds()
    return {"workers": k, "pages": n, "span_s": round(span, 2), "wall_s": round(wall, 1),
            "pages_per_s": round(n / span, 1), **deliver_round(db, site_id, work)}  # fmt: skip


def deliver_round(db: str, site_id: int, work: Path) -> dict[str, float]:
    """Deliver the round's stored pages as the crawl process does (its poller, a JSON lines
    file, bodies inline): how many, and pages/s."""
    settings = load_settings(storage={"url": db})
    with Repository.open(db, settings.storage) as repo:
        site = repo.find_site(str(site_id))
        ctx = CrawlContext(
            start_url=site.start_url,
            settings=settings,
            repo=repo,
            site=site,
            state=CrawlState(repo, site_id),
            limiter=HostLimiter(settings.politeness),
            robots=RobotsPolicy(settings.http.user_agent),
            stats=CrawlStats(),
        )
        sink = JsonlSink(work / f"site{site_id}.jsonl")
        poller = DeliveryPoller(ctx, sink, full=lambda: False, poll_s=0.0, lag_s=0.0)

        async def drain() -> int:
            total = 0
            while found := await poller.poll():
                total += found
            return total

        started = time.perf_counter()
        n = asyncio.run(drain())
        spent = time.perf_counter() - started
        sink.close()
    return {"delivered": n, "deliver_per_s": round(n / spent, 1)}


def main() -> None:
    """Run the rounds and print the table and the speed-ups."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--pages", type=int, default=4000, help="record pages per round")
    parser.add_argument("--tasks", type=int, default=8, help="fetch tasks per worker")
    parser.add_argument("--order", type=int, nargs="+", default=[1, 2, 4, 4, 2, 1])
    args = parser.parse_args()
    with (
        FixtureServer("books", records=args.records) as server,
        PostgresServer() as pg,
        tempfile.TemporaryDirectory() as tmp,
    ):
        truth = server.truth()
        rows = []
        for i, k in enumerate(args.order):
            # a different slice of the site each round: no page is served from a warm cache
            paths = truth.detail_paths[i * args.pages : (i + 1) * args.pages]
            site_id = prepare(pg.url, server, paths, f"{i}-{k}")
            rows.append(run_round(pg.url, site_id, k, args.tasks, Path(tmp)))
            print(json.dumps(rows[-1]), flush=True)
    by_k: dict[int, list[float]] = {}
    for row in rows:
        by_k.setdefault(int(row["workers"]), []).append(row["pages_per_s"])
    print("\n| workers | pages/s (each round) | mean | ÷ 1 worker |")
    print("|---|---|---|---|")
    one = sum(by_k[1]) / len(by_k[1]) if 1 in by_k else None
    for k, values in sorted(by_k.items()):
        mean = sum(values) / len(values)
        ratio = f"{mean / one:.2f}x" if one else "-"
        print(f"| {k} | {', '.join(f'{v:.0f}' for v in values)} | {mean:.0f} | {ratio} |")
    delivery = [row["deliver_per_s"] for row in rows]
    print(f"delivery point: {min(delivery):.0f}-{max(delivery):.0f} pages/s over the rounds")
    print(f"cores: {os.cpu_count()}; load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
