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
    """Chromium through Playwright: where to find it, how to launch it, how long pages live.

    How the pool recycles and measures its browser, what pages may load, how long a page is
    given to settle and how JavaScript link probing is bounded are constants of the modules
    that do it (:mod:`deepcrawl.browser.pool`, ``lease``, ``subrequests``, ``settle``,
    ``render``, ``probe``, ``adaptive``).
    """

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
    memory_ceiling_mb: int = 1500
    """Restart the browser when its processes use more memory than this (PSS, MiB)."""
    allow_hosts: User[tuple[str, ...]] = ()
    """Hosts outside the crawl's scope that pages may still load from (a CDN's scripts)."""
    render: User[Literal["auto", "always", "never"]] = "auto"
    """Render pages in Chromium ``always``, ``never`` (plain HTTP only), or ``auto``: for the
    kinds of page where a sample shows that scripts change what a crawler sees."""


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
    """More origins (``scheme://host[:port]``) the ``headers`` go to (``--credential-origin``;
    the start URL's always does); ``scheme://user:password@host`` also sends that origin alone
    HTTP Basic authentication, as a password in the start URL does (shown as ``***``)."""
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
    backoff_base_s: float = 0.5
    """First back-off delay; doubled at each retry unless Retry-After says otherwise."""
    backoff_max_s: float = 60.0
    """Longest back-off delay honoured (a longer Retry-After fails the URL)."""
