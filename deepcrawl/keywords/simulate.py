"""A synthetic hidden database to measure query policies and size estimates without a browser.

Records are short texts of words drawn from a Zipf distribution over the frequent-word list (the
way real text, and the fixture sites' records, are made), with varied lengths so that some
records are much easier to catch than others. Its search answers a keyword query with the records
containing every word of it, paged and capped like a site's result list. :func:`crawl` drives a
:class:`~deepcrawl.keywords.manager.KeywordManager` against it exactly as the form filler will
drive it against a site, recording the trace the benchmark and the tests read.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from deepcrawl.keywords.text import tokenize

if TYPE_CHECKING:
    from collections.abc import Sequence

    from deepcrawl.keywords.manager import KeywordManager

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
        accepts_stopwords: False makes stop-word queries return nothing (Wordpress-style).
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


def crawl(
    manager: KeywordManager,
    db: SearchBackend,
    *,
    probe: bool = True,
    until_reached: int | None = None,
) -> list[TracePoint]:
    """Drive ``manager`` against ``db`` as the form filler would, until it stops.

    Args:
        manager: a fresh keyword manager.
        db: the database to query (anything with ``search`` and ``text``).
        probe: run the stop-word probe first.
        until_reached: also stop once this many records are reached.

    Returns:
        One trace point per query.
    """
    trace: list[TracePoint] = []

    def submit(query: str) -> bool:
        result = db.search(query)
        texts = {rid: db.text(rid) for rid in result.ids if rid not in manager.records}
        manager.record(query, result.ids, texts, cost=result.pages, total_results=result.total)
        estimate = manager.coverage()
        trace.append(
            TracePoint(
                len(manager.history),
                estimate.reached,
                estimate.estimated,
                manager.cost,
                manager.capture.value("schnabel"),
            )
        )
        return until_reached is not None and estimate.reached >= until_reached

    if probe:
        for probe_query in manager.stopword_probe_queries():
            if submit(probe_query):
                return trace
        manager.record_stopword_probe()
    while (query := manager.next_query()) is not None:
        if submit(query):
            break
    return trace
