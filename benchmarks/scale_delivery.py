"""Cost of one poll of a shared crawl's delivery point at 10k, 100k and 1M stored pages (issue 9).

Usage::

    PYTHONPATH=.:fixtures .venv/bin/python benchmarks/scale_delivery.py

Starts a throw-away PostgreSQL server and grows one site's page table to each size, every page
delivered but the last 200 (what workers stored since the last poll), with the watermark 1,000
pages below the top (the lag window). Then the median milliseconds of:

* **poll** — :meth:`CrawlState.undelivered_after <deepcrawl.storage.state.CrawlState
  .undelivered_after>` from the watermark, as :class:`~deepcrawl.crawler.deliver.DeliveryPoller`
  runs it every ``crawl.deliver_poll_s`` (``NOT EXISTS`` on the delivery's unique page id);
* **NOT IN** — the reference, measured in the same run: the same read with ``page.id NOT IN
  (the site's deliveries)``, the form the crawl state used before (cancelled after
  ``--timeout`` seconds: once the deliveries outgrow ``work_mem``, PostgreSQL cannot hash them
  and rescans them for every page);
* **sweep** — :meth:`CrawlState.undelivered <deepcrawl.storage.state.CrawlState.undelivered>`,
  the final full sweep, run once per crawl (it reads the whole site on purpose).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import TYPE_CHECKING

import sqlalchemy as sa
from deepcrawl_fixtures.postgres import PostgresServer
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import defer
from sqlmodel import Session, col, select

from deepcrawl.storage import Repository
from deepcrawl.storage import tables as t
from deepcrawl.storage.state import CrawlState

if TYPE_CHECKING:
    from collections.abc import Callable

#: Pages stored since the last poll, and the lag window below them.
NEW, WINDOW = 200, 1000


def grow(repo: Repository, site_id: int, size: int) -> int:
    """Fill the site's pages up to ``size``, all delivered but the last ``NEW``; the top id."""
    with repo.engine.begin() as conn:
        have = conn.execute(
            sa.text("SELECT count(*) FROM page WHERE site_id = :s"), {"s": site_id}
        ).scalar_one()
        conn.execute(
            sa.text(
                "INSERT INTO page (site_id, url, final_url, status, content_type, size, via, "
                "fetched_at, elapsed_s, kind, body) SELECT :s, 'http://shop.test/book/' || g, "
                "'', 200, 'text/html', 2048, 'http', now(), 0, 'record', "
                "convert_to(repeat('x', 2048), 'UTF8') "
                "FROM generate_series(CAST(:a AS int), CAST(:b AS int)) g"
            ),
            {"s": site_id, "a": have + 1, "b": size},
        )
        top = int(
            conn.execute(
                sa.text("SELECT max(id) FROM page WHERE site_id = :s"), {"s": site_id}
            ).scalar_one()
        )
        conn.execute(
            sa.text(
                "INSERT INTO delivery (site_id, page_id, delivered_at) SELECT p.site_id, p.id, "
                "now() FROM page p WHERE p.site_id = :s AND p.id <= :hi AND NOT EXISTS "
                "(SELECT 1 FROM delivery d WHERE d.page_id = p.id)"
            ),
            {"s": site_id, "hi": top - NEW},
        )
    with repo.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(sa.text("VACUUM ANALYZE page"))
        conn.execute(sa.text("VACUUM ANALYZE delivery"))
    return top


def not_in(repo: Repository, site_id: int, after: int, timeout_s: float) -> int:
    """The reference: the poll's read with ``NOT IN`` over the site's deliveries; how many
    pages, or -1 when it ran past ``timeout_s``."""
    delivered = select(t.Delivery.page_id).where(t.Delivery.site_id == site_id)
    stmt = (
        select(t.Page)
        .where(
            t.Page.site_id == site_id,
            t.Page.kind == "record",
            col(t.Page.error).is_(None),
            col(t.Page.id).not_in(delivered),
            col(t.Page.id) > after,
        )
        .order_by(col(t.Page.id))
        .limit(200)
        .options(defer(t.Page.body))  # type: ignore[arg-type]
    )
    with Session(repo.engine) as s:
        s.connection().exec_driver_sql(f"SET LOCAL statement_timeout = {int(timeout_s * 1000)}")
        try:
            return len([t.PageRead.model_validate(r) for r in s.exec(stmt).all()])
        except OperationalError:  # cancelled by the timeout
            return -1


def median_ms(run: Callable[[], int], times: int) -> tuple[float, set[int]]:
    """Median milliseconds of ``run`` over ``times`` runs, and what the runs returned."""
    spent, found = [], set()
    for _ in range(times):
        started = time.perf_counter()
        found.add(run())
        spent.append((time.perf_counter() - started) * 1000)
    return statistics.median(spent), found


def main() -> None:
    """Grow the page table and print the table of costs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--timeout", type=float, default=60.0, help="NOT IN's limit, seconds")
    args = parser.parse_args()
    rows: list[tuple[int, float, str, str, float]] = []
    with PostgresServer() as pg, Repository.open(pg.url) as repo:
        site = repo.site("http://shop.test/")
        state = CrawlState(repo, site.id)
        for size in args.sizes:
            top = grow(repo, site.id, size)
            mark = top - WINDOW

            def poll_once(m: int = mark) -> int:
                return len(list(state.undelivered_after(m)))

            def reference(m: int = mark) -> int:
                return not_in(repo, site.id, m, args.timeout)

            poll, n_poll = median_ms(poll_once, 21)
            print(f"{size}: poll {poll:.2f} ms", flush=True)
            sweep, n_sweep = median_ms(lambda: len(list(state.undelivered())), 1)
            ref, n_ref = median_ms(reference, 3)
            assert n_poll == n_sweep == {NEW}, (n_poll, n_sweep)
            assert n_ref <= {NEW, -1}, n_ref
            if n_ref == {NEW}:
                shown, ratio = f"{ref:.1f}", f"{ref / poll:.0f}x"
            else:
                limit = args.timeout * 1000
                if n_ref == {-1}:
                    shown, ratio = f"> {limit:.0f} (cancelled)", f"> {limit / poll:.0f}x"
                else:
                    shown, ratio = (
                        f"{ref:.0f} (runs cancelled at {limit:.0f})",
                        f"{ref / poll:.0f}x",
                    )
            rows.append((size, poll, shown, ratio, sweep))
            print(f"{size}: NOT IN {shown} ms, sweep {sweep:.0f} ms", flush=True)
    print("\n| stored pages | poll ms | NOT IN ms (reference) | ÷ poll | sweep ms (once) |")
    print("|---|---|---|---|---|")
    for size, poll, shown, ratio, sweep in rows:
        print(f"| {size:,} | {poll:.2f} | {shown} | {ratio} | {sweep:.0f} |")
    first, last = rows[0][1], rows[-1][1]
    print(f"poll at {rows[-1][0]:,} ÷ at {rows[0][0]:,}: {last / first:.2f}x")
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
