"""Settings of fetching: the browser, plain HTTP and politeness."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from typing import Literal

from pydantic import Field

from deepcrawl.settings._base import QUIET_CHROMIUM_ARGS, Section

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

    chromium: Path | None = None
    """Chromium binary to launch. None: Playwright's own browser if installed, else the first of
    ``/usr/bin/chromium``, ``/usr/lib/chromium/chromium``, ``chromium-browser`` on PATH.
    ``DEEPCRAWL_CHROMIUM`` sets it too."""
    headless: bool = True
    """Run without a window (the only mode on a server)."""
    launch_args: tuple[str, ...] = QUIET_CHROMIUM_ARGS
    """Extra command-line flags for Chromium."""
    page_timeout_s: float = 15.0
    """Time allowed for one navigation or one probe action."""
    pages: int = 1
    """Concurrent pages in the pool; more do not help on 2 cores (docs/ARCHITECTURE.md)."""
    recycle_context_after: int = 200
    """Open a fresh browser context after this many pages (frees renderer memory)."""
    memory_ceiling_mb: int = 1500
    """Restart the browser when its processes use more than this (PSS, MiB)."""
    block_resources: tuple[str, ...] = ("image", "font", "media")
    """Playwright resource types never loaded."""
    allow_hosts: tuple[str, ...] = ()
    """Hosts outside the crawl's scope that pages may still load from (CDNs)."""
    render: Literal["auto", "always", "never"] = "auto"
    """Use the browser always, never, or where a sample shows JavaScript changes the page."""
    probe_depth: int = 2
    """Depth bound of the depth-first exploration of DOM states in JS link probing."""
    probe_max_elements: int = 60
    """At most this many clickable elements are probed per page."""
    recheck_share: float = 0.01
    """Auto mode re-checks a prototype served over plain HTTP in the browser (in the
    background) after ``1 / recheck_share`` of its pages, then after twice as many each time."""
    samples: int = 2
    """Pages of one URL prototype fetched both ways before auto mode trusts plain HTTP for it."""
    memory_check_every: int = 25
    """Measure the browser's memory after this many pages (0: never)."""
    probe_timeout_s: float = 30.0
    """Time allowed for probing one page; probing stops (keeping what it found) after it."""
    probe_settle_s: float = 0.5
    """Longest wait, after a probe action, for the requests it started to finish."""
    probe_max_restores: int = 15
    """Reloads allowed per page to get back to a DOM state during probing."""
    probe_refused_words: tuple[str, ...] = ("vote", "add to", "wishlist")
    """Words that keep probing away from an element or a request, on top of the request rule's
    (:mod:`deepcrawl.safety`) and ``forms.refused_words`` (clicking is riskier than following a
    link)."""
    store_documents: bool = True
    """Answer a page script's fetch/XHR of a document the crawl already stored from the store,
    not the network (a client-side search fetches every result's page to build a snippet)."""
    block_linked_documents: bool = True
    """Refuse a page script's fetch/XHR of a document the page already links to and the crawl
    has not stored: the link is on the page already, so the result list does not need it (only a
    snippet is lost); the crawl fetches the document itself if it wants it."""
    cache_mb: int = 64
    """Memory cache shared by the pool's pages for scripts, style sheets and data whose response
    allows reuse (a search index is downloaded once per crawl, not once per query); Chromium's
    own cache is off in routed contexts. 0: no cache."""
    cache_ttl_s: float = 3600.0
    """Longest a cached response is reused: a static file (one with ``Last-Modified`` or
    ``ETag``, no explicit lifetime) is reused this long; ``max-age``/``Expires`` can shorten it."""
    growth_poll_s: float = 0.05
    """How often a rendered page is measured (links, elements, text) while it may still grow."""
    growth_quiet_s: float = 0.2
    """A rendered page is read once its measure and its script requests have been still this
    long (a result list appended item by item is read whole, not after its first items)."""
    growth_max_s: float = 5.0
    """Longest wait for a rendered page to stop growing; then it is read as it is."""


class HttpSettings(Section):
    """The plain-HTTP fetcher (httpx)."""

    user_agent: str = Field(default_factory=default_user_agent, min_length=1)
    """User-Agent header sent by both fetchers, and the agent name matched in robots.txt
    (``--user-agent``). Default: ``deepcrawl/VERSION (+home page)``, see
    :func:`default_user_agent`."""
    timeout_s: float = 10.0
    """Total time allowed for one request."""
    max_body_bytes: int = 5 * 1024 * 1024
    """Larger bodies are cut off and the page recorded as an error (BodyTooLargeError)."""
    max_redirects: int = 10
    """Redirects followed before the request fails."""
    max_connections: int = 20
    """Connections kept by the client across all hosts."""


class AccessSettings(Section):
    """What a site needs to let the crawler in: a session, headers, a proxy.

    Applied identically to the browser (the Playwright context and its routes) and to plain
    HTTP (the httpx client) by :mod:`deepcrawl.browser.access`; the ``http.user_agent`` goes
    to both too.
    """

    cookies: Path | None = None
    """Cookie file (``--cookies``): Netscape ``cookies.txt`` or a JSON list of cookies (the
    format of browser extensions and of Playwright's ``context.cookies()``)."""
    storage_state: Path | None = None
    """Playwright storage-state JSON (``--storage-state``), as ``deepcrawl login`` writes it:
    its cookies go to both fetchers, its origins' local storage to the browser."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Extra request headers (``--header 'K: V'``, in TOML an ``[access.headers]`` table).
    ``User-Agent`` and ``Cookie`` are refused here: they have settings of their own. They go to
    the ``credential_origins`` only, never to another origin (a redirect, a CDN, a frame)."""
    credential_origins: tuple[str, ...] = ()
    """Origins (``scheme://host[:port]``) the ``headers`` go to (``--credential-origin``,
    repeatable). Every command adds the origin of the URL it starts from itself (and, for an
    http URL on the default port, its https form): name here only the site's other origins
    that need the headers (an API host). Cookies are not limited by this: they go where
    RFC 6265 sends them, by the domain and path each was given for."""
    proxy: str | None = None
    """Proxy every request of both fetchers goes through (``--proxy``): ``http://``,
    ``https://`` or ``socks5://``, credentials in the URL (``http://user:pw@host:3128``).
    Loopback addresses go through it too. The ``HTTP(S)_PROXY``/``ALL_PROXY`` environment
    variables are ignored by both fetchers: see :mod:`deepcrawl.browser.access` for why."""


class PolitenessSettings(Section):
    """How deepcrawl treats the sites it visits."""

    obey_robots: bool = True
    """Honour robots.txt (rules and Crawl-delay)."""
    requests_per_second: float = 20.0
    """Per-host request rate ceiling; a robots.txt Crawl-delay lowers it."""
    concurrency_per_host: int = 4
    """Requests in flight to one host at most."""
    retries: int = 3
    """Retries of a transient failure (network error, 5xx, 429) before the URL is failed."""
    backoff_base_s: float = 0.5
    """First back-off delay; doubled at each retry unless Retry-After says otherwise."""
    backoff_max_s: float = 60.0
    """Longest back-off delay honoured (a longer Retry-After fails the URL)."""
