"""Which links the crawl wants: judged from their URL, and the wanted ones queued for fetching.

Every link the crawl meets — a result list's, a fetched record page's own, a sitemap's, a hub's —
passes :class:`Admission`, which both the normal phase and a ``deepcrawl worker`` process own:

1. the URL-only classifier (:class:`~deepcrawl.classify.url.URLClassifier`) decides from the
   URL alone whether its page is wanted; a link found outside the results area (a record page's
   own, a sitemap's) only when a labelled prototype matches it;
2. the safety rule (:mod:`deepcrawl.safety`) judges what no labelled prototype vouches for: a
   record page's own links by their URL (their chrome is where logout and delete links live), a
   link only the learned model wants by its URL and text;
3. a wanted link enters the shared frontier under its canonical URL (the crawl's
   ``crawl.drop_params`` dropped, so near-duplicates are one entry, fetched once); those found
   outside the results are told to the query loop as records known (``known``);
4. a link not wanted is shown to the hub scout (:class:`~deepcrawl.links.hubs.HubScout`), which
   may find its kind worth reading as a hub.

The frontier's URLs are the judged ones: the fetch workers (:mod:`deepcrawl.crawler.fetching`)
fetch them as vouched for.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import logging
import re
from typing import TYPE_CHECKING

from deepcrawl.classify.url import LabelStats
from deepcrawl.links.hubs import HubScout
from deepcrawl.prototypes import Prototyper
from deepcrawl.prototypes._labelling import to_row
from deepcrawl.records.kinds import canonical_url, make_classifier, page_kind
from deepcrawl.safety import SafetyRule
from deepcrawl.storage import PrototypeBase
from deepcrawl.storage.frontier import NewURL
from deepcrawl.urls import normalise_or_none

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from deepcrawl.classify.url import Decision
    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.storage.frontier import SqlFrontier

__all__ = ["Admission"]

logger = logging.getLogger(__name__)

#: Result links whose record id is cached (a query's links are asked for several times).
_ID_CACHE = 1 << 16
#: URLs whose decision is cached; the cache is emptied when full.
_DECISION_CACHE = 1 << 16


class Admission:
    """Judge links and queue the wanted ones (see the module docstring).

    Args:
        ctx: the crawl's context (its prototypes and labels, its figures).
        frontier: the crawl's shared frontier.
        known: told the records found outside the results area as they are queued (the query
            loop's manager counts them as known); None: nobody asks.
        queued: called when new URLs entered the frontier (the fetch workers wake).
    """

    def __init__(
        self,
        ctx: CrawlContext,
        frontier: SqlFrontier,
        *,
        known: Callable[[Iterable[str], Mapping[str, str]], object] | None = None,
        queued: Callable[[], None] | None = None,
    ) -> None:
        self.ctx = ctx
        self.frontier = frontier
        self.known = known
        self.queued = queued
        self.classifier = make_classifier(ctx.repo, ctx.site.id, ctx.state.link_urls())
        self.label_stats = LabelStats()
        #: Judges the links only the learned model wants (a labelled prototype vouches for its).
        self.safety = SafetyRule()
        globs = "|".join(fnmatch.translate(g) for g in ctx.settings.crawl.drop_params)
        self._drop = re.compile(globs or r"(?!)", re.IGNORECASE)
        # bounded: one entry per result link ever seen would grow with the site
        self._ids = functools.lru_cache(maxsize=_ID_CACHE)(self._record_id)
        #: The decisions made by the classifier and under the session parameters they name.
        self._decided: dict[str, Decision] = {}
        self._decided_by: tuple[object, frozenset[str]] = (None, frozenset())
        #: Pages of the kinds not wanted, read as hubs while they beat the queries; the start
        #: page, read by the setup phase, is none.
        self.hubs = HubScout(
            ctx.settings.links.hub_max_kinds, read=[self.canonical(self.decide(ctx.start_url))]
        )

    # -- what a URL is ---------------------------------------------------------------------

    def decide(self, url: str) -> Decision:
        """The URL classifier's decision on ``url``."""
        return self._decide_many([url])[0]

    def _decide_many(self, urls: Iterable[str]) -> list[Decision]:
        """The decisions on ``urls``, those made before taken from the cache.

        A record page's chrome (its home, database and table links) is the same on every
        record page, and each of its links would cost a run of the learned model a page: a
        decision is a function of the URL, the classifier and the parameters learnt to be no
        part of a URL, and is kept until either of the last two changes.
        """
        urls = list(urls)
        by = (self.classifier, self.ctx.sessions.names)
        if by[0] is not self._decided_by[0] or by[1] != self._decided_by[1]:
            self._decided, self._decided_by = {}, by
        cached = self._decided
        new = list(dict.fromkeys(url for url in urls if url not in cached))
        if len(cached) + len(new) > _DECISION_CACHE:
            cached.clear()
            new = list(dict.fromkeys(urls))
            if len(new) > _DECISION_CACHE:  # a sitemap's worth: decided without the cache
                return self._decide_afresh(urls)
        if new:
            cached.update(zip(new, self._decide_afresh(new), strict=True))
        return [cached[url] for url in urls]

    def _decide_afresh(self, urls: list[str]) -> list[Decision]:
        sessions = self.ctx.sessions
        if not sessions.names:
            return self.classifier.decide_many(urls)
        # the parameters learnt to be no part of a URL (sessions, the query's echo) leave it
        # before it is judged; a kind labelled while they were in it still knows the URL
        # under its old spelling (its regex may name the parameter)
        raw = [normalise_or_none(url) or url for url in urls]
        dropped = [sessions.drop(url) for url in raw]
        decisions = self.classifier.decide_many(dropped)
        again = [n for n, (d, a, b) in enumerate(zip(decisions, raw, dropped, strict=True))
                 if not d.relevant and a != b]  # fmt: skip
        if again:
            for n, old in zip(again, self.classifier.decide_many([raw[n] for n in again]),
                              strict=True):  # fmt: skip
                if old.relevant:
                    decisions[n] = dataclasses.replace(old, url=dropped[n])
        return decisions

    def lend_labels(self) -> int:
        """A kind the user labelled may name in its regex a parameter since learnt to be no
        part of a URL (``?hl=`` in ``/book/<id>?hl=<word>``): the kind its URLs fall in without
        it takes its label where it has none, and the classifier is made again. Returns how
        many kinds took a label."""
        ctx = self.ctx
        labels = {row.prototype_key: row for row in ctx.repo.labels(ctx.site.id)}
        rows: list[PrototypeBase] = list(ctx.repo.prototypes(ctx.site.id))
        lent = 0
        for prototype in rows:
            label = labels.get(prototype.key)
            if label is None or not label.relevant:
                continue
            unmatched: list[str] = []
            for url in prototype.examples:
                dropped = ctx.sessions.drop(normalise_or_none(url) or url)
                if dropped == url:
                    continue
                other = self.classifier.matcher_.match(dropped)
                if other is None:  # no kind of its own yet: one is learnt from them below
                    unmatched.append(dropped)
                elif other not in labels:
                    labels[other] = ctx.repo.set_label(
                        ctx.site.id, other, name=label.name, relevant=True
                    )
                    lent += 1
            for new in Prototyper().fit(unmatched).prototypes_:
                if new.id not in {row.key for row in rows}:
                    rows.append(PrototypeBase(**to_row(new)))
                    ctx.repo.save_prototypes(ctx.site.id, rows)
                    labels[new.id] = ctx.repo.set_label(
                        ctx.site.id, new.id, name=label.name, relevant=True
                    )
                    lent += 1
        if lent:
            logger.info("%d kinds of URL take the labels of their spellings with the "
                        "parameters since learnt to be no part of a URL", lent)  # fmt: skip
            self.classifier = make_classifier(ctx.repo, ctx.site.id, ctx.state.link_urls())
            self.forget_ids()
        return lent

    def forget_ids(self) -> None:
        """Forget the record ids worked out so far (a parameter was learnt to carry a session:
        the same links may name other records now)."""
        self._ids.cache_clear()

    def canonical(self, decision: Decision) -> str:
        """The frontier's key of the URL ``decision`` is about: its canonical form."""
        return canonical_url(decision.url, self._drop)

    def key(self, url: str) -> str | None:
        """The frontier's key of any URL (its normal form less the parameters that are no part
        of it, listed or learnt); None when it cannot be read."""
        if (normal := normalise_or_none(url)) is None:
            return None
        return canonical_url(self.ctx.sessions.drop(normal), self._drop)

    def record_id(self, url: str) -> str | None:
        """The canonical URL of a wanted result link, None for the rest (the manager's ids)."""
        return self._ids(url)

    def _record_id(self, url: str) -> str | None:
        decision = self.decide(url)
        return self.canonical(decision) if decision.relevant else None

    def prototype_key(self, url: str) -> str:
        """The URL's prototype id (its shape when no prototype matches): the unit by which an
        adaptive fetcher decides plain HTTP or browser."""
        return page_kind(self.decide(url))

    def labelled_record(self, url: str) -> bool:
        """Whether a labelled prototype wants ``url`` (a record of a kind the user chose)."""
        decision = self.decide(url)
        return decision.relevant and decision.source == "prototype"

    # -- queueing --------------------------------------------------------------------------

    def enqueue(
        self,
        links: Iterable[tuple[str, str]],
        source: str,
        *,
        on_record: bool = False,
        scout: str | None = None,
    ) -> int:
        """Classify links and add the wanted ones to the frontier; returns how many new.

        Args:
            links: ``(url, anchor text)`` pairs (result links, or links on a record page).
            source: why they are wanted (kept in the frontier).
            on_record: links found outside the results area — a fetched record page's own
                links, the URLs a sitemap lists. Only those a labelled prototype matches are
                taken (a record page's tool links — print, export — are near variants the
                learned model might accept; the results area vouched for result links,
                nothing vouches for these), and the query loop counts them as known.
            scout: the page the links are on (a result list's source): the links the crawl
                does not want are shown to the hub scout (:meth:`HubScout.admits
                <deepcrawl.links.hubs.HubScout.admits>`).
        """
        new, texts = self.wanted(links, source, on_record=on_record, scout=scout)
        return self.queue(new, texts, known=on_record)

    def enqueue_listed(self, urls: Iterable[str], source: str) -> int:
        """Queue the wanted URLs of a list that is no page (a sitemap): judged as a record
        page's links are, known to the query loop; returns how many were wanted."""
        new, texts = self.wanted(((url, "") for url in urls), source, on_record=True)
        self.queue(new, texts, known=True)
        return len(new)

    def wanted(
        self,
        links: Iterable[tuple[str, str]],
        source: str,
        *,
        on_record: bool,
        scout: str | None = None,
    ) -> tuple[dict[str, NewURL], dict[str, str]]:
        """The wanted links as frontier entries by canonical URL, with their texts; with
        ``scout``, the others are shown to the hub scout, from the same decisions."""
        pairs = list(links)
        if on_record:  # decided without their tracking and session parameters (``?ref=related``)
            pairs = [
                (canonical_url(normal, self._drop), text)
                for url, text in pairs
                if (normal := normalise_or_none(url)) is not None
            ]
        new: dict[str, NewURL] = {}
        texts: dict[str, str] = {}
        stats = self.label_stats
        scouting = scout if self.hubs.enabled else None
        hubs: list[tuple[str, str]] = []
        decisions = self._decide_many([url for url, _text in pairs])
        for decision, (_url, text) in zip(decisions, pairs, strict=True):
            if scouting and not decision.relevant and self.hubs.admits(decision, text):
                hubs.append((self.canonical(decision), page_kind(decision)))
            if on_record and decision.source != "prototype":
                continue
            stats.add(decision)
            if decision.relevant and self._safe(decision, text, on_record=on_record):
                key = self.canonical(decision)
                new.setdefault(key, NewURL(key, priority=decision.score, source=source))
                if text:
                    texts.setdefault(key, text)
        self.ctx.stats.accepted = dict(stats.accepted)
        self.ctx.stats.rejected = dict(stats.rejected)
        self.ctx.stats.unsure = stats.unsure
        logger.debug("%s: %d links, %d wanted", source, len(pairs), len(new))
        if scouting:
            self.hubs.see(scouting, hubs)
        return new, texts

    def _safe(self, decision: Decision, text: str, *, on_record: bool) -> bool:
        """Whether the safety rule lets a wanted link be fetched.

        A labelled prototype vouches for the results area's links (their text is a title,
        which may read like anything); a record page's own links are its chrome, where logout
        and delete links live, so their URLs are judged even when a (perhaps too general)
        prototype matches; a link only the learned model wants is judged whole.
        """
        if decision.source == "prototype":
            safe = not on_record or self.safety.allows(decision.url)
        else:
            safe = self.safety.allows(decision.url, text)
        if not safe:
            logger.info("%s: refused by the safety rule (it may change the site)", decision.url)
        return safe

    def queue(self, new: Mapping[str, NewURL], texts: Mapping[str, str], *, known: bool) -> int:
        """Queue wanted URLs; ``known``: the query loop counts them as known records."""
        if known and self.known is not None:
            self.known(new, texts)
        added = self.frontier.add(new.values())
        if added and self.queued is not None:
            self.queued()
        return added
