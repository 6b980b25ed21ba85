"""Hub pages beside the queries: xCrawl's "query, then navigate" inside the normal phase.

xCrawl (Shchekotykhin et al., sections 3-4) finds its first authorities with queries and then
exploits the site's navigational structures — index pages, category lists, site maps: *hubs*,
pages that link to many authorities — because one hub request brings many records. In a
deepcrawl crawl the queries go on as long as they pay, so a hub is worth a request only when it
brings more new records than a result page does; this module makes that decision.

* **Candidates.** Every link the crawl sees (in a result list, or on a fetched record page)
  that the URL classifier does not want is a page of some *kind* (its prototype, or its URL's
  shape when no prototype matches). A member is ranked by the distinct pages that link to it:
  in xCrawl's graph a hub and its authorities link to each other, so a page many records link
  to (a topic, a category) is where a list of them is likely to be.
* **Sampling.** A kind is tried once one of its members is linked from :data:`MIN_INLINKS`
  pages, its most linked member first; ``links.hub_max_kinds`` kinds at most are ever tried, so a
  site with many kinds of pages pays a handful of requests for the trials. A *family* — a kind
  with several such members, each linked from part of the records (topics, categories, months)
  — is tried before a kind of one page: the paper's navigational structures are hierarchies
  and lists, while the one page every page links to (log in, register, about) is the site's
  frame.
* **Yield.** A fetched member's yield is the wanted records new to the crawl among its links.
  A kind is read on — its next most linked member — while its mean yield over its latest
  :data:`WINDOW` members is above the queries' yield per request over their latest
  :data:`QUERY_WINDOW` queries (and above :data:`MIN_YIELD`); once it is not, the kind is
  dropped for good: a kind that stopped paying (its lists now hold what the crawl knows) is not
  tried again.

The scout holds no page and fetches nothing: the normal phase asks it what to fetch next
(:meth:`HubScout.next_hub`), fetches it politely, queues the wanted links and reports how many
were new (:meth:`HubScout.record`). A hub page is never delivered as a record.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from deepcrawl.safety import SafetyRule

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from deepcrawl.classify.url import Decision
    from deepcrawl.keywords.outcome import QueryOutcome

__all__ = [
    "MIN_INLINKS",
    "MIN_YIELD",
    "QUERY_WINDOW",
    "REFUSED_WORDS",
    "WINDOW",
    "HubScout",
    "KindYield",
    "query_yield",
]

logger = logging.getLogger(__name__)

#: A kind is tried once one of its pages is linked from this many pages the crawl read
#: (records, result pages): a page several records link to may list them. Not from a paper.
MIN_INLINKS = 2
#: A kind being read is judged on the new records of its latest this many pages: it goes on
#: while their mean beats the queries' yield. Not from a paper.
WINDOW = 3
#: The queries' yield a hub must beat: new records a request over this many latest queries.
QUERY_WINDOW = 10
#: New records a hub page must bring at least (also once the querying ended): below one, the hub
#: request costs more than the record it finds.
MIN_YIELD = 1.0
#: Words (of the URL or the link text, stemmed as the safety rule's) that keep a page from being
#: tried as a hub, on top of the safety rule's: an account's or a message form's pages list no
#: records.
REFUSED_WORDS = (
    "login", "log in", "sign in", "signin", "sign up", "signup", "register",
    "registration", "password", "account", "contact", "newsletter",
)  # fmt: skip


def query_yield(history: Sequence[QueryOutcome], window: int) -> float | None:
    """New records per request of the latest ``window`` queries; None before any query cost.

    A query's cost is its result pages (the submission and each further page), its ``new`` the
    records no query or link had brought before it.
    """
    latest = history[-window:] if window > 0 else history
    cost = sum(o.cost for o in latest)
    return sum(o.new for o in latest) / cost if cost else None


@dataclass
class KindYield:
    """One kind of non-wanted page as a source of hubs.

    Attributes:
        kind: the prototype id, or the URL shape.
        inlinks: member URL not fetched yet → how many pages were seen linking to it.
        yields: the new records each fetched member brought, in fetch order.
        dropped: it stopped paying (or never paid); none of its members is fetched any more.
    """

    kind: str
    inlinks: dict[str, int] = field(default_factory=dict)
    yields: list[int] = field(default_factory=list)
    dropped: bool = False

    def recent(self, window: int) -> float:
        """Mean new records a request over its latest ``window`` fetched members."""
        latest = self.yields[-window:] if window > 0 else self.yields
        return sum(latest) / len(latest) if latest else 0.0

    def family(self, least: int) -> int:
        """How many of its members are linked from ``least`` pages at least."""
        return sum(1 for count in self.inlinks.values() if count >= least)

    def best(self, least: int = 1) -> str | None:
        """Its member linked from the most pages (``least`` at least), None when none is."""
        url, count = max(self.inlinks.items(), key=lambda item: item[1], default=("", 0))
        return url if count >= max(1, least) else None


class HubScout:
    """Chooses the hub pages worth a request against the queries' yield; see the module docs.

    Args:
        max_kinds: kinds tried at most (``links.hub_max_kinds``; 0: no hub).
        read: pages the crawl read already (its start page, where the form is): no candidates.
        min_inlinks: pages that must link a member before its kind is tried.
        window: latest members of a kind its yield is judged on.
        min_yield: new records a hub page must bring at least.
    """

    def __init__(
        self,
        max_kinds: int,
        *,
        read: Iterable[str] = (),
        min_inlinks: int = MIN_INLINKS,
        window: int = WINDOW,
        min_yield: float = MIN_YIELD,
    ) -> None:
        self.max_kinds = max_kinds
        self.min_inlinks = min_inlinks
        self.window = window
        self.min_yield = min_yield
        self.kinds: dict[str, KindYield] = {}
        self._refused = SafetyRule(REFUSED_WORDS)
        self._fetched: set[str] = set(read)
        self._pending: dict[str, str] = {}  # member handed out → its kind, until recorded

    @property
    def enabled(self) -> bool:
        """Whether any kind may still be read or tried (``max_kinds`` above 0, and not every
        kind tried dropped once the cap is reached)."""
        tried = self.tried
        return self.max_kinds > 0 and (
            len(tried) < self.max_kinds or not all(k.dropped for k in tried)
        )

    @property
    def tried(self) -> list[KindYield]:
        """The kinds sampled so far (fetched, or one of their members being fetched)."""
        pending = set(self._pending.values())
        return [k for k in self.kinds.values() if k.yields or k.kind in pending]

    def admits(self, decision: Decision, text: str) -> bool:
        """Whether a link the URL classifier does not want (``decision``, through a link
        reading ``text``) may be a hub: a page of a kind (no invalid URL), not one the safety
        rule refuses, nor one whose URL or text names an account or message page
        (:data:`REFUSED_WORDS`): such pages list no records."""
        return decision.source != "invalid" and self._refused.allows(decision.url, text)

    def see(self, page: str, links: Iterable[tuple[str, str]]) -> None:
        """Count the non-wanted links seen on ``page`` (``(url, kind)`` pairs), once a page."""
        if not self.enabled:
            return
        for url, kind in dict(links).items():
            if url == page or url in self._fetched:
                continue
            entry = self.kinds.get(kind)
            if entry is None:
                entry = self.kinds[kind] = KindYield(kind)
            entry.inlinks[url] = entry.inlinks.get(url, 0) + 1

    def next_hub(self, query_rate: float | None) -> str | None:
        """The next page to fetch as a hub, or None when no kind is worth a request.

        Args:
            query_rate: the queries' new records per request now (:func:`query_yield`); None
                before any query or once the querying ended.

        A kind being read goes on while it pays more than the queries (its next most linked
        member); else an untried kind is sampled, its most linked member first.
        """
        if not self.enabled or self._pending:
            return None
        window = self.window
        bar = max(query_rate or 0.0, self.min_yield)
        read = [e for e in self.kinds.values() if e.yields and not e.dropped]
        for entry in sorted(read, key=lambda e: -e.recent(window)):
            if entry.recent(window) <= bar:
                entry.dropped = True
                logger.info(
                    "hubs: %s dropped: %.1f new records a request over its latest %d pages, "
                    "the queries %.2f",
                    entry.kind, entry.recent(window), min(len(entry.yields), window),
                    query_rate or 0.0,
                )  # fmt: skip
                continue
            if (member := entry.best()) is not None:
                return self._hand_out(member, entry)
        if len(self.tried) >= self.max_kinds:
            return None
        least = self.min_inlinks
        untried = [
            (entry.family(least) > 1, entry.inlinks[member], member, entry)
            for entry in self.kinds.values()
            if not entry.yields and (member := entry.best(least)) is not None
        ]
        if not untried:
            return None
        *_rank, member, entry = max(untried, key=lambda t: t[:2])
        return self._hand_out(member, entry)

    def read_already(self, url: str, kind: str, new: int) -> None:
        """A page of ``kind`` the crawl fetched before (the setup phase's samples) brought
        ``new`` records: a trial of its kind that cost this phase nothing."""
        if url in self._fetched:
            return
        self._fetched.add(url)
        entry = self.kinds.setdefault(kind, KindYield(kind))
        entry.inlinks.pop(url, None)
        entry.yields.append(new)
        logger.info("hubs: %s (%s), read before, brought %d new records", url, kind, new)

    def record(self, url: str, new: int) -> None:
        """The hub ``url`` handed out was fetched and brought ``new`` records (0 when it failed)."""
        kind = self._pending.pop(url, None)
        if kind is None:
            return
        self.kinds[kind].yields.append(new)
        logger.info("hubs: %s (%s) brought %d new records", url, kind, new)

    def _hand_out(self, member: str, entry: KindYield) -> str:
        self._fetched.add(member)
        entry.inlinks.pop(member, None)
        self._pending[member] = entry.kind
        return member
