"""The query loop of a crawl: keyword manager → form → stored query, resumable.

:func:`deepcrawl.forms.exhaust` runs a keyword manager over a form to the end in one go; a crawl
needs the same loop one query at a time (the setup phase stops after a few queries for
labelling; the normal phase fetches wanted pages while it queries), with every query stored
before the next is chosen, and the manager rebuilt from the stored queries when a crawl resumes.

A query's *record ids* — what the manager counts as records for saturation and the
capture–recapture estimate — are the canonical URLs of its wanted result links once labels are
known (:attr:`QueryLoop.record_id`), the normalised result URLs before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl.errors import InvalidURLError
from deepcrawl.keywords import KeywordManager
from deepcrawl.urls import normalise_url

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.crawler.state import StoredQuery
    from deepcrawl.forms.results import QueryResult
    from deepcrawl.forms.search import FormSearch
    from deepcrawl.storage.tables import QueryRead

__all__ = ["QueryLoop", "normalised_id"]


def normalised_id(url: str) -> str | None:
    """The default record id: the URL's normal form (None when it cannot be normalised)."""
    try:
        return normalise_url(url)
    except InvalidURLError:
        return None


class QueryLoop:
    """Submits the keywords a :class:`KeywordManager` chooses, one :meth:`step` at a time.

    Args:
        ctx: the crawl's context (storage, limiter, figures).
        form_id: the stored form the queries go to.
        record_id: maps a result URL to a record id, or None when it is no record.
        seeds: keywords to try first (``--keywords`` comes through the settings).
    """

    def __init__(
        self,
        ctx: CrawlContext,
        form_id: int | None,
        *,
        record_id: Callable[[str], str | None] = normalised_id,
        seeds: Iterable[str] = (),
    ) -> None:
        self.ctx = ctx
        self.form_id = form_id
        self.record_id = record_id
        self.manager = KeywordManager(ctx.settings.keywords, seeds=list(seeds))
        self._probes = {w.casefold() for w in ctx.settings.keywords.stopword_probes}

    def _ids(self, links: Iterable[tuple[str, str]]) -> dict[str, str]:
        texts: dict[str, str] = {}
        for url, text in links:
            rid = self.record_id(url)
            if rid is not None and (text or rid not in texts):
                texts.setdefault(rid, text)
        return texts

    def replay(self, stored: Iterable[StoredQuery]) -> int:
        """Feed stored queries to the manager as if they had just been submitted.

        Returns:
            How many queries were replayed.
        """
        count = 0
        for query in stored:
            row = query.row
            texts = self._ids(query.result_links())
            self.manager.record(
                row.keyword,
                set(texts),
                texts,
                cost=max(1, row.result_pages),
                error=row.error if row.outcome == "error" else None,
            )
            count += 1
        self._settle_probe()
        self._refresh()
        return count

    def _settle_probe(self) -> None:
        if self.manager.stopwords_accepted is None and not self.manager.stopword_probe_queries():
            self.manager.record_stopword_probe()

    def _refresh(self) -> None:
        stats = self.ctx.stats
        stats.queries = len(self.manager.history)
        coverage = self.manager.coverage()
        stats.records_reached = coverage.reached
        stats.records_estimated = coverage.estimated
        reason = self.manager.stop_reason
        stats.stop_reason = str(reason) if reason is not None else None

    @property
    def done(self) -> bool:
        """True once the manager says stop (saturation, budget, identical results, errors) or
        the coverage estimate does (:meth:`covered`)."""
        if self.manager.stopword_probe_queries():
            return False
        return self.manager.saturated or self.covered()

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
        if any(o.new for o in history[-patience:]):
            return False
        ratio = self.manager.coverage().ratio
        return ratio is not None and ratio >= settings.stop_coverage

    async def step(self, search: FormSearch) -> tuple[QueryResult, QueryRead] | None:
        """Submit the next keyword, store the query; None when the manager says stop."""
        probes = self.manager.stopword_probe_queries()
        if probes:
            word: str | None = probes[0]
        elif self.covered():
            self._refresh()
            self.ctx.stats.stop_reason = "the coverage estimate says every record is reached"
            return None
        else:
            self._settle_probe()
            word = self.manager.next_query()
        if word is None:
            self._refresh()
            return None
        async with self.ctx.limiter.slot(self.ctx.start_url):
            result = await search.query(word)
        texts = self._ids((link.url, link.text) for link in result.result_links)
        outcome = self.manager.record(
            word,
            set(texts),
            texts,
            cost=max(1, result.pages),
            total_results=result.total_results,
            error=result.error if result.outcome == "error" else None,
        )
        row = self.ctx.state.save_query(
            result.to_query_row(new_records=outcome.new), result.links, form_id=self.form_id
        )
        if word.casefold() in self._probes:
            self._settle_probe()
        self.ctx.stats.requests += max(result.requests, result.pages)
        self._refresh()
        self.ctx.changed()
        return result, row
