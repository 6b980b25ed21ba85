"""Settings of fetching: the browser, plain HTTP and politeness."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field

from deepcrawl.settings._base import QUIET_CHROMIUM_ARGS, ForUsers, Section, User

__all__ = ["AccessSettings", "BrowserSettings", "HttpSettings", "PolitenessSettings"]


def default_user_agent() -> str:
    """``deepcrawl/VERSION``, with ``(+URL)`` when the installed package names a home page.

    The contact is read from the package's metadata (``[project.urls]`` in ``pyproject.toml``),
    so the default never names an address nobody answers at; set ``http.user_agent`` (or
    ``--user-agent``) to add your own contact, as site operators ask crawlers to.
    """
    try:
        meta = metadata.metadata("deepcrawl")
    except metadata.PackageNotFoundError:
        return "deepcrawl"
    agent = f"deepcrawl/{meta['Version']}"
    for entry in meta.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        if label.strip().lower() in {"homepage", "home", "repository", "source"} and url.strip():
            return f"{agent} (+{url.strip()})"
    return agent


class BrowserSettings(Section):
    """Chromium through Playwright: where to find it, how to launch it, how long pages live."""

    chromium: User[Path | None] = None
    """Chromium binary to launch (also ``DEEPCRAWL_CHROMIUM``). None: a headless shell when
    headless and installed, else Playwright's own browser, ``/usr/bin/chromium`` or
    ``chromium`` on PATH (``deepcrawl doctor`` names the one found)."""
    headless: User[bool] = True
    """Run Chromium without a window (the only mode on a server)."""
    launch_args: tuple[str, ...] = QUIET_CHROMIUM_ARGS
    """Extra command-line flags for Chromium (default: those that keep it off the network)."""
    page_timeout_s: User[float] = 15.0
    """Time allowed for one navigation, submission or probe action in the browser (> 0 s)."""
    pages: int = 1
    """Concurrent pages (tabs) in the browser pool, 1 or more."""
    recycle_context_after: int = 200
    """Open a fresh browser context after this many pages (frees renderer memory)."""
    memory_ceiling_mb: User[int] = 1500
    """Restart the browser when its processes use more memory than this (PSS, MiB)."""
    block_resources: tuple[str, ...] = ("image", "font", "media")
    """Playwright resource types never loaded."""
    allow_hosts: User[tuple[str, ...]] = ()
    """Hosts outside the crawl's scope that pages may still load from (a CDN's scripts)."""
    render: User[Literal["auto", "always", "never"]] = "auto"
    """Render pages in Chromium ``always``, ``never`` (plain HTTP only), or ``auto``: for the
    kinds of page where a sample shows that scripts change what a crawler sees."""
    probe_depth: int = 2
    """Depth bound of the depth-first exploration of DOM states in JavaScript link probing."""
    probe_max_elements: int = 60
    """Clickable elements probed per page at most."""
    recheck_share: float = 0.01
    """Auto mode re-checks a prototype served over plain HTTP in the browser after
    ``1 / recheck_share`` of its pages, then after twice as many each time (0–1)."""
    samples: int = 2
    """Pages of one URL prototype fetched both ways before auto mode trusts plain HTTP for it."""
    memory_check_every: int = 25
    """Measure the browser's memory after this many pages (0: never)."""
    idle_close_s: float = 30.0
    """Stop Chromium once no page has been borrowed for this long (its memory back to the
    system while plain HTTP does the work); the next page starts it again (0: never)."""
    probe_timeout_s: float = 30.0
    """Time allowed for probing one page; probing then stops, keeping what it found."""
    probe_wait_s: float = 0.5
    """Longest wait, after a probe action, for the requests it started to finish."""
    probe_max_restores: int = 15
    """Reloads allowed per page to get back to a DOM state while probing."""
    probe_refused_words: tuple[str, ...] = ("vote", "add to", "wishlist")
    """Words that keep probing from clicking an element or sending a request, on top of the
    safety rule's (:mod:`deepcrawl.safety`) and ``forms.refused_words``."""
    store_documents: bool = True
    """Answer a page script's fetch of a document the crawl already stored from the store, not
    the network (a client-side search may fetch every result's page for a snippet)."""
    block_linked_documents: bool = True
    """Refuse a page script's fetch of a document the page links to and the crawl has not
    stored: the result list does not need it (a snippet is lost), the crawl fetches it itself."""
    cache_mb: int = 64
    """Memory cache, shared by the pool's pages, for the scripts, style sheets and data a
    server marks reusable (a search index is fetched once a crawl, not once a query). 0: none."""
    cache_ttl_s: float = 3600.0
    """Longest a cached response without a lifetime of its own is reused (``max-age`` and
    ``Expires`` can shorten it)."""
    settle_quiet_s: float = 0.3
    """A page has settled (a load, a submission, a click is over) once no request has been in
    flight and its DOM has not changed for this long (:mod:`deepcrawl.browser.settle`)."""
    settle_poll_s: float = 0.05
    """How often a page that may still change is looked at while it settles (> 0 s)."""
    settle_max_s: float = 5.0
    """Longest wait for a rendered page, past its ``load`` event, to settle; it is then read as
    it is (a ticker). A submission's page may take up to ``page_timeout_s``."""
    more_effect_s: float = 2.0
    """Longest wait, after a live result list is scrolled to its end or its "Load more"
    control clicked, for it to start growing (a request, a change to the page); a list that
    shows nothing by then is at its end."""


class HttpSettings(Section):
    """The plain-HTTP fetcher (httpx)."""

    user_agent: Annotated[str, ForUsers("deepcrawl/VERSION (+home page)")] = Field(
        default_factory=default_user_agent, min_length=1
    )
    """User-Agent of every request (both fetchers) and the agent matched in robots.txt
    (``--user-agent``); add your contact, as site operators ask (the default names deepcrawl's
    home page: :func:`default_user_agent`)."""
    timeout_s: User[float] = 10.0
    """Time allowed for one plain-HTTP request (> 0 s)."""
    max_body_bytes: int = 5 * 1024 * 1024
    """Larger bodies are cut off and the page recorded as an error (BodyTooLargeError)."""


class AccessSettings(Section):
    """What a site needs to let the crawler in: a session, headers, a proxy.

    Applied identically to the browser (the Playwright context and its routes) and to plain
    HTTP (the httpx client) by :mod:`deepcrawl.browser.access`; the ``http.user_agent`` goes
    to both too.
    """

    cookies: User[Path | None] = None
    """Cookie file (``--cookies``): Netscape ``cookies.txt`` or a JSON list of cookies (as
    browser extensions and Playwright's ``context.cookies()`` write them)."""
    storage_state: User[Path | None] = None
    """Playwright storage-state JSON (``--storage-state``), as ``deepcrawl login`` writes it:
    its cookies go to both fetchers, its origins' local storage to the browser."""
    headers: User[dict[str, str]] = Field(default_factory=dict)
    """Extra request headers (``--header 'K: V'``; in TOML an ``[access.headers]`` table), sent
    to the ``credential_origins`` only. ``User-Agent`` and ``Cookie`` are refused here: they
    have settings of their own."""
    credential_origins: User[tuple[str, ...]] = ()
    """More origins (``scheme://host[:port]``) the ``headers`` go to (``--credential-origin``);
    the start URL's origin always gets them. Cookies go where RFC 6265 sends them."""
    proxy: User[str | None] = None
    """Proxy of every request of both fetchers, loopback included (``--proxy``): ``http://``,
    ``https://`` or ``socks5://``, credentials in the URL. ``HTTP(S)_PROXY`` and ``ALL_PROXY``
    are ignored (:mod:`deepcrawl.browser.access` says why)."""


class PolitenessSettings(Section):
    """How deepcrawl treats the sites it visits."""

    obey_robots: User[bool] = True
    """Honour robots.txt (its rules and its Crawl-delay)."""
    requests_per_second: User[float] = 20.0
    """Per-host request rate ceiling (> 0); a robots.txt Crawl-delay lowers it."""
    concurrency_per_host: User[int] = 4
    """Requests in flight to one host at most (1 or more)."""
    retries: User[int] = 3
    """Retries of a transient failure (network error, 5xx, 429) before the URL is failed."""
    backoff_base_s: User[float] = 0.5
    """First back-off delay; doubled at each retry unless Retry-After says otherwise."""
    backoff_max_s: User[float] = 60.0
    """Longest back-off delay honoured (a longer Retry-After fails the URL)."""
