"""The browser pool in real Chromium: reuse, recycling, scope, and pages that misbehave.

Pages that hang, crash the renderer or weigh 10 MB must end with an error for that URL while
the pool keeps serving the next ones; dialogs and popups must not stall it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import socket
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import psutil
import pytest

from deepcrawl.browser import BrowserFetcher, BrowserPool, render_page
from deepcrawl.browser.chromium import launch_chromium
from deepcrawl.browser.testing import LocalSite, Reply
from deepcrawl.errors import (
    BlockedError,
    BodyTooLargeError,
    FetchError,
    FetchTimeoutError,
    NetworkError,
    NotHTMLError,
    RendererCrashedError,
)
from deepcrawl.settings import Settings

pytestmark = pytest.mark.browser

SETTINGS = Settings().with_overrides(browser={"page_timeout_s": 3.0})

PLAIN = (
    "<html><head><title>plain</title></head><body><ul>"
    + "".join(f"<li><a href='/p{i}'>page {i}</a></li>" for i in range(5))
    + "</ul><img src='/img.png'><a href='mailto:x@y.z'>mail</a><a href='#top'>top</a></body></html>"
)
DIALOGS = (
    "<html><body><p>dialogs</p><script>alert('a'); confirm('b'); prompt('c');"
    "window.addEventListener('beforeunload', e => { e.preventDefault(); e.returnValue = ''; });"
    "</script><a href='/plain'>back</a></body></html>"
)
POPUP = (
    "<html><body><a id=pop href='/plain' target='_blank'>new window</a>"
    "<script>window.open('/opened-on-load');</script></body></html>"
)
OUTSIDE = (
    "<html><body><p>outside</p><script src='http://127.0.0.2:9/x.js'></script>"
    "<iframe src='http://127.0.0.3:9/frame'></iframe></body></html>"
)
REDIRECT_OUT = (
    "<html><head><meta http-equiv=refresh content='0;url=http://127.0.0.9:9/'></head></html>"
)
HUGE = "<html><body>" + "<p>filler filler filler filler filler</p>" * 300_000 + "</body></html>"
BUSY = (
    "<html><body><p>busy</p><script>const t = Date.now(); while (Date.now() - t < 2500) {}"
    "</script></body></html>"
)
FRAMES = (
    "<html><body><a href='/plain'>main</a>"
    "<iframe src='/inner' title='inner'></iframe></body></html>"
)
INNER = "<html><body><a href='/from-frame'>in the frame</a></body></html>"


@pytest.fixture(scope="module")
def site() -> Iterator[LocalSite]:
    routes: dict[str, Reply] = {
        "/plain": Reply(PLAIN),
        "/dialogs": Reply(DIALOGS),
        "/popup": Reply(POPUP),
        "/outside": Reply(OUTSIDE),
        "/redirect-out": Reply(REDIRECT_OUT),
        "/hang": Reply(PLAIN, delay_s=30),
        "/slow": Reply(PLAIN, delay_s=1.5),
        "/busy": Reply(BUSY),
        "/huge": Reply(HUGE),
        "/frames": Reply(FRAMES),
        "/inner": Reply(INNER),
        "/session": Reply(PLAIN, headers=(("Set-Cookie", "session=kept; Path=/"),)),
        "/img.png": Reply(b"\x89PNG", content_type="image/png"),
        "/data.json": Reply('{"a": 1}', content_type="application/json"),
        "/file.csv": Reply(
            "a,b\n1,2\n",
            content_type="text/csv",
            headers=(("Content-Disposition", "attachment; filename=x.csv"),),
        ),
    }
    with LocalSite(routes) as served:  # type: ignore[arg-type]
        yield served


@pytest.fixture(scope="module")
async def fetcher(site: LocalSite) -> AsyncIterator[BrowserFetcher]:
    pool = BrowserPool(SETTINGS, {"127.0.0.1"}, recycle_after=5)
    async with pool, BrowserFetcher(SETTINGS, pool=pool) as browser:
        yield browser


async def test_render_links_status_and_final_url(fetcher: BrowserFetcher, site: LocalSite) -> None:
    page = await fetcher.fetch(site.url + "/plain")
    assert page.status == 200
    assert page.final_url == site.url + "/plain"
    assert page.via == "browser"
    assert "<ul>" in page.body
    urls = [link.url for link in page.links]
    assert urls == [f"{site.url}/p{i}" for i in range(5)]  # no mailto:, no #fragment
    assert page.links[0].text == "page 0"
    assert page.links[0].dom_path == "html/body/ul/li[1]/a"


async def test_images_are_not_loaded(fetcher: BrowserFetcher, site: LocalSite) -> None:
    before = len(site.requested("/img.png"))
    await fetcher.fetch(site.url + "/plain")
    assert len(site.requested("/img.png")) == before


async def test_pages_are_reused_and_contexts_recycled(
    fetcher: BrowserFetcher, site: LocalSite
) -> None:
    stats = fetcher.pool.stats
    contexts, pages = stats.contexts, stats.pages
    for _ in range(11):
        await fetcher.fetch(site.url + "/plain")
    assert stats.pages == pages + 11
    # a new context every 5 pages (the pool's recycle_after), not one per page
    assert 2 <= stats.contexts - contexts <= 3


async def test_dialogs_do_not_stall(fetcher: BrowserFetcher, site: LocalSite) -> None:
    started = time.monotonic()
    page = await fetcher.fetch(site.url + "/dialogs")
    assert "dialogs" in page.body
    following = await fetcher.fetch(site.url + "/plain")  # beforeunload does not hold the page
    assert following.status == 200
    assert time.monotonic() - started < 3.0


async def test_popups_are_recorded_and_closed(fetcher: BrowserFetcher, site: LocalSite) -> None:
    page = await fetcher.fetch(site.url + "/popup", probe=True)
    probe_urls = {link.url for link in page.links if link.origin == "probe"}
    assert site.url + "/opened-on-load" in probe_urls
    assert not site.requested("/opened-on-load")
    # a probed page is lent again only once it left the probed document behind
    assert all(lease.page.url != site.url + "/popup" for lease in fetcher.pool._idle)
    assert not any(lease.probing for lease in fetcher.pool._idle)
    await fetcher.fetch(site.url + "/popup")
    lease_pages = fetcher.pool._idle[-1].context.pages
    assert len(lease_pages) == 1  # no popup left open
    assert not site.requested("/opened-on-load")


async def test_out_of_scope_requests_are_blocked(fetcher: BrowserFetcher, site: LocalSite) -> None:
    page = await fetcher.fetch(site.url + "/outside")
    assert "outside" in page.body
    with pytest.raises(BlockedError):
        await fetcher.fetch("http://127.0.0.5:9/")
    with pytest.raises(BlockedError):
        await fetcher.fetch(site.url + "/redirect-out")


async def test_same_site_iframe_links(fetcher: BrowserFetcher, site: LocalSite) -> None:
    page = await fetcher.fetch(site.url + "/frames")
    origins = {link.url: link.origin for link in page.links}
    assert origins[site.url + "/plain"] == "html"
    assert origins[site.url + "/inner"] == "iframe"
    assert origins[site.url + "/from-frame"] == "iframe"


async def test_non_html_and_downloads(fetcher: BrowserFetcher, site: LocalSite) -> None:
    page = await fetcher.fetch(site.url + "/data.json")
    assert page.content_type == "application/json"
    assert not page.is_html
    assert page.links == []
    with pytest.raises(NotHTMLError):  # a download is refused, never saved
        await fetcher.fetch(site.url + "/file.csv")
    assert (await fetcher.fetch(site.url + "/plain")).status == 200


async def test_hanging_page_times_out_and_pool_goes_on(
    fetcher: BrowserFetcher, site: LocalSite
) -> None:
    started = time.monotonic()
    with pytest.raises(FetchTimeoutError) as caught:
        await fetcher.fetch(site.url + "/hang")
    assert caught.value.url == site.url + "/hang"
    assert time.monotonic() - started < 10
    assert (await fetcher.fetch(site.url + "/plain")).status == 200


async def test_ten_megabyte_page_is_refused_and_pool_goes_on(
    fetcher: BrowserFetcher, site: LocalSite
) -> None:
    with pytest.raises(BodyTooLargeError):
        await fetcher.fetch(site.url + "/huge")
    assert (await fetcher.fetch(site.url + "/plain")).status == 200


async def test_connection_refused_is_a_network_error(fetcher: BrowserFetcher) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(NetworkError, match="CONNECTION_REFUSED"):
        await fetcher.fetch(f"http://127.0.0.1:{port}/")


async def test_renderer_crash_is_recorded_and_pool_goes_on(site: LocalSite) -> None:
    async with BrowserPool(SETTINGS, {"127.0.0.1"}) as pool:
        async with pool.page() as lease:
            cdp = await lease.context.new_cdp_session(lease.page)
            task = asyncio.ensure_future(render_page(lease, site.url + "/busy"))
            await asyncio.sleep(0.8)
            with contextlib.suppress(Exception):  # a crashed renderer never answers
                await asyncio.wait_for(cdp.send("Page.crash"), 1)
            with pytest.raises(RendererCrashedError):
                await task
        assert pool.stats.crashes >= 1
        async with pool.page() as lease:
            page = await render_page(lease, site.url + "/plain")
            assert page.status == 200


async def test_memory_ceiling_restarts_the_browser(site: LocalSite) -> None:
    settings = SETTINGS.with_overrides(browser={"memory_ceiling_mb": 1})
    pool = BrowserPool(settings, {"127.0.0.1"}, memory_check_every=2)
    async with pool, BrowserFetcher(settings, pool=pool) as fetcher:
        for _ in range(5):
            await fetcher.fetch(site.url + "/plain")
        assert fetcher.pool.stats.memory_restarts >= 1
        assert fetcher.pool.stats.launches >= 2
        assert fetcher.pool.stats.last_memory_mb > 50  # the browser tree was measured


def _living(procs: list[psutil.Process]) -> list[psutil.Process]:
    """The processes of ``procs`` still running (not exited, nor exited and not yet reaped)."""
    living: list[psutil.Process] = []
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            if proc.status() != psutil.STATUS_ZOMBIE:
                living.append(proc)
    return living


async def test_an_idle_browser_is_stopped_and_started_again_with_its_cookies(
    site: LocalSite,
) -> None:
    pool = BrowserPool(SETTINGS, {"127.0.0.1"}, idle_close_s=0.5)
    async with pool, BrowserFetcher(SETTINGS, pool=pool) as fetcher:
        pool = fetcher.pool
        await fetcher.fetch(site.url + "/session")  # the site sets its session cookie
        first = pool.browser_processes()
        assert first
        await asyncio.sleep(1.5)
        assert pool.stats.idle_closes == 1
        assert pool.browser_processes() == []
        assert not _living(first)
        page = await fetcher.fetch(site.url + "/plain")  # the next page starts it again
        assert page.status == 200
        assert pool.stats.launches == 2
        assert pool.stats.crashes == 0  # a browser the pool stopped did not die
        assert "session=kept" in site.headers[-1].get("cookie", "")
        # a page in use keeps the browser, however long
        async with pool.page():
            await asyncio.sleep(1.5)
            assert pool.stats.idle_closes == 1


async def test_pool_refuses_double_entry_and_cleans_its_temp_dir() -> None:
    pool = BrowserPool(SETTINGS)
    async with pool:
        assert pool._launched is not None
        tmpdir = Path(pool._launched.tmpdir)
        assert tmpdir.is_dir()
        assert pool.browser_processes()
        with pytest.raises(RuntimeError):
            await pool.__aenter__()
    assert not tmpdir.exists()


async def test_browsers_launched_at_once_leave_the_environment_as_it_was() -> None:
    # each driver start swaps TMPDIR; interleaved, one would leave another's TMPDIR behind
    # (removed as that browser closes: every driver started after it fails to launch)
    before = os.environ.get("TMPDIR")
    launched = await asyncio.gather(*(launch_chromium(SETTINGS) for _ in range(3)))
    try:
        assert os.environ.get("TMPDIR") == before
        assert len({item.tmpdir for item in launched}) == 3
    finally:
        for item in launched:
            await item.aclose()
    assert os.environ.get("TMPDIR") == before


async def test_killed_browser_is_restarted(site: LocalSite) -> None:
    async with BrowserFetcher(SETTINGS, {"127.0.0.1"}) as fetcher:
        await fetcher.fetch(site.url + "/plain")
        root = fetcher.pool.browser_processes()[0]
        root.kill()
        root.wait(5)
        await asyncio.sleep(0.5)
        with contextlib.suppress(FetchError):  # the URL in flight may fail; the next ones not
            await fetcher.fetch(site.url + "/plain")
        page = await fetcher.fetch(site.url + "/plain")
        assert page.status == 200
        assert fetcher.pool.stats.launches == 2


async def test_a_killed_driver_is_restarted_and_the_page_in_flight_rendered_again(
    site: LocalSite, caplog: pytest.LogCaptureFixture
) -> None:
    async with BrowserFetcher(SETTINGS, {"127.0.0.1"}) as fetcher:
        await fetcher.fetch(site.url + "/plain")
        driver = fetcher.pool.browser_processes()[0].parent()  # the driver runs the browser
        assert driver is not None
        assert "run-driver" in driver.cmdline()
        in_flight = asyncio.ensure_future(fetcher.fetch(site.url + "/slow"))
        await asyncio.sleep(0.5)  # the page waits for the server's answer
        driver.kill()
        page = await in_flight
        assert page.status == 200
        assert "page 0" in page.body
        assert fetcher.pool.stats.launches == 2
        assert fetcher.pool.stats.crashes == 1
        assert (await fetcher.fetch(site.url + "/plain")).status == 200
        assert fetcher.pool._launched is not None
        assert fetcher.pool._launched.driver_failure is not None  # Playwright's, found
    gc.collect()  # a failed future nobody read is reported as it is freed
    unread = [r for r in caplog.records if "never retrieved" in r.getMessage()]
    assert not unread, unread
