"""When a crawl has run away: the stop rules that hold whatever a record's identity says.

A crawl keys its records by their URLs; a site whose links change on every response (a session
id, a counter, a parameter nobody named) shows the same records under new URLs without end, and
a crawl that believes them queries, follows and delivers for ever. These rules look at what was
delivered instead of at URLs, so they stop such a crawl whatever its identity rules missed:

* :func:`outgrown` — the records delivered are far more than the crawl's own evidence says
  exist: its capture–recapture estimate of the records the form surfaces, and the largest total
  a result list reported (:data:`RUNAWAY_FACTOR`, :data:`RUNAWAY_SLACK`);
* :func:`repeating` — most of the latest pages fetched repeat the content of a page fetched
  before (:data:`RUNAWAY_WINDOW`, :data:`RUNAWAY_REPEAT_SHARE`): the same records again
  under new URLs. :class:`ContentLedger` keeps the counts, by a hash of each page's main text.

Each is a pure function of plain counters and its thresholds, returning a
:class:`~deepcrawl.querying.verdict.Verdict` with its reason (the crawl's ``stop_reason``) or
None; :func:`runaway` applies both to the ledger, and :class:`Runaway` is the rule the loop asks
first. The crawl stops its querying and its link following on a verdict; the URLs already
queued are fetched.
"""

from __future__ import annotations

import hashlib
from collections import deque
from typing import TYPE_CHECKING

from deepcrawl.querying.rule import Rule
from deepcrawl.querying.verdict import Verdict

if TYPE_CHECKING:
    from deepcrawl.querying.rule import QueryView
    from deepcrawl.querying.view import LedgerView as Ledger
    from deepcrawl.settings import Settings

__all__ = ["ContentLedger", "Runaway", "outgrown", "repeating", "runaway"]

#: The latest record pages the repeat rule judges (:func:`repeating`; the ledger's
#: :class:`ContentLedger` keeps them): once :data:`RUNAWAY_REPEAT_SHARE` of them repeat a main
#: text fetched before, querying and link following stop. 0: off.
RUNAWAY_WINDOW = 40
#: The share of repeats (0–1) among the latest :data:`RUNAWAY_WINDOW` pages that stops a crawl.
RUNAWAY_REPEAT_SHARE = 0.5
#: Querying and link following stop once the records delivered pass this many times those the
#: estimate and the lists' largest total say exist, plus :data:`RUNAWAY_SLACK` (:func:`outgrown`).
#: 0: off.
RUNAWAY_FACTOR = 4.0
#: Records delivered past :data:`RUNAWAY_FACTOR` times those known to exist before that rule
#: holds: records of links and sitemaps, which no query counts.
RUNAWAY_SLACK = 200


def outgrown(
    delivered: int,
    estimate: float | None,
    largest_total: int | None,
    *,
    factor: float,
    slack: int,
) -> Verdict | None:
    """Whether the records delivered outgrew what the crawl's own evidence says exist.

    Args:
        delivered: records delivered so far (earlier runs included).
        estimate: the capture–recapture estimate of the records the form surfaces (None: no
            estimate yet).
        largest_total: the largest result count a result list reported (None: none did).
        factor: how many times the records known to exist the deliveries may reach (0: off).
        slack: records delivered beyond that before the rule holds (the records of link
            following and sitemaps, which no query counts).
    """
    known = max(estimate or 0.0, float(largest_total or 0))
    if factor <= 0 or known <= 0 or delivered <= factor * known + slack:
        return None
    return Verdict(
        f"the crawl ran away: {delivered} records delivered, more than {factor:g} times the "
        f"~{round(known)} that its estimate and the result lists' totals say exist",
        rule="outgrown",
    )


def repeating(repeats: int, seen: int, *, window: int, share: float) -> Verdict | None:
    """Whether the latest pages fetched keep repeating content fetched before.

    Args:
        repeats: of the latest ``seen`` pages, those whose content a page before had.
        seen: the latest pages looked at (at most ``window``).
        window: the pages the rule needs before it judges (0: off).
        share: the share of repeats at which it holds.
    """
    if window <= 0 or seen < window or repeats < share * seen:
        return None
    return Verdict(
        f"the crawl ran away: {repeats} of the last {seen} pages fetched repeat the content of "
        "a page fetched before (the same records under new URLs)",
        rule="repeating",
    )


def runaway(ledger: Ledger, *, delivered: int) -> Verdict | None:
    """The first of the rules that holds over the ledger (:func:`repeating` over its
    fetched pages' content, then :func:`outgrown` over ``delivered`` against its estimate and
    its lists' largest total), or None."""
    return repeating(
        ledger.content.recent_repeats,
        ledger.content.recent,
        window=RUNAWAY_WINDOW,
        share=RUNAWAY_REPEAT_SHARE,
    ) or outgrown(
        delivered,
        ledger.estimated_size,
        ledger.largest_total,
        factor=RUNAWAY_FACTOR,
        slack=RUNAWAY_SLACK,
    )


class Runaway(Rule):
    """The crawl ran away (:func:`runaway`): its querying and its link following stop. Once
    found, the verdict stays."""

    name = "runaway"

    def __init__(self) -> None:
        self.found: Verdict | None = None
        """The verdict, once the crawl ran away."""

    def decide(self, view: QueryView, settings: Settings) -> Verdict | None:
        if self.found is None:
            self.found = runaway(view.ledger, delivered=view.delivered)
        return self.found


class ContentLedger:
    """The content fingerprints of the pages fetched, and which of the latest repeated one.

    A fingerprint is a hash of the page's main text, its words case-folded (markup, spacing
    and the URLs of its links play no part): exact, so a page differing in one word is another
    page, and cheap at any fetch rate. Only the fingerprints are kept.

    Args:
        window: how many of the latest pages :attr:`recent_repeats` counts over.
    """

    def __init__(self, window: int) -> None:
        self._seen: set[bytes] = set()
        self._latest: deque[bool] = deque(maxlen=max(1, window))
        self.pages = 0
        """Pages with a main text looked at."""
        self.repeats = 0
        """Of those, the pages whose content a page before had."""

    def add(self, text: str) -> bool:
        """Count one page by its main text; whether a page before had the same. A page with no
        text (an empty answer) is not counted: it repeats nothing."""
        words = text.casefold().split()
        if not words:
            return False
        digest = hashlib.blake2b(" ".join(words).encode(), digest_size=16).digest()
        repeat = digest in self._seen
        self._seen.add(digest)
        self._latest.append(repeat)
        self.pages += 1
        self.repeats += repeat
        return repeat

    @property
    def recent(self) -> int:
        """The latest pages :attr:`recent_repeats` counts over."""
        return len(self._latest)

    @property
    def recent_repeats(self) -> int:
        """Of the latest pages, those whose content a page before had."""
        return sum(self._latest)
