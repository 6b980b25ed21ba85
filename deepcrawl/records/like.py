"""The ``--like`` page's layout checks its prototype: in a crawl, and over a plain URL list.

A prototype learnt from URLs alone can be too wide (``doku.php?id=X`` with its ``&do=edit``
twins) or too narrow (``/guides/<slug>/`` apart from ``/community/<slug>/``, one kind of page);
the example page and a few pages of its prototype and of its same-shape siblings tell which
(:mod:`deepcrawl.classify.layout`). One sequence does it, :func:`check_like_layout` —
narrow the example's prototype, then widen its label to the siblings that look alike — and two
callers run it:

* the crawl, after labelling (:func:`deepcrawl.crawler.setup.check_like_layouts`), on the
  prototypes of its result links;
* ``deepcrawl prototypes --from-file URLS --like U`` (:func:`like_over_list`), on the
  prototypes of a URL list: the same session, labels and checks, the pages fetched through the
  same polite path (scope, robots.txt, the host's rate, the safety rule) by the crawl's fetcher
  (plain HTTP where a kind of page needs no browser). ``offline`` gives the URL-only answer.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from deepcrawl.browser.access import with_start_origin, with_url_credentials
from deepcrawl.browser.http import decode_body
from deepcrawl.browser.scope import Scope, host_of
from deepcrawl.classify.layout import narrow_to_example, widen_to_siblings
from deepcrawl.errors import ConfigError, FetchError, InvalidURLError
from deepcrawl.prototypes import LabelSession, like_prototype, suggest_name
from deepcrawl.urls import URLNormaliser
from deepcrawl.userinfo import split_userinfo

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.classify.layout import LayoutCheck, Widening
    from deepcrawl.fetch.polite import PoliteFetcher
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.prototypes import Prototype
    from deepcrawl.settings import Settings

__all__ = [
    "Evidence",
    "LikeAnswer",
    "LikeLayout",
    "check_like_layout",
    "like_over_list",
    "sample_politely",
    "served_html",
]

logger = logging.getLogger(__name__)

#: What an answer rests on: the pages' layout, or the URLs alone.
Evidence = Literal["layout", "urls"]


@dataclass(frozen=True, slots=True)
class LikeLayout:
    """What the layout check of one example found: the narrowing, then the widening."""

    check: LayoutCheck
    widening: Widening

    @property
    def prototypes(self) -> list[Prototype]:
        """The example's prototype (after narrowing) and the siblings given its label."""
        return [self.check.prototype, *self.widening.added]

    @property
    def fetched(self) -> int:
        """Pages fetched for the check (the example's included)."""
        return self.check.fetched + self.widening.fetched

    @property
    def compared(self) -> bool:
        """Whether the example page was had and some page compared with it."""
        return self.check.reference is not None and any(
            score is not None for score in self.check.sampled.values()
        )


async def check_like_layout(
    session: LabelSession,
    example: str,
    fetch: Callable[[str], Awaitable[FetchedPage | None]],
) -> LikeLayout:
    """Let the example page's layout check its prototype: narrow it
    (:func:`~deepcrawl.classify.layout.narrow_to_example`), then give its label to the sibling
    prototypes whose pages look like the example
    (:func:`~deepcrawl.classify.layout.widen_to_siblings`; only when the example's prototype is
    labelled).

    Args:
        session: the site's prototypes and labels (changed in place and in storage).
        example: the example URL, absolute; it must fall in a prototype of ``session``.
        fetch: a page for a URL, or None when it cannot be had (the caller fetches politely
            and may answer from pages it already has). Only HTML answered with a success or
            redirect status is compared, as served (:func:`served_html`).

    Raises:
        ConfigError: no prototype matches the example.
        InvalidURLError: the example cannot be normalised.
    """

    async def html(url: str) -> str | None:
        page = await fetch(url)
        if page is None or page.status >= 400 or not page.is_html:
            return None
        return served_html(page)

    check = await narrow_to_example(session, example, html)
    widening = await widen_to_siblings(session, check, html)
    return LikeLayout(check, widening)


def served_html(page: FetchedPage) -> str:
    """The HTML of a page as its server wrote it, rendered or not.

    The layout check compares templates, and the adaptive fetcher serves the first pages of a
    kind from the browser (the live DOM, changed by the site's scripts) and the rest by plain
    HTTP: compared as fetched, two pages of one template can score far apart where scripts
    rewrite the page (BENCHMARKS.md has the figures), as served nearly alike. The bytes
    received are what both ways share (a page read back from storage has only its stored
    body).
    """
    if page.via == "http" or page.exchange is None:  # plain HTTP's body is the bytes decoded
        return page.body
    return decode_body(page.exchange.body, page.headers.get("content-type"))[0]


async def sample_politely(fetcher: PoliteFetcher, url: str) -> FetchedPage | None:
    """One page the layout check (or the setup phase) looks at, fetched through the crawl's gate;
    None when the gate refused it (scope, robots.txt, the safety rule) or the fetch failed."""
    try:
        return await fetcher.fetch(url)
    except FetchError as exc:  # refused (out of scope, robots.txt, the safety rule) or failed
        logger.info("%s: not fetched (%s)", url, exc)
        return None


# -- a plain URL list ------------------------------------------------------------------------


@dataclass(frozen=True)
class LikeAnswer:
    """The prototype of a ``--like`` example over a URL list, and the listed URLs it holds.

    Attributes:
        like: the example URL.
        normal: its normal form; None when it is not a valid URL.
        prototypes: every prototype learnt from the list (after the layout check's splits).
        prototype: the example's prototype (narrowed by the layout check when it was); None
            when no prototype matches the example.
        widened: the sibling prototypes whose pages look like the example: of its kind too.
        members: the listed URLs (as listed, in list order) in ``prototype`` or ``widened``.
        evidence: ``layout`` when pages were fetched and compared with the example page,
            ``urls`` when the answer rests on the URLs alone.
        reason: why the answer rests on the URLs alone ("" when it does not).
        layout: what the layout check found; None when it did not run.
        requests: pages requested from the site for the check (robots.txt aside; a URL the
            safety rule, the scope or robots.txt refuses is not requested).
        invalid: listed lines that are not valid URLs (skipped).
    """

    like: str
    normal: str | None
    prototypes: list[Prototype]
    prototype: Prototype | None
    widened: tuple[Prototype, ...]
    members: tuple[str, ...]
    evidence: Evidence
    reason: str = ""
    layout: LikeLayout | None = None
    requests: int = 0
    invalid: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the example, its prototype, the widened ones, the members and the
        evidence (with the layout check's samples and scores when it ran)."""
        evidence: dict[str, Any] = {"used": self.evidence}
        if self.reason:
            evidence["reason"] = self.reason
        if self.layout is not None:
            check, widening = self.layout.check, self.layout.widening
            evidence.update(
                fetched=self.requests,
                splits=check.splits,
                samples={url: _rounded(score) for url, score in check.sampled.items()},
                siblings=[
                    {
                        "id": p.id,
                        "regex": p.regex,
                        "score": round(widening.scores[p.id], 4),
                        "added": p in widening.added,
                    }
                    for p in widening.checked
                ],
            )
        return {
            "like": self.like,
            "normal": self.normal,
            "prototype": self.prototype.to_dict() if self.prototype is not None else None,
            "widened": [p.to_dict() for p in self.widened],
            "members": list(self.members),
            "evidence": evidence,
        }


def _rounded(score: float | None) -> float | None:
    return round(score, 4) if score is not None else None


async def like_over_list(
    urls: Sequence[str],
    like: str,
    settings: Settings,
    *,
    offline: bool = False,
    make_fetcher: Callable[[Settings, Scope], Fetcher] | None = None,
) -> LikeAnswer:
    """The example's prototype over a URL list, checked by the pages' layout as a crawl checks
    it (module docstring); with ``offline``, learnt from the URLs alone.

    The list is prototyped with the example among its URLs (as the crawl's result links are),
    the example's prototype is labelled when it holds a listed URL besides the example, and
    :func:`check_like_layout` runs with pages fetched from the example's host: its robots.txt
    obeyed, at its rate, within its scope. When the example page cannot be had, or no page
    could be compared with it, the answer says so and rests on the URLs.

    Args:
        urls: the URL list (absolute URLs; invalid lines are skipped and listed).
        like: the example URL (absolute).
        settings: deepcrawl settings (``prototypes``, ``politeness``, ``browser``, ``http``).
        offline: fetch nothing: the prototype the list's URLs make (the example not added).
        make_fetcher: the fetcher for a scope (default: the crawl's,
            :func:`deepcrawl.browser.make_fetcher` without form discovery).
    """
    # the example's credentials are its origin's HTTP authentication, not part of its URL
    settings = with_url_credentials(settings, [like])
    like, _ = split_userinfo(like)
    normaliser = URLNormaliser()
    listed: dict[str, str] = {}  # as listed -> normal form
    invalid: list[str] = []
    for url in urls:
        try:
            listed[url] = normaliser(url)
        except InvalidURLError:
            invalid.append(url)
    try:
        normal: str | None = normaliser(like)
    except InvalidURLError:
        normal = None
    if offline or normal is None:
        reason = "--offline" if offline else "the example is not a valid URL"
        return _url_answer(urls, like, settings, reason, tuple(invalid))
    return await _layout_answer(listed, like, normal, settings, tuple(invalid), make_fetcher)


def _url_answer(
    urls: Sequence[str], like: str, settings: Settings, reason: str, invalid: tuple[str, ...]
) -> LikeAnswer:
    """The URL-only answer (:func:`~deepcrawl.prototypes.like_prototype`)."""
    found = like_prototype(urls, like)
    return LikeAnswer(
        like=like,
        normal=found.normal,
        prototypes=list(found.fitted.prototypes_),
        prototype=found.prototype,
        widened=(),
        members=found.members,
        evidence="urls",
        reason=reason,
        invalid=invalid,
    )


async def _layout_answer(
    listed: dict[str, str],
    like: str,
    normal: str,
    settings: Settings,
    invalid: tuple[str, ...],
    make_fetcher: Callable[[Settings, Scope], Fetcher] | None,
) -> LikeAnswer:
    """The answer checked by the pages' layout, on a session of the list and the example."""
    from deepcrawl.browser.wrapped import gate_fetcher
    from deepcrawl.fetch.gate import Count, open_gate
    from deepcrawl.storage import Repository

    if make_fetcher is None:
        make_fetcher = _crawl_fetcher
    settings = with_start_origin(settings, like)  # the access headers go to its origin only
    scope = Scope((host_of(like),), implicit=False)
    # a session needs storage for its prototypes and labels: a private in-memory database
    with Repository.open("sqlite://", settings.storage) as repo:
        site = repo.site(like)
        session = LabelSession.learn(repo, site.id, [*listed.values(), normal])
        try:
            prototype = session.like(normal)
        except ConfigError:  # the prototyper left the example out: nothing to check
            reason = "no prototype holds the example"
            return _url_answer(list(listed), like, settings, reason, invalid)
        if any(member != normal for member in session.members[prototype.id]):
            session.label(prototype.id, suggest_name(prototype), relevant=True)
        sent = Count()  # the pages asked for, robots.txt aside
        async with make_fetcher(settings, scope) as fetcher:
            gate = await open_gate(settings, like, fetcher)
            gate_fetcher(fetcher, gate)  # what its pages load passes the gate too
            polite = gate.counting(sent).wrap(fetcher)

            async def fetch(url: str) -> FetchedPage | None:
                return await sample_politely(polite, url)

            layout = await check_like_layout(session, like, fetch)
        chosen = {p.id for p in layout.prototypes}
        members = tuple(
            url for url, form in listed.items() if session.matcher.match(form) in chosen
        )
        reason = ""
        if layout.check.reference is None:
            reason = "the example page could not be fetched"
        elif not layout.compared:
            reason = "no listed URL of the example's prototype or shape could be compared"
        return LikeAnswer(
            like=like,
            normal=normal,
            prototypes=list(session.prototypes),
            prototype=layout.check.prototype,
            widened=tuple(layout.widening.added),
            members=members,
            evidence="urls" if reason else "layout",
            reason=reason,
            layout=layout,
            requests=sent.requests,
            invalid=invalid,
        )


def _crawl_fetcher(settings: Settings, scope: Scope) -> Fetcher:
    """The crawl's fetcher of pages (plain HTTP, the browser where a kind of page needs it)."""
    from deepcrawl.browser import make_fetcher

    return make_fetcher(settings, scope, forms=False)
