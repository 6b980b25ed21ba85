"""The adaptive fetcher: the browser only where JavaScript changes what a crawler sees.

Pages of one URL prototype are built by the same template, so whether they need the browser
is decided per prototype rather than per site (Crawlee's adaptive crawler decides per site).
For a prototype not yet judged, a page is fetched both ways — plain HTTP, and the browser with
link probing, which renders the bytes HTTP got rather than asking the server again — and the
two compared: links the browser finds that HTTP misses, visible text that differs, forms that
only exist in the live DOM — not counting links and forms already found on other pages of the
site (a site-wide JS menu is found once, not on every page). One
difference and the prototype is rendered from then on (probed too, while probing keeps finding
new links; when probing was the only reason and it stops finding anything, back to HTTP);
:data:`SAMPLES` agreeing pages and it is served over plain HTTP. An answer with an error
status is no sample (served as HTTP got it: it shows the site's error page, not the
prototype's template). Pages
served over HTTP are re-checked in the browser *in the background* (no latency): the first
after ``1 /`` :data:`RECHECK_SHARE` pages of the prototype, then after twice as many each time
(a verdict that holds is checked ever more rarely); a difference flips the verdict.

The prototype key is pluggable: :func:`url_shape` (path with digit runs replaced, query keys
sorted) until a prototyper is given.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from deepcrawl.browser.access import check_user_url
from deepcrawl.browser.base import Fetcher
from deepcrawl.browser.fetcher import BrowserFetcher
from deepcrawl.browser.http import HttpFetcher
from deepcrawl.browser.scope import Scope, host_of
from deepcrawl.errors import DeepcrawlError, FetchError, NotHTMLError
from deepcrawl.page.html import parse_html
from deepcrawl.prototypes import classify_token
from deepcrawl.urls import query_pairs

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.page.form import Form
    from deepcrawl.settings import Settings

__all__ = [
    "RECHECK_SHARE",
    "SAMPLES",
    "AdaptiveFetcher",
    "Difference",
    "Verdict",
    "compare_pages",
    "fetch_one",
    "make_fetcher",
    "url_shape",
]

logger = logging.getLogger(__name__)

RenderMode = Literal["auto", "always", "never"]
_DIGITS = re.compile(r"\d+")
_WORD = re.compile(r"\w+")
#: Below this Jaccard similarity of the two versions' words, the text is said to differ.
TEXT_SIMILARITY = 0.9
#: Probed pages of a prototype in a row that find no new probe link before probing stops.
PROBE_DRY_RUN = 3
#: Pages of one prototype fetched both ways, agreeing, before plain HTTP is trusted for it: one
#: could agree by chance (a page whose script-built part happens to be empty).
SAMPLES = 2
#: A prototype served over plain HTTP is re-checked in the browser after ``1 / RECHECK_SHARE``
#: of its pages, then after twice as many each time: a verdict that holds costs ever less.
RECHECK_SHARE = 0.01


def url_shape(url: str) -> str:
    """A crude URL prototype, for when no prototyper has run yet.

    The host, the first path segment as it is (a site's sections: ``book``, ``category``), every
    later segment by the type of its value (``/category/fiction`` and ``/category/poetry`` are
    one kind; ids, dates and slugs likewise), and the sorted query keys. Few keys means few
    samples and few re-checks in auto mode; a key that mixes two kinds is caught by the
    background re-checks.
    """
    parts = urlsplit(url)
    first, *rest = parts.path.lstrip("/").split("/")
    head = _DIGITS.sub("9", first)
    tail = "/".join(classify_token(segment).name.lower() if segment else "" for segment in rest)
    keys = sorted({key for key, _ in query_pairs(parts.query)})
    return f"{parts.netloc}/{head}/{tail}?{'&'.join(keys)}"


def _words(page: FetchedPage) -> set[str]:
    root = parse_html(page.body)
    if root is None:
        return set()
    for element in list(root.iter("script", "style", "noscript", "template")):
        if element.getparent() is not None:
            element.drop_tree()
    return set(_WORD.findall(root.text_content().lower()))


@dataclass(slots=True)
class Difference:
    """What the browser's version of a page holds that the plain-HTTP version lacks.

    Attributes:
        script_links: in-site links in the rendered DOM missing over HTTP.
        probe_links: in-site links only probing found.
        text: the visible text differs (Jaccard similarity of words below 0.9).
        script_forms: signatures of forms only the live DOM has.
    """

    script_links: set[str] = field(default_factory=set)
    probe_links: set[str] = field(default_factory=set)
    text: bool = False
    script_forms: set[str] = field(default_factory=set)

    @property
    def needs_render(self) -> bool:
        """Rendering alone (no probing) shows more than HTTP."""
        return bool(self.script_links or self.text or self.script_forms)

    def reasons(self) -> list[str]:
        """Human-readable reasons (empty when the versions agree)."""
        out = []
        for kind, links in (("script", self.script_links), ("probe", self.probe_links)):
            if links:
                out.append(f"{len(links)} {kind} link(s) missing over HTTP, e.g. {min(links)}")
        if self.text:
            out.append("visible text differs")
        if self.script_forms:
            out.append(f"{len(self.script_forms)} form(s) built by script")
        return out


def _form_key(form: Form) -> str:
    return f"{form.method} {form.action} " + ",".join(sorted(f.name or "" for f in form.fields))


def compare_pages(
    http: FetchedPage,
    browser: FetchedPage,
    *,
    known_links: set[str] | frozenset[str] = frozenset(),
    known_forms: set[str] | frozenset[str] = frozenset(),
) -> Difference:
    """What the browser's version of a page holds more than the plain-HTTP one.

    Args:
        http: the page as fetched over HTTP.
        browser: the same page rendered (and possibly probed).
        known_links: links found by the browser on other pages of the site already (a site-wide
            menu): they are not held against this page.
        known_forms: form signatures already seen (a search form a script adds to every page).

    Returns:
        The difference; ``not diff.reasons()`` when the versions agree.
    """
    site = host_of(browser.final_url)
    seen = {link.url for link in http.links} | set(known_links)
    diff = Difference()
    for link in browser.links:
        if link.url in seen or host_of(link.url) != site:
            continue
        (diff.probe_links if link.origin == "probe" else diff.script_links).add(link.url)
    diff.probe_links -= diff.script_links
    http_words, browser_words = _words(http), _words(browser)
    union = http_words | browser_words
    diff.text = bool(union) and len(http_words & browser_words) / len(union) < TEXT_SIMILARITY
    static_forms = {_form_key(form) for form in http.forms}
    diff.script_forms = {
        key
        for form in browser.forms
        if (key := _form_key(form)) not in static_forms and key not in known_forms
    }
    return diff


@dataclass(slots=True)
class Verdict:
    """What auto mode knows about one URL prototype.

    Attributes:
        browser: True: fetch with the browser; False: plain HTTP; None: not decided yet.
        probe: probe the pages fetched with the browser.
        render: rendering alone shows more than HTTP (script links, text, forms).
        samples: pages compared so far.
        served: pages served since the verdict.
        reasons: why the browser is needed (empty for HTTP).
        dry: probed pages in a row that found no new link.
        next_check: ``served`` count at which the next background re-check runs (doubled after
            each check: a verdict that keeps holding is checked ever more rarely).
    """

    browser: bool | None = None
    probe: bool = False
    render: bool = False
    samples: int = 0
    served: int = 0
    reasons: list[str] = field(default_factory=list)
    dry: int = 0
    next_check: int = 0


class AdaptiveFetcher(Fetcher):
    """Serve each URL over plain HTTP or through the browser, per ``render`` mode.

    Args:
        settings: deepcrawl settings (``browser.render``).
        scope: hosts that may be reached (None: each URL's own host).
        render: override of ``settings.browser.render``.
        probe: in ``always`` mode, probe every page.
        key: URL → prototype key (default :func:`url_shape`).
        forms: discover forms on every page.
        recheck_share: a prototype served over plain HTTP is re-checked in the browser after
            ``1 / recheck_share`` of its pages, then after twice as many each time (0: never).
    """

    def __init__(
        self,
        settings: Settings,
        scope: Scope | Iterable[str] | None = None,
        *,
        render: RenderMode | None = None,
        probe: bool = False,
        key: Callable[[str], str] = url_shape,
        forms: bool = True,
        recheck_share: float = RECHECK_SHARE,
    ) -> None:
        self.settings = settings
        self.mode: RenderMode = render or settings.browser.render
        self.probe = probe
        self.key = key
        self.scope = (
            scope if isinstance(scope, Scope) else Scope(tuple(scope or ()), implicit=scope is None)
        )
        self.http = HttpFetcher(settings, self.scope, forms=forms)
        self.browser = BrowserFetcher(settings, self.scope, forms=forms, probe_once=True)
        self.verdicts: dict[str, Verdict] = {}
        self.known_links: set[str] = set()
        self.known_forms: set[str] = set()
        self.counts = {"http": 0, "browser": 0, "compared": 0, "rechecked": 0, "flipped": 0}
        self._browser_open = False
        self._browser_lock = asyncio.Lock()
        self._key_locks: dict[str, asyncio.Lock] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._recheck_every = max(1, round(1 / recheck_share)) if recheck_share > 0 else 0

    async def open(self) -> None:
        """Open the HTTP client (the browser starts on first need)."""
        await self.http.open()
        if self.mode == "always":
            await self._ensure_browser()

    async def close(self) -> None:
        """Stop background checks, the browser and the HTTP client."""
        for task in list(self._background):
            task.cancel()
        for task in list(self._background):
            with contextlib.suppress(asyncio.CancelledError, DeepcrawlError):
                await task
        if self._browser_open:
            await self.browser.close()
            self._browser_open = False
        await self.http.close()

    async def _ensure_browser(self) -> BrowserFetcher:
        async with self._browser_lock:
            if not self._browser_open:
                await self.browser.open()
                self._browser_open = True
        return self.browser

    def _learn(self, page: FetchedPage) -> None:
        self.known_links |= {link.url for link in page.links}
        self.known_forms |= {_form_key(form) for form in page.forms}

    async def fetch(self, url: str) -> FetchedPage:
        """Fetch ``url`` the way its prototype needs; see the module docstring.

        Raises:
            FetchError: the subclass saying why there is no page.
        """
        if self.mode == "never":
            self.counts["http"] += 1
            return await self.http.fetch(url)
        if self.mode == "always":
            self.counts["browser"] += 1
            return await (await self._ensure_browser()).fetch(url, probe=self.probe)
        key = self.key(url)
        verdict = self.verdicts.setdefault(key, Verdict())
        if verdict.browser is None:
            async with self._key_locks.setdefault(key, asyncio.Lock()):
                if verdict.browser is None:
                    return await self._sample(url, verdict)
        if verdict.browser:
            return await self._render(url, verdict)
        page = await self.http.fetch(url)
        self.counts["http"] += 1
        verdict.served += 1
        if not verdict.next_check:
            verdict.next_check = self._recheck_every
        due = self._recheck_every and verdict.served >= verdict.next_check
        if due and page.is_html and not self._background:  # one check at a time
            verdict.next_check *= 2
            task = asyncio.ensure_future(self._recheck(url, page, verdict))
            self._background.add(task)
            task.add_done_callback(self._background.discard)
        return page

    async def _render(self, url: str, verdict: Verdict) -> FetchedPage:
        browser = await self._ensure_browser()
        page = await browser.fetch(url, probe=verdict.probe)
        self.counts["browser"] += 1
        verdict.served += 1
        if verdict.probe:
            new = {link.url for link in page.links if link.origin == "probe"} - self.known_links
            verdict.dry = 0 if new else verdict.dry + 1
            if verdict.dry >= PROBE_DRY_RUN:  # the prototype's probe links repeat (a site menu)
                verdict.probe = False
                if not verdict.render:
                    verdict.browser = False  # probing was the only reason for the browser
        self._learn(page)
        return page

    async def _sample(self, url: str, verdict: Verdict) -> FetchedPage:
        page = await self.http.fetch(url)
        if not page.is_html or page.status >= 400:
            # an error page (a 404 for robots.txt, a 403) shows nothing of its kind's template,
            # and the browser would ask the server for it again: served as HTTP got it
            self.counts["http"] += 1
            return page
        browser = await self._ensure_browser()
        try:  # the same bytes, rendered: the comparison sees the scripts' effect alone
            rendered = await browser.fetch(url, probe=True, document=page)
        except FetchError:
            self.counts["http"] += 1
            return page
        # the browser rendered the bytes plain HTTP received: the wire exchange is HTTP's
        rendered.exchange = page.exchange
        self.counts["browser"] += 1
        self.counts["compared"] += 1
        verdict.samples += 1
        diff = compare_pages(
            page, rendered, known_links=self.known_links, known_forms=self.known_forms
        )
        self._learn(rendered)
        if diff.reasons():
            verdict.browser = True
            verdict.reasons = diff.reasons()
            verdict.probe = bool(diff.probe_links)
            verdict.render = diff.needs_render
            logger.info(
                "%s: the browser shows more than plain HTTP (%s): its kind is fetched in the "
                "browser", url, "; ".join(verdict.reasons),
            )  # fmt: skip
        elif verdict.samples >= SAMPLES:
            verdict.browser = False
            logger.info(
                "%s: plain HTTP matches the browser on %d samples: its kind is fetched by "
                "plain HTTP", url, verdict.samples,
            )  # fmt: skip
        return rendered

    async def _recheck(self, url: str, page: FetchedPage, verdict: Verdict) -> None:
        try:
            rendered = await (await self._ensure_browser()).fetch(url, probe=True, document=page)
        except DeepcrawlError:
            return
        self.counts["rechecked"] += 1
        diff = compare_pages(
            page, rendered, known_links=self.known_links, known_forms=self.known_forms
        )
        self._learn(rendered)
        if diff.reasons() and verdict.browser is False:
            self.counts["flipped"] += 1
            verdict.browser = True
            verdict.reasons = diff.reasons()
            logger.info(
                "%s: a re-check finds the browser needed after all (%s)",
                url, "; ".join(verdict.reasons),
            )  # fmt: skip
            verdict.probe = bool(diff.probe_links)
            verdict.render = diff.needs_render
            verdict.dry = 0


def make_fetcher(
    settings: Settings,
    scope: Scope | Iterable[str] | None = None,
    *,
    render: RenderMode | None = None,
    probe: bool = False,
    forms: bool = True,
    key: Callable[[str], str] | None = None,
) -> Fetcher:
    """The fetcher for a render mode: ``never`` → HTTP, ``always`` → browser, ``auto`` → both.

    Args:
        settings: deepcrawl settings.
        scope: hosts that may be reached (None: each URL's own host).
        render: override of ``settings.browser.render``.
        probe: probe every rendered page (``always``); auto mode decides by itself.
        forms: discover forms.
        key: URL → prototype key for auto mode (a prototype matcher); default :func:`url_shape`.
    """
    mode = render or settings.browser.render
    if mode == "never":
        return HttpFetcher(settings, scope, forms=forms)
    if mode == "always":
        return BrowserFetcher(settings, scope, forms=forms, probe=probe)
    return AdaptiveFetcher(settings, scope, render="auto", forms=forms, key=key or url_shape)


async def fetch_one(
    settings: Settings,
    url: str,
    *,
    render: RenderMode = "always",
    probe: bool = False,
) -> FetchedPage:
    """Fetch one HTML page the way ``deepcrawl render`` shows it.

    Args:
        settings: deepcrawl settings.
        url: the page.
        render: ``always`` (browser), ``never`` (plain HTTP) or ``auto``.
        probe: run JavaScript link probing (browser only).

    Raises:
        InvalidURLError: ``url`` fails the check of every command's URL (too long, not
            http(s), no host: :func:`~deepcrawl.browser.scope.check_url`).
        FetchError: the page cannot be fetched, or is not HTML (:class:`NotHTMLError`).
    """
    url, settings = check_user_url(settings, url)  # as every command does
    fetcher = make_fetcher(settings, None, render=render, probe=probe)
    async with fetcher:
        if isinstance(fetcher, BrowserFetcher):
            page = await fetcher.fetch(url, probe=probe)
        else:
            page = await fetcher.fetch(url)
    if not page.is_html:
        raise NotHTMLError(url, page.content_type)
    return page
