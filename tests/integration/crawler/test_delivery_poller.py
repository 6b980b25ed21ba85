"""The delivery point of a shared crawl (issue 9): its watermark, its final sweep, its errors.

Run on a SQLite file and on a real PostgreSQL server (``db_url``). Pages are stored straight
through the repository, as a worker process would, and :class:`DeliveryPoller` delivers them.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import pytest
import sqlalchemy as sa
from sqlmodel import Session, col

from deepcrawl._tasks import supervised
from deepcrawl.crawler.context import CrawlContext, CrawlStats
from deepcrawl.crawler.deliver import CallbackSink, DeliveryPoller
from deepcrawl.fetch.politeness import HostLimiter
from deepcrawl.fetch.robots import RobotsPolicy
from deepcrawl.page.fetched import FetchedPage
from deepcrawl.settings import Settings
from deepcrawl.storage import Repository
from deepcrawl.storage import tables as t
from deepcrawl.storage.frontier import NewURL, SqlFrontier
from deepcrawl.storage.state import CrawlState

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

BASE = "http://shop.test"


def _context(repo: Repository) -> CrawlContext:
    settings = Settings()
    site = repo.site(BASE + "/")
    return CrawlContext(
        start_url=BASE + "/",
        settings=settings,
        repo=repo,
        site=site,
        state=CrawlState(repo, site.id),
        limiter=HostLimiter(settings.politeness),
        robots=RobotsPolicy("test"),
        stats=CrawlStats(),
    )


@pytest.fixture
def ctx(db_url: str) -> Iterator[CrawlContext]:
    with Repository.open(db_url) as repo:
        yield _context(repo)


def store(ctx: CrawlContext, path: str, *, kind: str = "record") -> t.PageRead:
    """Store a page as a worker does."""
    url = BASE + path
    page = FetchedPage(url=url, final_url=url, status=200, content_type="text/html", body=path)
    return ctx.repo.save_page(ctx.site.id, page, kind=kind, with_links=False)


def collector() -> tuple[CallbackSink, list[str]]:
    got: list[str] = []
    return CallbackSink(lambda record: got.append(record["url"].removeprefix(BASE))), got


async def test_poll_delivers_each_stored_record_once(ctx: CrawlContext) -> None:
    sink, got = collector()
    poller = DeliveryPoller(ctx, sink, full=lambda: False, poll_s=0.05, lag_s=0.0)
    first, _second = store(ctx, "/book/1"), store(ctx, "/book/2")
    store(ctx, "/search?q=a", kind="results")  # not a record: never delivered
    ctx.repo.save_failure(ctx.site.id, BASE + "/book/3", "HTTP status 404", kind="record")
    assert await poller.poll() == 2
    assert got == ["/book/1", "/book/2"]
    assert poller.watermark > first.id  # no lag: the watermark is the last page delivered
    assert await poller.poll() == 0  # delivered pages are not offered again
    third = store(ctx, "/book/4")
    assert await poller.poll() == 1
    assert poller.watermark == third.id
    assert got == ["/book/1", "/book/2", "/book/4"]
    assert ctx.state.count("delivered") == 3 == ctx.stats.pages_delivered
    assert await poller.close(sweep=True) == 0


def hide(ctx: CrawlContext, page_id: int) -> dict[str, Any]:
    """Remove a stored page, keeping its row to put it back under its id (:func:`restore`)."""
    with Session(ctx.repo.engine) as s:
        row = s.get(t.Page, page_id)
        assert row is not None
        hidden = row.model_dump()
        s.delete(row)
        s.commit()
    return hidden


def restore(ctx: CrawlContext, hidden: dict[str, Any]) -> None:
    """Put a page :func:`hide` removed back: it becomes visible late, under its old id."""
    with Session(ctx.repo.engine) as s:
        s.add(t.Page(**hidden))
        s.commit()


async def test_a_page_visible_late_below_the_watermark_is_left_to_the_sweep(
    ctx: CrawlContext,
) -> None:
    # PostgreSQL numbers a page when it is inserted, not when it is committed: a page with a
    # lower id can appear after a higher one. Simulated by removing a stored page and putting it
    # back, under its id, once the poller has delivered the next one.
    first, late, third = store(ctx, "/book/1"), store(ctx, "/book/2"), store(ctx, "/book/3")
    hidden = hide(ctx, late.id)
    sink, got = collector()
    eager = DeliveryPoller(ctx, sink, full=lambda: False, poll_s=0.05, lag_s=0.0)
    assert await eager.poll() == 2
    assert eager.watermark == third.id > late.id > first.id
    restore(ctx, hidden)
    assert await eager.poll() == 0  # below the watermark: the steady poll does not read it
    assert got == ["/book/1", "/book/3"]
    assert await eager.close(sweep=True) == 1  # the final sweep reads the whole site
    assert got == ["/book/1", "/book/3", "/book/2"]


async def test_the_watermark_lags_so_late_pages_are_still_polled(ctx: CrawlContext) -> None:
    first, late, third = store(ctx, "/book/1"), store(ctx, "/book/2"), store(ctx, "/book/3")
    hidden = hide(ctx, late.id)
    sink, got = collector()
    poller = DeliveryPoller(ctx, sink, full=lambda: False, poll_s=0.05, lag_s=3600.0)
    assert await poller.poll() == 2
    assert poller.watermark == 0  # the findings are younger than the lag
    restore(ctx, hidden)
    assert await poller.poll() == 1
    assert got == ["/book/1", "/book/3", "/book/2"]
    assert first.id < third.id


async def test_the_sweep_leaves_pending_urls_and_the_budget_stops_delivery(
    ctx: CrawlContext,
) -> None:
    for i in range(5):
        store(ctx, f"/book/{i}")
    # the sweep runs once nothing is pending; a page whose URL is still queued is not swept
    SqlFrontier(ctx.repo.engine, ctx.site.id).add([NewURL(BASE + "/book/4")])
    assert [p.url for p in ctx.state.undelivered()] == [BASE + f"/book/{i}" for i in range(4)]
    sink, got = collector()
    poller = DeliveryPoller(
        ctx, sink, full=lambda: ctx.stats.pages_delivered >= 3, poll_s=0.05, lag_s=0.0
    )
    assert await poller.poll() == 3
    assert await poller.close(sweep=True) == 0
    assert got == ["/book/0", "/book/1", "/book/2"]


async def test_the_running_poller_delivers_on_wake_and_surfaces_its_errors(
    ctx: CrawlContext,
) -> None:
    sink, got = collector()
    poller = DeliveryPoller(ctx, sink, full=lambda: False, poll_s=30.0)
    async with supervised() as tasks:
        poller.start(tasks)
        store(ctx, "/book/1")
        poller.wake()  # without it, the next poll would be 30 s away
        for _ in range(200):
            if got:
                break
            await asyncio.sleep(0.02)
        assert got == ["/book/1"]
        store(ctx, "/book/2")
        assert await poller.close(sweep=True) == 1
    assert got == ["/book/1", "/book/2"]

    def broken(record: dict[str, Any]) -> None:
        raise OSError("disk full")

    # a failed poller stops its scope at once and is raised as itself, not as a group
    failing = DeliveryPoller(ctx, CallbackSink(broken), full=lambda: False, poll_s=0.05)
    store(ctx, "/book/3")

    async def crawl() -> None:
        async with asyncio.timeout(10), supervised() as tasks:
            failing.start(tasks)
            await asyncio.sleep(60)  # cancelled by the poller's failure

    with pytest.raises(OSError, match="disk full"):
        await crawl()
    assert ctx.state.count("delivered") == 2  # the failed record is not remembered


def test_the_poll_reads_pages_above_the_watermark_through_indexes(
    make_db: Callable[[str], str],
) -> None:
    # The poll runs on PostgreSQL only (one process crawling SQLite delivers directly). With
    # 20,000 pages, 19,000 delivered, its statement as compiled must walk the page key from the
    # watermark and probe the delivery index: no scan of the site's pages or deliveries.
    with Repository.open(make_db("postgres")) as repo:
        _explain_the_poll(_context(repo))


def _explain_the_poll(ctx: CrawlContext) -> None:
    site = ctx.site.id
    with ctx.repo.engine.begin() as conn:
        conn.execute(
            sa.insert(t.Page),
            [
                {"site_id": site, "url": f"{BASE}/book/{i}", "kind": "record", "body": b"x"}
                for i in range(20_000)
            ],
        )
        conn.execute(
            sa.text(
                "INSERT INTO delivery (site_id, page_id, delivered_at) "
                "SELECT site_id, id, fetched_at FROM page ORDER BY id LIMIT 19000"
            )
        )
        top = conn.execute(sa.text("SELECT max(id) FROM page")).scalar_one()
    stmt = ctx.state._undelivered("record").where(col(t.Page.id) > top - 100).limit(200)
    engine = ctx.repo.engine
    sql = str(stmt.compile(dialect=engine.dialect, compile_kwargs={"literal_binds": True}))
    with engine.connect() as conn:
        conn.execute(sa.text("ANALYZE page"))
        conn.execute(sa.text("ANALYZE delivery"))
        plan = " ".join(r[0] for r in conn.execute(sa.text("EXPLAIN " + sql)))
    walks_the_key, probes = "page_pkey" in plan, "uq_delivery_page" in plan
    scans = "Seq Scan" in plan or "Sort" in plan
    assert (walks_the_key, probes, scans) == (True, True, False), plan
    assert len(list(ctx.state.undelivered_after(top - 100))) == 100


async def test_a_batch_is_delivered_in_order_and_remembered_up_to_a_failed_write(
    ctx: CrawlContext,
) -> None:
    pages = [store(ctx, f"/book/{i}") for i in range(4)]
    got: list[str] = []

    def write(record: dict[str, Any]) -> None:
        if record["url"].endswith("/book/2"):
            raise OSError("the extractor is gone")
        got.append(record["url"].removeprefix(BASE))

    with pytest.raises(OSError, match="extractor"):
        await CallbackSink(write).deliver_pages(ctx, [(page, None) for page in pages])
    assert got == ["/book/0", "/book/1"]
    # those written are remembered (one write for them all); the rest is left to a later run
    assert [p.url for p in ctx.state.undelivered()] == [BASE + "/book/2", BASE + "/book/3"]
    # a page offered again (a resumed run) is remembered once
    sink, again = collector()
    await sink.deliver_pages(ctx, [(pages[0], None), (pages[3], None)])
    assert ctx.state.count("delivered") == 3
    assert again == ["/book/0", "/book/3"]
