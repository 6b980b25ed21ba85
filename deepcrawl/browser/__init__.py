"""The browser layer: Chromium pool, rendering, JavaScript link probing, and the fetchers.

Import what you need from here; the submodules are implementation details.
"""

from __future__ import annotations

from deepcrawl.browser.access import SiteAccess
from deepcrawl.browser.adaptive import (
    AdaptiveFetcher,
    Difference,
    Verdict,
    compare_pages,
    fetch_one,
    make_fetcher,
    url_shape,
)
from deepcrawl.browser.base import Fetcher
from deepcrawl.browser.chromium import find_chromium, launch_chromium, probe_browser
from deepcrawl.browser.fetcher import BrowserFetcher
from deepcrawl.browser.gate import RequestGate, SafetyGate
from deepcrawl.browser.http import HttpFetcher, extract_links
from deepcrawl.browser.lease import PageLease
from deepcrawl.browser.login import LoginSession, record_login
from deepcrawl.browser.pool import BrowserPool, PoolStats
from deepcrawl.browser.probe import ProbeReport, probe_links, probe_page
from deepcrawl.browser.render import collect_links, render_page
from deepcrawl.browser.scope import Scope
from deepcrawl.browser.subrequests import DocumentStore, StoredDocument, Subrequests

__all__ = [
    "AdaptiveFetcher",
    "BrowserFetcher",
    "BrowserPool",
    "Difference",
    "DocumentStore",
    "Fetcher",
    "HttpFetcher",
    "LoginSession",
    "PageLease",
    "PoolStats",
    "ProbeReport",
    "RequestGate",
    "SafetyGate",
    "Scope",
    "SiteAccess",
    "StoredDocument",
    "Subrequests",
    "Verdict",
    "collect_links",
    "compare_pages",
    "extract_links",
    "fetch_one",
    "find_chromium",
    "launch_chromium",
    "make_fetcher",
    "probe_browser",
    "probe_links",
    "probe_page",
    "record_login",
    "render_page",
    "url_shape",
]
