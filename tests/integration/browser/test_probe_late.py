"""What a probe's click sets off late is refused too, in real Chromium.

A click handler may act after the probe has returned: a timer that posts or leaves for a logout
URL, a beacon armed for when the page unloads, or simply a request the browser hands to the
route a little late on a busy machine. The page stays under the probe's rules as long as it
shows the probed document, so none of it reaches the server; a beacon or keepalive fetch, which
outlives its page and so its route, is refused in the page, and the page is cut off the network
while the pool leaves the probed document behind before lending the page again.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import pytest

from deepcrawl.browser import BrowserPool, probe_page, render_page
from deepcrawl.browser.testing import LocalSite, Reply
from deepcrawl.settings import Settings

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

pytestmark = pytest.mark.browser

SETTINGS = Settings().with_overrides(browser={"page_timeout_s": 10.0})

#: A click whose effects come after the probe's settle time (``browser.probe_settle_s``).
LATE = """<html><body><div id=menu>Load menu</div>
<script>
document.getElementById('menu').addEventListener('click', () => {
  setTimeout(() => fetch('/api/menu', {method: 'POST', body: 'x'}), 900);
  setTimeout(() => { location.href = '/logout-now'; }, 1000);
  addEventListener('pagehide', () => navigator.sendBeacon('/api/armed', 'x'));
});
</script></body></html>"""

#: Unload handlers armed on load; a click changes the DOM, so the probe reloads the page.
UNLOAD = """<html><body><div id=open>Open menu</div><div id=box></div>
<script>
const send = window.fetch;
addEventListener('pagehide', () => navigator.sendBeacon('/api/bye', 'x'));
addEventListener('pagehide', () => send('/api/keep', {method: 'POST', keepalive: true}));
document.getElementById('open').addEventListener('click', () => {
  const item = document.createElement('span');
  item.textContent = 'more';
  document.getElementById('box').appendChild(item);
});
</script></body></html>"""


@pytest.fixture(scope="module")
def site() -> Iterator[LocalSite]:
    with LocalSite({"/late": Reply(LATE), "/unload": Reply(UNLOAD)}) as served:
        yield served


@pytest.fixture
async def pool() -> AsyncIterator[BrowserPool]:
    async with BrowserPool(SETTINGS, {"127.0.0.1"}) as running:
        yield running


def _not_get(site: LocalSite) -> list[tuple[str, str]]:
    return [entry for entry in site.log if entry[0] != "GET"]


async def test_what_a_click_sets_off_after_the_probe_is_refused(
    pool: BrowserPool, site: LocalSite
) -> None:
    site.log.clear()
    async with pool.page() as lease:
        page = await render_page(lease, site.url + "/late", forms=False)
        report = await probe_page(lease, page.links)
        assert ("html/body/div", "Load menu") in report.probed
        await asyncio.sleep(1.5)  # the click's timers fire now, well after the probe
        assert lease.page.url == site.url + "/late"  # the late navigation left nothing
        refused = {(method, url.removeprefix(site.url)) for method, url, _why in lease.blocked}
        assert ("POST", "/api/menu") in refused
    await asyncio.sleep(0.5)  # the page left its document: the armed beacon would go now
    assert _not_get(site) == []
    assert not site.requested("logout")
    # lent again, the probed document left behind and the probe's rules with it
    assert [(lease.page.url, lease.probing) for lease in pool._idle] == [("about:blank", False)]


async def test_unload_beacons_of_a_probed_page_never_leave(
    pool: BrowserPool, site: LocalSite
) -> None:
    site.log.clear()
    async with pool.page() as lease:
        page = await render_page(lease, site.url + "/unload", forms=False)
        report = await probe_page(lease, page.links)
        assert report.restores >= 1  # the page was reloaded: its unload handlers ran
    await asyncio.sleep(0.5)  # and they ran again as the page left it for good
    assert _not_get(site) == []
    assert [path for _method, path in site.log] == ["/unload"] * (1 + report.restores)


async def test_a_page_under_the_probes_rules_leaves_its_document_cut_off_the_network(
    pool: BrowserPool, site: LocalSite
) -> None:
    """The page's own refusal of beacons aside (it was never marked probed), what its unload
    handlers send as the pool leads it away goes nowhere: the network is cut meanwhile."""
    site.log.clear()
    async with pool.page() as lease:
        await render_page(lease, site.url + "/unload", forms=False)
        lease.probing = True  # the probe's rules, as a thumbnail takes them too
    await asyncio.sleep(0.5)
    assert _not_get(site) == []
    assert [(lease.page.url, lease.probing) for lease in pool._idle] == [("about:blank", False)]


async def test_an_unprobed_page_is_lent_again(pool: BrowserPool, site: LocalSite) -> None:
    async with pool.page() as lease:
        await render_page(lease, site.url + "/unload", forms=False)
    assert pool._idle == [lease]
