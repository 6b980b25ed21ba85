"""The crawl's one door: every request it sends passes here, and is counted here only.

A :class:`Gate` is made once per crawl (by the crawl's context, or by :func:`open_gate` for a
link strategy run alone) and decides, in this order, each refusal logged:

1. **scope** — a URL outside the crawl's scope is refused, not sent (a page's own requests keep
   to the browser's scope, its hosts: :mod:`deepcrawl.browser.lease`);
2. **robots.txt** — nor one its host's robots.txt disallows (robots.txt itself is always
   allowed, RFC 9309 §2.2.2);
3. **safety** — nor one the safety rule refuses (:mod:`deepcrawl.safety`), as
   :meth:`~deepcrawl.safety.SafetyRule.request_reason` judges a request by who sends it: a URL
   the crawl chose by its words, unless its caller vouches for it (it judged the URL with the
   link that led there, or the user gave it); a page's script's request by its URL; anything a
   probed page sends, a GET or refused; what a page loads and the crawl's own navigations (a
   form the critic accepted, its result pages) not here; a form submission sent without the
   browser is judged by its action and the control that triggers it
   (:meth:`Gate.submission_refusal`);
4. **the host's rate slot** — a request waits for its host's turn (:class:`~deepcrawl.fetch
   .politeness.HostLimiter`: the rate, robots.txt's Crawl-delay, a pause after 429/503); a
   fetch the crawl asks for also holds one of the host's concurrency seats while it is sent,
   while the requests a page makes as it renders ride on the fetch or query that loads it (a
   seat each would wait on the seat their page holds);
5. **the count** — every request that goes out is counted once: in the crawl's figures, and in
   the :class:`Count` of the view that sent it (:meth:`Gate.counting`: the ``--navigate``
   phase's navigation requests, a layout check's samples, one query of ``deepcrawl query``).

Two kinds of sender pass it. Any :class:`~deepcrawl.browser.base.Fetcher` behind a
:class:`~deepcrawl.fetch.polite.PoliteFetcher` (:meth:`Gate.wrap`): the decisions, then the
passage (:meth:`Gate.passage`), then the fetch, retried on transient failures. And the
browser's pages, whose route handler asks the gate it was given (the browser's
:class:`~deepcrawl.browser.gate.RequestGate`, which :class:`Gate` implements) for each request
that would leave: robots.txt and safety (:meth:`Gate.page_refusal`), then the rate and the
count (:meth:`Gate.page_passage`). A page the crawl fetches in the browser through a polite
fetcher was admitted and counted as that fetch; its main-frame navigation is not counted again.
"""

from __future__ import annotations

import contextlib
import copy
import logging
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

from deepcrawl.browser.scope import strip_fragment
from deepcrawl.fetch.held import HeldPages
from deepcrawl.fetch.polite import PoliteFetcher
from deepcrawl.fetch.politeness import HOST_WAITS, HostLimiter, host_pause
from deepcrawl.fetch.robots import RobotsPolicy
from deepcrawl.safety import SafetyRule
from deepcrawl.settings import FormSettings

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Iterable, Iterator
    from contextlib import AbstractAsyncContextManager

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.page.submission import Submission
    from deepcrawl.safety import Sender
    from deepcrawl.settings import PolitenessSettings, Settings

__all__ = ["FORBIDDEN_KEPT", "Count", "Gate", "Tally", "open_gate"]

logger = logging.getLogger(__name__)

#: The page requests robots.txt refused that the gate keeps (:attr:`Gate.forbidden`).
FORBIDDEN_KEPT = 16


class Tally(Protocol):
    """Where the gate counts what goes out (a crawl's running figures, a :class:`Count`)."""

    requests: int
    """Requests sent (each try counts)."""
    retries: int
    """Tries scheduled again after a transient failure."""


@dataclass(slots=True)
class Count:
    """A :class:`Tally` of its own: what one part of a crawl sent (see :meth:`Gate.counting`)."""

    requests: int = 0
    retries: int = 0


@dataclass(eq=False, slots=True)
class _Admission:
    """A fetch admitted through the gate while it is sent (its page may be the browser's)."""

    claimed: bool = False


@dataclass(slots=True)
class _Admissions:
    """The fetches in flight that a page's main-frame navigation may be, by URL."""

    by_url: dict[str, list[_Admission]] = field(default_factory=dict)

    @contextlib.contextmanager
    def hold(self, url: str) -> Iterator[None]:
        key, admission = strip_fragment(url), _Admission()
        self.by_url.setdefault(key, []).append(admission)
        try:
            yield
        finally:
            held = self.by_url[key]
            held.remove(admission)
            if not held:
                del self.by_url[key]

    def claim(self, url: str) -> bool:
        """Whether a navigation to ``url`` is a fetch admitted already (claimed once)."""
        for admission in self.by_url.get(strip_fragment(url), ()):
            if not admission.claimed:
                admission.claimed = True
                return True
        return False


class Gate:
    """One crawl's door: scope, robots.txt, safety, the hosts' rate, the count.

    Args:
        settings: the politeness settings (rate, concurrency, retries, back-off).
        robots: the crawl's robots.txt rules (loaded by :meth:`open`).
        limiter: the per-host rate and concurrency (shared by every process on PostgreSQL:
            :func:`~deepcrawl.fetch.politeness.make_limiter`).
        in_scope: whether a URL belongs to the crawl.
        safety: the rule requests are judged by (default: the built-in words).
        tally: where every request and retry is counted; None counts nothing.
        form_words: words that mark a form's control as account-changing, on top of the
            rule's (``forms.refused_words``): a submission triggered by one is refused.
    """

    def __init__(
        self,
        settings: PolitenessSettings,
        robots: RobotsPolicy,
        limiter: HostLimiter,
        in_scope: Callable[[str], bool],
        *,
        safety: SafetyRule | None = None,
        tally: Tally | None = None,
        form_words: tuple[str, ...] = FormSettings().refused_words,
    ) -> None:
        self.settings = settings
        self.robots = robots
        self.limiter = limiter
        self.in_scope = in_scope
        self.safety = safety or SafetyRule()
        self.submissions = SafetyRule(form_words)
        self.tallies: tuple[Tally, ...] = () if tally is None else (tally,)
        #: The last page requests robots.txt refused (a script's search request among them):
        #: shared by every view (:meth:`counting`), as the gate's decisions are.
        self.forbidden: deque[str] = deque(maxlen=FORBIDDEN_KEPT)
        self._admissions = _Admissions()

    def counting(self, tally: Tally) -> Gate:
        """This gate — the same decisions, robots.txt, rate slots and count — that also counts
        what goes out through it in ``tally`` (a part of the crawl that wants its own figure)."""
        view = copy.copy(self)
        view.tallies = (*self.tallies, tally)
        return view

    async def open(
        self, start_url: str, fetcher: Fetcher, *, held: Iterable[FetchedPage] = ()
    ) -> None:
        """Read the robots.txt of the start URL's host (once, through this gate: in the host's
        rate slot, counted; an answer in ``held``, fetched earlier, is taken instead) and honour
        its Crawl-delay."""
        await self.robots.load(start_url, HeldPages(_Sent(fetcher, self), held))
        if (delay := self.robots.crawl_delay(start_url)) is not None:
            logger.info("robots.txt asks for a Crawl-delay of %g s: honoured", delay)
            self.limiter.set_crawl_delay(urlsplit(start_url).netloc, delay)

    # -- the decisions -----------------------------------------------------------------------

    def refusal(
        self, url: str, *, method: str = "GET", sender: Sender = "crawler", vouched: bool = False
    ) -> str | None:
        """Why ``url`` may not be requested — scope, then robots.txt, then (unless the caller
        ``vouched`` for the URL) the safety rule as it judges a request of ``sender`` — or None
        when it may."""
        if not self.in_scope(url):
            return "out of the crawl's scope (not fetched)"
        if not self._robots_allow(url):
            return "disallowed by robots.txt (not fetched)"
        if not vouched and (why := self.safety.request_reason(url, method=method, sender=sender)):
            return f"refused by the safety rule, {why} (not fetched)"
        return None

    def submission_refusal(self, submission: Submission) -> str | None:
        """Why a form ``submission`` may not go out — its action's scope and robots.txt, then
        the safety rule on the action and on the control that triggers it (its text, name and
        value: a log-in or sign-up button of a page-wide form is refused wherever the
        submission comes from) — or None when it may."""
        url = submission.action
        if (why := self.refusal(url, method="POST", vouched=True)) is not None:
            return why
        if why := self.submissions.reason(url, submission.words()):
            return f"refused by the safety rule, {why} (not submitted)"
        return None

    def allowed(self, url: str) -> bool:
        """Whether ``url`` is in scope and allowed by robots.txt (a link worth queueing: the
        safety rule judges it with its link's text where it is queued)."""
        return self.refusal(url, vouched=True) is None

    def _robots_allow(self, url: str) -> bool:
        return self.robots.allowed(url) or urlsplit(url).path == "/robots.txt"

    # -- the rate slot and the count ---------------------------------------------------------

    @contextlib.asynccontextmanager
    async def passage(self, url: str, *, seat: bool = True) -> AsyncIterator[None]:
        """Held while one request to ``url`` is sent: counted, after its host's turn (and, with
        ``seat``, holding one of the host's concurrency seats throughout)."""
        self._count()
        if not seat:
            await self.limiter.turn(url)
            yield
            return
        async with self.limiter.slot(url):
            yield

    def admitted(self, url: str) -> contextlib.AbstractContextManager[None]:
        """Held while an admitted fetch of ``url`` is sent (within its :meth:`passage`): a
        browser page's navigation to it is that fetch, not a request of its own."""
        return self._admissions.hold(url)

    def throttled(self, url: str, status: int, retry_after: str | None) -> None:
        """Pause ``url``'s host after it answered ``status`` (429 or 503) with ``retry_after``
        (:func:`~deepcrawl.fetch.politeness.host_pause`): no request to it, from any sender or
        process sharing its schedule, starts before the pause ends."""
        host = urlsplit(url).netloc
        delay = host_pause(self.settings, retry_after=retry_after)
        logger.info("%s answered %d: nothing sent to %s for %.1f s", url, status, host, delay)
        self.limiter.pause(host, delay)

    def retried(self) -> None:
        """Count a try scheduled again after a transient failure."""
        for tally in self.tallies:
            tally.retries += 1

    def _count(self) -> None:
        for tally in self.tallies:
            tally.requests += 1

    # -- the browser's side (deepcrawl.browser.gate.RequestGate) ------------------------------

    def page_refusal(self, url: str, *, method: str, sender: Sender) -> str | None:
        """Why a page's request may not go out — robots.txt, then the safety rule as it judges
        ``sender``'s request — or None (the page's scope is the browser's: its hosts)."""
        why = "disallowed by robots.txt" if not self._robots_allow(url) else None
        if why is not None:
            self.forbidden.append(url)
        why = why or self.safety.request_reason(url, method=method, sender=sender)
        if why is not None:
            logger.debug("%s %s from a page (%s): refused, %s", method, url, sender, why)
        return why

    def page_passage(self, url: str, *, navigation: bool) -> AbstractAsyncContextManager[None]:
        """A page's request on its way out: its host's turn and the count — none for the
        main-frame ``navigation`` a polite fetch admitted and counted already."""
        if navigation and self._admissions.claim(url):
            return contextlib.nullcontext()
        return self.passage(url, seat=False)

    def page_answer(self, url: str, status: int, retry_after: str | None) -> None:
        """A page's request answered ``status``: its host paused on 429 and 503
        (:meth:`throttled`)."""
        if status in HOST_WAITS:
            self.throttled(url, status, retry_after)

    def wrap(
        self, fetcher: Fetcher, *, vouched: Callable[[str], bool] | None = None
    ) -> PoliteFetcher:
        """``fetcher`` behind this gate; ``vouched`` names the URLs its caller judged safe
        already (see :class:`~deepcrawl.fetch.polite.PoliteFetcher`)."""
        return PoliteFetcher(fetcher, self, vouched=vouched)


class _Sent(PoliteFetcher):
    """``fetcher`` through the gate's passage and its retry policy only: robots.txt, which no
    rule may refuse (RFC 9309 §2.2.2)."""

    def refusal(self, url: str) -> str | None:
        """None: robots.txt may always be fetched."""
        return None


async def open_gate(
    settings: Settings,
    start_url: str,
    fetcher: Fetcher,
    *,
    in_scope: Callable[[str], bool] | None = None,
    tally: Tally | None = None,
) -> Gate:
    """The gate of a crawl from ``start_url`` that has no crawl context (a link strategy run
    alone, a layout check over a URL list): its own robots.txt rules read through ``fetcher``
    (one request when obeyed), their Crawl-delay applied, an in-process limiter.

    Args:
        settings: deepcrawl settings (``politeness``; ``http.user_agent`` for robots.txt).
        start_url: where the crawl starts (its host's robots.txt is read).
        fetcher: an entered fetcher.
        in_scope: the crawl's scope; default :func:`~deepcrawl.fetch.polite.same_host` of
            ``start_url``.
        tally: where its requests are counted.
    """
    from deepcrawl.fetch.polite import same_host

    politeness = settings.politeness
    gate = Gate(
        politeness,
        RobotsPolicy(settings.http.user_agent, obey=politeness.obey_robots),
        HostLimiter(politeness),
        in_scope or same_host(start_url),
        tally=tally,
    )
    await gate.open(start_url, fetcher)
    return gate
