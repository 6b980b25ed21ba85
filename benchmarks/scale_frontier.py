"""The frontier's cost per operation as it grows: 10k, 100k, 1M queued links (issue 9).

Usage::

    PYTHONPATH=.:fixtures .venv/bin/python benchmarks/scale_frontier.py [--backend sqlite]

For SQLite (a file) and PostgreSQL (a throw-away server, ``PostgresServer``): fill one site's
frontier to each size with random priorities (as the URL classifier's scores are), then time,
at that size, ``add`` (batches of 100 new URLs, per URL), ``lease(1)`` and ``complete`` — what a
fetch worker does per page — and print microseconds per operation. The target (issue 9): the
figures at 1M within 2x of those at 10k. Sizes grow in one database, so each size is measured
on the same table the smaller ones were.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from deepcrawl_fixtures.postgres import PostgresServer

from deepcrawl.storage import Repository
from deepcrawl.storage.frontier import Lease, NewURL, SqlFrontier

if TYPE_CHECKING:
    from collections.abc import Callable

_FILL_BATCH = 5000


def _urls(start: int, n: int, rng: random.Random) -> list[NewURL]:
    return [
        NewURL(f"http://big.test/item/{i}", priority=round(rng.random(), 4))
        for i in range(start, start + n)
    ]


def _time_us(op: Callable[[], object], repeat: int) -> float:
    """Median microseconds of ``repeat`` calls (the median resists the other helpers' load)."""
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        op()
        samples.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(samples)


def _time_ops(
    frontier: SqlFrontier, rng: random.Random, first_id: int, repeat: int
) -> tuple[float, float, float]:
    """Median µs of an add (per URL, batches of 100), a lease of one URL, a complete."""
    next_id = first_id

    def add() -> None:
        nonlocal next_id
        frontier.add(_urls(next_id, 100, rng))
        next_id += 100

    leases: list[Lease] = []
    add_us = _time_us(add, repeat // 4) / 100
    lease_us = _time_us(lambda: leases.extend(frontier.lease(1, lease_s=600)), repeat)
    ids = iter([x.id for x in leases])
    complete_us = _time_us(lambda: frontier.complete(next(ids)), len(leases))
    return add_us, lease_us, complete_us


def measure(url: str, sizes: list[int], repeat: int) -> list[dict[str, float | int | str]]:
    """Fill the frontier of a fresh site to each size and time add, lease, complete there."""
    rng = random.Random(9)
    rows: list[dict[str, float | int | str]] = []
    with Repository.open(url) as repo:
        # no host cap: every timed lease hands a URL out (a capped one would return nothing)
        frontier = SqlFrontier(repo.engine, repo.site("http://big.test/").id)
        filled = 0
        extra = 10**9  # ids of the URLs the timed adds enqueue (never clash with the fill)
        for size in sizes:
            t0 = time.perf_counter()
            while filled < size:
                n = min(_FILL_BATCH, size - filled)
                frontier.add(_urls(filled, n, rng))
                filled += n
            fill_s = time.perf_counter() - t0

            add_us, lease_us, complete_us = _time_ops(frontier, rng, extra, repeat)
            extra += repeat * 100
            rows.append(
                {
                    "backend": repo.engine.dialect.name,
                    "queued": size,
                    "add_us_per_url": round(add_us, 1),
                    "lease_us": round(lease_us, 1),
                    "complete_us": round(complete_us, 1),
                    "fill_s": round(fill_s, 1),
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> None:
    """Measure both backends and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=400, help="timed calls per operation")
    parser.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    args = parser.parse_args()
    rows = []
    if args.backend in ("sqlite", "both"):
        with tempfile.TemporaryDirectory() as tmp:
            rows += measure(f"sqlite:///{Path(tmp) / 'frontier.db'}", args.sizes, args.repeat)
    if args.backend in ("postgresql", "both"):
        with PostgresServer() as pg:
            rows += measure(pg.url, args.sizes, args.repeat)
    print("\n| backend | queued | add µs/URL | lease µs | complete µs |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['backend']} | {r['queued']:,} | {r['add_us_per_url']} | {r['lease_us']} | "
            f"{r['complete_us']} |"
        )
    for backend in {str(r["backend"]) for r in rows}:
        mine = [r for r in rows if r["backend"] == backend]
        for key in ("add_us_per_url", "lease_us", "complete_us"):
            values = [float(r[key]) for r in mine]
            print(f"{backend} {key}: largest / smallest size = {values[-1] / values[0]:.2f}x")


if __name__ == "__main__":
    main()
