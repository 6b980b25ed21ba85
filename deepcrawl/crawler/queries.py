"""The crawl's query loop: its queries and its events stored, its figures the crawl's.

Each phase that queries has a loop of its own (:class:`~deepcrawl.querying.loop.QueryLoop`)
and an event log of its own in the crawl's state (:class:`StoredEvents`): the setup phase's
loop counts every result link as a record; the normal phase's counts the wanted ones, by
their canonical key. The normal phase begins its log with the setup's queries as it reads them
(:func:`normal_events`: the same events, each link's record named anew), so a resumed normal
phase folds its log alone and knows what the interrupted one knew.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from deepcrawl.page.fetched import FetchedPage, Link
from deepcrawl.querying import (
    QueryEvent,
    QueryLoop,
    event_from_dict,
    event_to_dict,
)
from deepcrawl.querying.events import RecordRead, RecordsReached
from deepcrawl.search.results import PAGE_CAP_NOTE
from deepcrawl.storage import EventStore
from deepcrawl.urls import normalise_or_none

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from deepcrawl.crawler.context import CrawlContext, CrawlStats
    from deepcrawl.querying import Event
    from deepcrawl.search.results import QueryResult
    from deepcrawl.storage import QueryRead
    from deepcrawl.storage.state import StoredQuery

__all__ = [
    "NORMAL",
    "SETUP",
    "SetupFigures",
    "StoredEvents",
    "StoredQueries",
    "normal_events",
    "query_loop",
    "record_failure",
    "store_results_page",
    "unlogged",
]

logger = logging.getLogger(__name__)

#: The outcomes of a query that failed: recorded as failures (:func:`record_failure`).
FAILED = frozenset({"error", "rejected"})
#: The error class a failed query is listed with, by cause (``deepcrawl failures``).
_ERROR_CLASSES = {
    "timeout": "FetchTimeoutError",
    "out of scope": "BlockedError",
    "robots.txt": "BlockedError",
    "throttled": "HTTPStatusError",
}

#: The event logs of a crawl, one a phase that queries.
SETUP = "setup"
NORMAL = "normal"
#: The fetch side's events kept in memory before they are written (a crash loses at most these,
#: whose pages a resumed crawl learns again from the store).
_BATCH = 256


class StoredQueries:
    """Where a crawl's query loop stores its queries (:class:`~deepcrawl.querying.loop
    .QueryStore`): each query and its links in the crawl's state, its first result page as a
    ``results`` page (:func:`store_results_page`).

    Args:
        ctx: the crawl's context.
        form_id: the stored form the queries go to.
    """

    def __init__(self, ctx: CrawlContext, form_id: int | None) -> None:
        self.ctx = ctx
        self.form_id = form_id

    def save(self, result: QueryResult, *, new_records: int) -> None:
        """Store one query as it came back; a failed one (an ``error`` or ``rejected``
        outcome) is recorded as a failure beside the pages' (``deepcrawl failures``), counted
        in the crawl's errors, and by its cause (:func:`record_failure`)."""
        row = self.ctx.state.save_query(
            result.to_query_row(new_records=new_records), result.links, form_id=self.form_id
        )
        if result.cause is not None:
            causes = self.ctx.stats.query_failures
            causes[result.cause] = causes.get(result.cause, 0) + 1
        if result.outcome in FAILED:
            record_failure(self.ctx, result, row)
        else:
            store_results_page(self.ctx, result, row)


class StoredEvents:
    """A phase's event log in the crawl's state (:class:`~deepcrawl.querying.loop.EventLog`).

    A query's event, and a note, is written at once with the events before it; the fetch
    side's (a record page's text, records reached by links) a batch at a time, and by
    :meth:`flush` when the phase ends.

    Args:
        ctx: the crawl's context.
        phase: which log (:data:`SETUP`, :data:`NORMAL`).
    """

    def __init__(self, ctx: CrawlContext, phase: str) -> None:
        self.store = EventStore(ctx.repo.engine, ctx.site.id)
        self.phase = phase
        self._waiting: list[dict[str, object]] = []

    def append(self, event: Event) -> None:
        """Keep one event (in order)."""
        self._waiting.append(event_to_dict(event))
        fetched = isinstance(event, RecordRead | RecordsReached)
        if not fetched or len(self._waiting) >= _BATCH:
            self.flush()

    def flush(self) -> None:
        """Write the events kept in memory."""
        waiting, self._waiting = self._waiting, []
        self.store.append(self.phase, waiting)

    def extend(self, events: Sequence[Event]) -> None:
        """Write ``events`` after those kept so far, in one transaction: a log begun from
        another's events is whole or not begun (a resumed phase reads a log begun as its own)."""
        self._waiting.extend(event_to_dict(event) for event in events)
        self.flush()

    def read(self) -> list[Event]:
        """The phase's events written so far, oldest first."""
        return [event_from_dict(data) for data in self.store.read(self.phase)]


def query_loop(
    ctx: CrawlContext,
    form_id: int | None,
    *,
    phase: str,
    record_id: Callable[[str], str | None] = normalise_or_none,
    examples: Sequence[str] = (),
    max_pages: int | None = None,
) -> QueryLoop:
    """The crawl's query loop over the form ``form_id`` for ``phase``: its queries stored in
    the crawl's state (:class:`StoredQueries`), its events in the phase's log, those of an
    earlier run folded first (the normal phase's log begins with the setup's queries:
    :func:`normal_events`); its figures the crawl's (the setup phase's records aside:
    :class:`SetupFigures`); its results' links shown to the learner of
    session parameters before they are counted; each request a query sends takes its own rate
    slot, and is counted, at the crawl's gate (the other arguments:
    :class:`~deepcrawl.querying.loop.QueryLoop`). Asked to query again (``crawl.requery``)
    after an earlier run ended the querying, the normal phase starts from the setup's queries
    again: its own log would stop it at once."""
    log = StoredEvents(ctx, phase)
    if phase == NORMAL and ctx.settings.crawl.requery and ctx.state.query_end() is not None:
        log.store.clear(phase)  # asked to query again: the querying starts from the setup's
    events = log.read()
    if not events:
        events = _legacy_events(ctx.state.queries(), record_id) if phase == SETUP else []
        if phase == NORMAL:
            events = normal_events(StoredEvents(ctx, SETUP).read(), ctx.state.queries(), record_id)
        log.extend(events)
    elif phase == NORMAL or not log.store.count(NORMAL):  # the phase's queries are the last
        missing = unlogged(events, ctx.state.queries(), record_id)
        log.extend(missing)
        events += missing
    return QueryLoop(
        ctx.settings,
        record_id=record_id,
        examples=examples,
        max_pages=max_pages,
        store=StoredQueries(ctx, form_id),
        log=log,
        events=events,
        figures=ctx.stats if phase == NORMAL else SetupFigures(ctx.stats),
        on_change=ctx.changed,
        on_result=lambda result: ctx.sessions.observe_result(
            result.links, result.keyword, result.submitted
        ),
    )


class SetupFigures:
    """The setup phase's figures: its queries, stop and rules are the crawl's; its records are
    not. Until the records' kind is chosen every result link counts as a record of the setup's
    loop, so the size the loop sees is of the lists' entries, every kind mixed: the crawl's own
    records figures stay unknown (``?`` on the progress line) until the normal phase counts
    the records of the kinds it takes."""

    def __init__(self, crawl: CrawlStats) -> None:
        self._crawl = crawl
        #: The setup loop's own count and estimate: of result links, not records.
        self.records_reached = 0
        self.records_estimated: float | None = None

    @property
    def queries(self) -> int:
        return self._crawl.queries

    @queries.setter
    def queries(self, value: int) -> None:
        self._crawl.queries = value

    @property
    def stop_reason(self) -> str | None:
        return self._crawl.stop_reason

    @stop_reason.setter
    def stop_reason(self, value: str | None) -> None:
        self._crawl.stop_reason = value

    @property
    def pages_delivered(self) -> int:
        return self._crawl.pages_delivered

    @pages_delivered.setter
    def pages_delivered(self, value: int) -> None:
        self._crawl.pages_delivered = value

    @property
    def querying(self) -> dict[str, Any]:
        return self._crawl.querying

    @querying.setter
    def querying(self, value: dict[str, Any]) -> None:
        self._crawl.querying = value


def normal_events(
    setup: Sequence[Event],
    stored: Sequence[StoredQuery],
    record_id: Callable[[str], str | None],
) -> list[Event]:
    """The setup phase's queries as the normal phase reads them: each link's record named by
    ``record_id`` (the wanted kinds, by their canonical key). A crawl stored before the event
    log existed gives its stored queries instead."""
    if not setup and stored:
        return _legacy_events(stored, record_id)
    return [e.rekeyed(record_id) for e in setup if isinstance(e, QueryEvent)]


def unlogged(
    events: Sequence[Event],
    stored: Sequence[StoredQuery],
    record_id: Callable[[str], str | None],
) -> list[Event]:
    """The stored queries a phase's log lacks, as events made from their rows: a crawl killed
    between a query's store and its event (:meth:`QueryLoop._submit
    <deepcrawl.querying.loop.QueryLoop._submit>` stores first) left the last of them. Each
    query the log holds is one stored query, in order (the normal phase's log begins with the
    setup's), so those past the log's count are the ones it lacks."""
    logged = sum(isinstance(event, QueryEvent) for event in events)
    return _legacy_events(stored[logged:], record_id)


def _legacy_events(
    stored: Sequence[StoredQuery], record_id: Callable[[str], str | None]
) -> list[Event]:
    """Events made from queries stored without them (a database of an earlier deepcrawl): what
    each stored query says of its list — its records, its total, its pages — without the pages
    its reader saw."""
    events: list[Event] = []
    for query in stored:
        row = query.row
        events.append(
            QueryEvent(
                row.keyword,
                results=tuple((u, t, record_id(u), 1) for u, t in query.result_links()),
                values=tuple(sorted(row.field_values.items())),
                capped=(row.error or "").startswith(PAGE_CAP_NOTE),
                result_pages=row.result_pages,
                total=row.results_reported,
                outcome=row.outcome,
                error=row.error,
            )
        )
    return events


def record_failure(ctx: CrawlContext, result: QueryResult, row: QueryRead) -> None:
    """Record a failed query as a failure of the site (kind ``query``): under the URL it was
    sent to (its first result page's, else the form's action), keyed by the query's id as its
    results page would be, with its cause and reason; counted in the crawl's errors."""
    sent = result.submitted[0] if result.submitted else result.form_action
    reason = f"query {result.keyword!r} ({result.cause or 'error'}): {result.error or 'failed'}"
    ctx.repo.save_failure(
        ctx.site.id,
        f"{sent or ctx.start_url}#query-{row.id}",
        reason,
        kind="query",
        error_class=_ERROR_CLASSES.get(result.cause or "error", "FetchError"),
    )
    ctx.stats.errors += 1


def store_results_page(ctx: CrawlContext, result: QueryResult, row: QueryRead) -> None:
    """Keep a query's result links as a ``results`` page, where ``deepcrawl label`` finds them.

    The body is not kept (the links are what the prototyper reads); the page's key carries the
    query id, as a POST form's result pages share one URL.
    """
    if not result.submitted:
        return
    first = result.submitted[0]
    page = FetchedPage(
        url=first,
        final_url=first,
        status=200,
        content_type="text/html",
        body="",
        links=[Link(url=link.url, text=link.text, dom_path=link.dom_path) for link in result.links],
        via=result.via,
    )
    ctx.repo.save_page(ctx.site.id, page, url=f"{first}#query-{row.id}", kind="results")
