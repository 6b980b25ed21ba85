"""A fake search for the unit tests of the query loop, and the loop to query it with.

A URL under ``http://site/search`` is a result page; any other URL is a record, its own id.
:class:`FakeSearch` is the search the loop queries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl.page.fetched import Link
from deepcrawl.querying import QueryLoop
from deepcrawl.querying.lists import list_key
from deepcrawl.search.results import QueryResult, ResultLink, ResultPage

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from deepcrawl.querying import Event, EventLog
    from deepcrawl.settings import Settings


def fake_query_loop(
    settings: Settings,
    seeds: Sequence[str],
    frequent: Sequence[str] = (),
    *,
    max_pages: int | None = None,
    events: Iterable[Event] = (),
    log: EventLog | None = None,
) -> QueryLoop:
    """A query loop of ``settings`` whose words are ``seeds``, then ``frequent`` (none by
    default: it runs out of words once the seeds are asked); ``max_pages``: its own page cap
    (the setup phase's); ``events``: an earlier run's, folded first (a resumed crawl's);
    ``log``: where it keeps the events it folds."""
    return QueryLoop(
        settings,
        record_id=lambda url: None if url.startswith("http://site/search") else url,
        seeds=seeds,
        frequent=frequent,
        max_pages=max_pages,
        events=events,
        log=log,
    )


_SIZE = 10


class FakeSearch:
    """A search form over hand-made lists, ten results a page (or ``size``), a next link on
    every page but the last, and the total on every page (the list's length, else ``totals``';
    0 or ``reports_totals`` false: none). A list narrowed by field values is the one under its
    :func:`~deepcrawl.querying.lists.list_key` (``"red [cat=a]"``); the fields are
    ``partitions``. With ``shows``, no list shows more than that many results (its total
    still counts them all), as a search that shows only the top of its lists."""

    def __init__(
        self,
        lists: dict[str, list[str]],
        totals: dict[str, int] | None = None,
        size: int = _SIZE,
        *,
        accepts_empty: bool = False,
        scrolls: bool = False,
        by_url: bool = False,
        reports_totals: bool = True,
        partitions: dict[str, list[str]] | None = None,
        shows: int | None = None,
    ) -> None:
        self.partitions = partitions or {}
        self.shows = shows
        self.accepts_empty = accepts_empty
        self.reports_totals = reports_totals
        self.by_url = by_url  # a later page is loaded by its URL (``resume``)
        self.scrolls = scrolls  # a typed list: one reading, more as it is scrolled, no next link
        self.lists = lists
        self.totals = totals or {}  # a total other than the list's length (other kinds)
        self.size = size
        self.read: list[tuple[str, int]] = []  # (list key, pages read) per query

    async def query(
        self,
        word: str,
        values: Mapping[str, str] | None = None,
        *,
        max_pages: int | None = None,
        more: Callable[[ResultPage, int], bool] | None = None,
        resume: tuple[str, int] | None = None,
    ) -> QueryResult:
        key = list_key(word, values or {})
        every = self.lists.get(key, [])
        ids = every[: self.shows] if self.shows is not None else every
        links: list[ResultLink] = []
        pages = 0
        first = resume[1] if resume is not None and self.by_url else 1
        for start in range((first - 1) * self.size, len(ids), self.size):
            pages += 1
            number = first + pages - 1
            chunk = ids[start : start + self.size]
            links += [ResultLink(url=rid, page=pages) for rid in chunk]
            total = self._total(word, every)
            further = start + self.size < len(ids)
            nxt = [Link(f"http://site/search?q={word}&page={number + 1}", "Next", rel="next")]
            page = ResultPage(
                url=f"http://site/search?q={word}&page={number}",
                blocks=[f"{total} results for “{word}”"] if total else [],
                links=[Link(rid) for rid in chunk] + (nxt if further and not self.scrolls else []),
                scrolls=self.scrolls,
            )
            if pages >= (max_pages or 50) or (more is not None and not more(page, number)):
                break
        self.read.append((key, pages))
        return QueryResult(
            keyword=word,
            links=links,
            first_page=first,
            pages=max(1, pages),
            requests=max(1, pages),
            values=dict(values or {}),
            total_results=self._total(word, every) or None,
            outcome="ok" if ids else "no_results",
        )

    def _total(self, word: str, ids: list[str]) -> int:
        return self.totals.get(word, len(ids)) if self.reports_totals else 0
