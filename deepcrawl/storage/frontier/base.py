"""The frontier contract: URLs waiting to be fetched, deduplicated, prioritised, leased to workers.

Whatever the backend (:class:`Frontier`):

* ``add`` enqueues URLs that were never seen in this crawl and ignores the rest — dedup is by the
  normalised URL and is enforced by the backend itself (a unique key), not by a set in memory;
* ``lease`` hands out up to *n* ready URLs, highest priority first (ties: first added first), and
  marks them leased until a deadline; an expired lease makes the URL ready again, so a worker that
  dies gives its URLs back;
* ``complete`` / ``fail`` / ``retry`` settle a lease; a URL is never handed out again once
  completed or failed;
* ``requeue`` gives queued URLs new priorities, each going behind the URLs of its new priority
  as if added now (a link learner that re-ranked its links after learning);
* state survives the process: a crawl resumed from the same database continues where it stopped.

The value types (:class:`NewURL`, :class:`Lease`, :class:`FrontierCounts`) and the ``source``
labels a URL is enqueued with (:func:`query_source`, :data:`SETUP_SOURCE`) are shared by every
backend.
"""

from __future__ import annotations

import abc
import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "SETUP_SOURCE",
    "Frontier",
    "FrontierCounts",
    "Lease",
    "NewURL",
    "State",
    "query_source",
    "source_query",
]

#: Where a frontier URL stands.
State = Literal["queued", "leased", "done", "failed"]


@dataclass(frozen=True, slots=True)
class NewURL:
    """A URL to enqueue: ``url`` is already normalised (the dedup key)."""

    url: str
    priority: float = 0.0
    depth: int = 0
    source: str = ""
    """Why it was enqueued (``results of 'river'``, ``link on /cat/3`` …)."""


_QUERY_SOURCE = "results of "
#: The ``source`` of a page the setup phase fetched (a ``--like`` example, a layout sample).
SETUP_SOURCE = "setup"


def query_source(keyword: str) -> str:
    """The ``source`` of a URL a query's result pages showed (``results of 'river'``)."""
    return f"{_QUERY_SOURCE}{keyword!r}"


def source_query(source: str | None) -> str | None:
    """The keyword of a :func:`query_source`; None for any other source (or a keyword cut
    off by the column's length)."""
    if not source or not source.startswith(_QUERY_SOURCE):
        return None
    try:
        keyword = ast.literal_eval(source[len(_QUERY_SOURCE) :])
    except (ValueError, SyntaxError):
        return None
    return keyword if isinstance(keyword, str) else None


@dataclass(frozen=True, slots=True)
class Lease:
    """A URL handed to a worker; settle it with its ``id``. ``source`` says why it was
    queued (:attr:`NewURL.source`): a page delivered as it is fetched names its query with it."""

    id: int
    url: str
    priority: float
    depth: int
    attempts: int
    source: str = ""


@dataclass(frozen=True, slots=True)
class FrontierCounts:
    """How many URLs are in each state."""

    queued: int = 0
    leased: int = 0
    done: int = 0
    failed: int = 0

    @property
    def pending(self) -> int:
        """URLs not yet settled."""
        return self.queued + self.leased


class Frontier(abc.ABC):
    """The frontier contract; see the module docstring."""

    @abc.abstractmethod
    def add(self, urls: Iterable[NewURL]) -> int:
        """Enqueue the URLs not seen before; return how many were new."""

    @abc.abstractmethod
    def lease(self, n: int, *, lease_s: float = 300.0) -> list[Lease]:
        """Hand out up to ``n`` ready URLs, leased for ``lease_s`` seconds (to a process
        fetching alone; a shared crawl gives its URLs to fetch jobs instead)."""

    @abc.abstractmethod
    def complete(self, lease_id: int) -> None:
        """Mark a leased URL as fetched."""

    def complete_many(self, lease_ids: Iterable[int]) -> None:
        """Mark leased URLs as fetched (a crawl settles its pages a batch at a time); backends
        do it in one write."""
        for lease_id in lease_ids:
            self.complete(lease_id)

    @abc.abstractmethod
    def fail(self, lease_id: int, reason: str) -> None:
        """Mark a leased URL as failed for good (the reason is kept)."""

    @abc.abstractmethod
    def retry(self, lease_id: int, *, after_s: float) -> None:
        """Give a leased URL back, ready again in ``after_s`` seconds (back-off)."""

    @abc.abstractmethod
    def counts(self) -> FrontierCounts:
        """URLs per state."""

    @abc.abstractmethod
    def seen(self, url: str) -> bool:
        """Whether ``url`` was ever added."""

    @abc.abstractmethod
    def requeue(self, urls: Iterable[NewURL]) -> int:
        """Queue ``urls`` at their priorities as if each were added now, in the order given.

        A URL waiting in the queue takes its new priority and goes behind the queued URLs of
        equal priority (its depth, source, attempts and back-off stay); a URL never added is
        added; a leased or settled URL is left as it is. Return how many were queued. A link
        strategy calls it when it learnt new priorities for the links it had queued: ``add``
        ignores a URL seen before, whatever its priority.
        """

    def pending(self) -> int:
        """URLs not yet settled (queued or leased): what a fetch loop polls to know it is done.

        Backends count only the pending URLs here, not every state as :meth:`counts` does.
        """
        return self.counts().pending
