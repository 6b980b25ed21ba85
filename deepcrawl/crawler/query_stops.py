"""When the querying of a crawl stops: the rules :class:`~deepcrawl.crawler.queries.QueryLoop`
tests after each query, beside the keyword manager's own saturation.

* :meth:`QueryStops.fruitless` — a run of queries bringing no new record, whatever the totals
  and the estimate say: a search that reports no total, or an estimate that never reaches the
  count, would otherwise query on until killed;
* :meth:`QueryStops.checked_out` — the latest lists, by their reported totals and the fetched
  records' words, lack almost nothing (``crawl.stop_checked_*``);
* :meth:`QueryStops.complete_out` — the lists read to their end put the database's size at the
  records known (``crawl.stop_complete_*``): the evidence of a search that reports no total;
* :meth:`QueryStops.covered` — the capture–recapture estimate is reached
  (``crawl.stop_coverage``, off by default).
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING

from deepcrawl.crawler.paging import lists_checked_out, lists_complete_out

if TYPE_CHECKING:
    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.keywords import KeywordManager

__all__ = ["QueryStops"]

logger = logging.getLogger(__name__)


class QueryStops:
    """The stop rules of the query loop, over the state it keeps (a mixin of
    :class:`~deepcrawl.crawler.queries.QueryLoop`)."""

    ctx: CrawlContext
    manager: KeywordManager
    checked: list[tuple[int, int]]
    """Per query with a usable total: (its total, the records of it the crawl lacked)."""
    complete: dict[str, frozenset[str]]
    """By case-folded word, oldest first: the records of the lists read to their end."""
    first_shown: dict[str, int]
    """Of those read in one read, the records new to the crawl they showed."""
    _probes: set[str]
    _deepened_from: int

    def fruitless(self) -> bool:
        """Whether the latest queries brought no new record for long enough to stop querying.

        The run is ``crawl.stop_fruitless_queries`` queries, or ``crawl.stop_fruitless_share``
        of the queries made if more; errors count as fruitless. Unlike saturation it waits for
        no total, no estimate and no source of words: it always ends the querying. It starts
        afresh where saturation hands over — to a source of words untried while most records
        are missing, or to the deepening of the lists — each once at most.
        """
        settings = self.ctx.settings.crawl
        if settings.stop_fruitless_queries <= 0:
            return False
        history = self.manager.history
        need = max(
            settings.stop_fruitless_queries,
            math.ceil(max(0.0, settings.stop_fruitless_share) * len(history)),
        )
        if len(history) - max(self.manager.since, self._deepened_from) < need:
            return False
        return not any(outcome.new for outcome in history[-need:])

    def checked_out(self) -> bool:
        """Whether the latest queries' whole result lists hold nothing the crawl lacks.

        Each query's first page reports its total; the fetched records' words say how many of
        them the crawl holds, so the difference is what its results lack — for the whole list,
        not only the page read. Once the most recent queries' lists held
        :meth:`checked_need` records between them and lacked fewer than
        ``crawl.stop_checked_share`` of them, querying stops: the saturation window's evidence,
        counted in records checked rather than queries, and an estimate of the share missed.
        Not while the keyword manager has a source of words on trial: the lists so far were
        asked with another source's words, and say nothing of what the new words reach.
        """
        need = self.checked_need()
        if self.manager.on_trial:  # the lists so far are another source's words'
            return False
        settings = self.ctx.settings.crawl
        out = bool(need) and lists_checked_out(
            self.checked,
            need=need,
            share=settings.stop_checked_share,
            lists=settings.stop_checked_lists,
        )
        if out:
            logger.debug("checked out: (total, lacking) of the latest lists %s", self.checked[-8:])
        return out

    def complete_out(self) -> bool:
        """Whether the records known are the database's size by the lists read to their end
        (:func:`~deepcrawl.crawler.paging.lists_complete_out`, ``crawl.stop_complete_*``): the
        stop evidence of a search that reports no total, where :meth:`checked_out` has none."""
        words = list(self.complete)
        found = lists_complete_out(
            [self.complete[w] for w in words],
            len(self.manager.records),
            self.ctx.settings.crawl,
            first_shown=[self.first_shown.get(w, -1) for w in words],
        )
        if found is not None:
            logger.debug("lists read to their end: ~%.0f records, %d held again", *found)
        return found is not None

    def checked_need(self) -> int:
        """Records of evidence :meth:`checked_out` needs (0: the rule is off).

        ``crawl.stop_checked_records``, or ``crawl.stop_checked_fraction`` of the records the
        crawl knows if more. The rule is tested after every query: the longer the tail, the
        likelier a small window of lists happens to lack almost nothing while a share above
        the threshold is still missing.
        """
        settings = self.ctx.settings.crawl
        if not settings.stop_checked_records:
            return 0
        scaled = math.ceil(max(0.0, settings.stop_checked_fraction) * len(self.manager.records))
        return max(settings.stop_checked_records, scaled)

    def covered(self) -> bool:
        """Whether the estimate says the wanted records are all but reached.

        ``crawl.stop_coverage`` of the capture–recapture estimate is reached, and the last
        ``crawl.stop_patience`` queries brought no new record: the tail of a keyword crawl is
        where its requests go for the fewest records, and the estimate tells when the tail is
        empty sooner than a fixed window of fruitless queries.
        """
        settings = self.ctx.settings.crawl
        history = self.manager.history
        patience = max(1, settings.stop_patience)
        if len(history) < patience + len(self._probes) or settings.stop_coverage >= 1.0:
            return False
        if self.manager.on_trial:  # the estimate is the saturated source's (see checked_out)
            return False
        if any(o.new for o in history[-patience:]):
            return False
        ratio = self.manager.coverage().ratio
        return ratio is not None and ratio >= settings.stop_coverage
