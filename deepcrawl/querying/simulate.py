"""A synthetic hidden database to measure query policies and size estimates without a browser.

Records are short texts of words drawn from a Zipf distribution over the frequent-word list (the
way real text, and the fixture sites' records, are made), with varied lengths so that some
records are much easier to catch than others. Its search answers a keyword query with the records
containing every word of it, paged and capped like a site's result list. :func:`crawl` runs the
crawl's :class:`~deepcrawl.querying.loop.QueryLoop` against it — the stop-word probe, the keyword
manager's words, saturation, the budgets — each query's whole (capped) list read in one answer,
recording the trace the benchmark and the tests read.
"""

from __future__ import annotations

import asyncio
import math
import random
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol

from deepcrawl.keywords.text import tokenize
from deepcrawl.querying.loop import QueryLoop
from deepcrawl.search.results import QueryResult, ResultLink, ResultPage

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from deepcrawl.settings import Settings

__all__ = [
    "SearchBackend",
    "SearchResult",
    "SyntheticDatabase",
    "TracePoint",
    "crawl",
    "domain_vocabulary",
]


@dataclass(frozen=True, slots=True)
class SearchResult:
    """One query's answer: the records of the pages fetched, the pages, the reported count."""

    ids: list[str]
    pages: int
    total: int


@dataclass(slots=True)
class SyntheticDatabase:
    """Records with Zipf-distributed word texts and a paged AND search over them.

    Attributes:
        texts: record id -> text.
        page_size: results per result page.
        max_pages: result pages a query can reach (a site's own cap, or the crawler's).
        accepts_stopwords: False makes stop-word queries return nothing (as many searches do).
        stop_words: the words refused when ``accepts_stopwords`` is False.
    """

    texts: dict[str, str]
    page_size: int = 10
    max_pages: int = 50
    accepts_stopwords: bool = True
    stop_words: frozenset[str] = frozenset()
    _index: dict[str, list[str]] = field(default_factory=dict, repr=False)

    @classmethod
    def generate(
        cls,
        vocabulary: Sequence[str],
        records: int = 1000,
        *,
        seed: int = 0,
        zipf: float = 1.0,
        mean_length: float = 25.0,
        length_sigma: float = 0.8,
        min_length: int = 3,
        **options: object,
    ) -> SyntheticDatabase:
        """Make ``records`` texts from ``vocabulary`` (most frequent first).

        Args:
            vocabulary: the words, in frequency-rank order.
            records: how many records.
            seed: seed of the generator.
            zipf: exponent s of the rank distribution p(r) ∝ 1/r^s.
            mean_length: mean words per record; lengths are log-normal.
            length_sigma: sigma of the log-normal length distribution (spread of catchability).
            min_length: shortest record, in words.
            options: further fields (page_size, max_pages, accepts_stopwords, stop_words).
        """
        rng = random.Random(seed)
        weights = [1.0 / (rank**zipf) for rank in range(1, len(vocabulary) + 1)]
        mu = math.log(mean_length) - length_sigma**2 / 2  # so that the mean is mean_length
        texts = {}
        for number in range(records):
            length = max(min_length, round(rng.lognormvariate(mu, length_sigma)))
            texts[f"r{number}"] = " ".join(rng.choices(vocabulary, weights, k=length))
        return cls(texts, **options)  # type: ignore[arg-type]

    def __post_init__(self) -> None:
        index: dict[str, list[str]] = {}
        for record_id, text in self.texts.items():
            for token in set(tokenize(text)):
                index.setdefault(token, []).append(record_id)
        self._index = index

    def text(self, record_id: str) -> str:
        """The record's text."""
        return self.texts[record_id]

    def search(self, query: str) -> SearchResult:
        """Records containing every word of ``query``, first ``max_pages`` pages of them."""
        words = tokenize(query)
        if not words or (not self.accepts_stopwords and any(w in self.stop_words for w in words)):
            return SearchResult([], 1, 0)
        matches = set(self._index.get(words[0], ()))
        for word in words[1:]:
            matches &= set(self._index.get(word, ()))
        ordered = sorted(matches, key=lambda r: int(r[1:]))
        shown = ordered[: self.page_size * self.max_pages]
        pages = max(1, math.ceil(len(shown) / self.page_size))
        return SearchResult(shown, pages, len(ordered))


def domain_vocabulary(words: Sequence[str], *, seed: int = 0, spread: float = 1.5) -> list[str]:
    """Re-rank a generic frequency list into a "domain" one: each word's rank is multiplied by
    a log-normal factor (sigma ``spread``), so that the site's frequent words differ from the
    language's, as a specialised site's do (Hernández et al.: an academic site vs Amazon)."""
    rng = random.Random(seed)
    keyed = [(rank * math.exp(rng.gauss(0.0, spread)), word) for rank, word in enumerate(words, 1)]
    return [word for _, word in sorted(keyed)]


class SearchBackend(Protocol):
    """Anything :func:`crawl` can query: the synthetic database, a fixture site's index."""

    def search(self, query: str) -> SearchResult:
        """Answer one query."""

    def text(self, record_id: str) -> str:
        """The text the crawler learns about a record (its page, or its result snippet)."""


@dataclass(frozen=True, slots=True)
class TracePoint:
    """The state after one query.

    Attributes:
        queries: queries recorded so far (probes included).
        reached: distinct records reached.
        estimated: the manager's size estimate (None while too early).
        cost: requests used so far.
        schnabel: Schnabel's estimate at the same point, for comparison.
    """

    queries: int
    reached: int
    estimated: float | None
    cost: int
    schnabel: float | None = None


class _Answers:
    """A :class:`SearchBackend` as a query backend: one answer a query, its whole capped list on
    one result page (the paging control is not asked: the list is read as the backend's own
    paging would), every result link's text its record's."""

    accepts_empty = False
    partitions: Mapping[str, Sequence[str]] = MappingProxyType({})
    """No field narrows its lists: a simulation queries words only."""

    def __init__(self, db: SearchBackend) -> None:
        self.db = db

    async def query(
        self,
        keyword: str,
        values: Mapping[str, str] | None = None,
        *,
        max_pages: int | None = None,
        more: Callable[[ResultPage, int], bool] | None = None,
        resume: tuple[str, int] | None = None,
    ) -> QueryResult:
        answer = self.db.search(keyword)
        links = [ResultLink(url=rid, text=self.db.text(rid)) for rid in answer.ids]
        return QueryResult(
            keyword=keyword,
            links=links,
            pages=answer.pages,
            requests=answer.pages,
            total_results=answer.total,
            outcome="ok" if answer.ids else "no_results",
        )


#: The crawl's own stop rules (and the reading on of a cut list that completes the evidence of
#: one), left out of ``querying.rules``: they read result pages and fetched records, which a
#: simulated search has not; the keyword manager's saturation and budgets decide.
_PAGE_RULES = frozenset(
    {"fruitless-run", "whole-lists", "list-of-everything", "complete-a-list", "totals-covered"}
)


def crawl(
    settings: Settings,
    db: SearchBackend,
    *,
    until_reached: int | None = None,
    frequent: Sequence[str] | None = None,
) -> tuple[QueryLoop, list[TracePoint]]:
    """Query ``db`` with the crawl's query loop until it stops (or ``until_reached`` records
    are reached): the stop-word probe first, then the keyword manager's words, until they are
    saturated or a budget is spent. The lists are not deepened.

    Args:
        settings: the crawl's settings (their keyword section: policy, budgets, saturation).
        db: the database to query (anything with ``search`` and ``text``).
        until_reached: also stop once this many records are reached.
        frequent: the cold-start word list (default: the bundled one of the language).

    Returns:
        The loop, its ledger and words as they ended, and one trace point per query.
    """
    rules = tuple(rule for rule in settings.querying.rules if rule not in _PAGE_RULES)
    settings = settings.with_overrides(querying={"rules": rules, "deepen_min_new": 0.0})
    loop = QueryLoop(settings, record_id=lambda rid: rid, frequent=frequent)
    backend = _Answers(db)
    trace: list[TracePoint] = []

    async def run() -> None:
        while await loop.step(backend) is not None:
            ledger = loop.ledger
            estimate = ledger.coverage()
            trace.append(
                TracePoint(
                    len(ledger.history),
                    estimate.reached,
                    estimate.estimated,
                    ledger.cost,
                    ledger.capture.value("schnabel"),
                )
            )
            if until_reached is not None and estimate.reached >= until_reached:
                return

    asyncio.run(run())
    return loop, trace
