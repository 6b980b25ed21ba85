"""What the query loop reports and where it keeps its queries and events: the figures a crawl
shows, and the two stores a crawl gives the loop (its queries, its event log)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from deepcrawl.querying.size import size_estimate

if TYPE_CHECKING:
    from collections.abc import Mapping

    from deepcrawl.keywords.outcome import StopReason
    from deepcrawl.querying.events import Event
    from deepcrawl.querying.verdict import Verdict
    from deepcrawl.querying.view import LedgerView
    from deepcrawl.search.results import QueryResult

__all__ = ["EventLog", "Figures", "QueryFigures", "QueryStore", "refresh"]


class QueryStore(Protocol):
    """Where the loop stores each query as it came back (a crawl's state)."""

    def save(self, result: QueryResult, *, new_records: int) -> None:
        """Store one query, every link of its result pages, and how many of its records were
        new to the crawl."""
        ...


class EventLog(Protocol):
    """Where the loop keeps every event it folds, in order (a crawl's event log)."""

    def append(self, event: Event) -> None:
        """Keep one event."""
        ...

    def flush(self) -> None:
        """Make sure every event kept so far is stored (the querying ended)."""
        ...


class Figures(Protocol):
    """The figures the loop keeps up to date (:class:`QueryFigures`, or a crawl's)."""

    queries: int
    records_reached: int
    records_estimated: float | None
    stop_reason: str | None
    pages_delivered: int
    querying: dict[str, Any]


@dataclass
class QueryFigures:
    """The figures the loop keeps up to date (a crawl passes its running figures)."""

    queries: int = 0
    """Queries recorded (stored ones of earlier runs included)."""
    records_reached: int = 0
    """Distinct records the result pages showed or the crawl reached otherwise."""
    records_estimated: float | None = None
    """The size the crawl reports (:mod:`~deepcrawl.querying.size`), plus the records reached
    otherwise."""
    stop_reason: str | None = None
    """Why the querying stopped, or why the words would."""
    pages_delivered: int = 0
    """Pages delivered (kept by the crawl: the runaway rule weighs them)."""
    querying: dict[str, Any] = field(default_factory=dict)
    """The rules' firings (``rules``: name → times asked, times it decided) and the verdict
    that ended the querying (``verdict``)."""


def refresh(
    figures: Figures,
    ledger: LedgerView,
    *,
    stop: StopReason | None,
    settled: Verdict | None,
    fired: Mapping[str, tuple[int, int] | list[int]],
) -> None:
    """Bring ``figures`` up to date with ``ledger``: the queries, the records reached, the
    size the crawl reports, why the words would stop (``stop``), the rules' firings.

    The size is what the crawl's final line would say now: the records it knows where the
    verdict that ends (or would now end) the querying, ``settled``, proves them complete; the
    size that verdict's own evidence estimates, where it has one; else the best estimate
    (:func:`~deepcrawl.querying.size.size_estimate`)."""
    figures.queries = ledger.asked  # every stored query, as ``deepcrawl status`` counts
    reached = ledger.capture.reached
    # the records the crawl holds: those the result lists showed and those it reached
    # otherwise (links, sitemaps, hubs), which no list's estimate counts
    known = len(ledger.records)
    otherwise = max(0, known - reached)
    figures.records_reached = reached + otherwise
    if settled is not None and settled.complete:
        figures.records_estimated = float(reached + otherwise)
    elif settled is not None and settled.size is not None:  # counts every record known
        figures.records_estimated = max(settled.size, float(reached + otherwise))
    else:
        size = size_estimate(ledger).value
        figures.records_estimated = None if size is None else size + otherwise
    figures.stop_reason = str(stop) if stop is not None else None
    figures.querying["rules"] = {
        name: {"asked": asked, "decided": decided} for name, (asked, decided) in fired.items()
    }
