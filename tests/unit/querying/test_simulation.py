"""The query loop against simulated hidden databases: greedy beats random, the estimate holds.

A synthetic database of Zipf-distributed word texts (the way the fixture sites make records,
over a domain-shifted vocabulary so that the generic frequent-word list is not an oracle) and the
"books" fixture site's own index, searched in-process with its documented rule (AND over
lower-case words, stop words ignored).
"""

from __future__ import annotations

import math

import pytest
from deepcrawl_fixtures import build_site
from deepcrawl_fixtures.data import STOP_WORDS, tokenize

from deepcrawl.keywords import StopReason, frequent_words, stopwords
from deepcrawl.querying.simulate import (
    SearchResult,
    SyntheticDatabase,
    TracePoint,
    crawl,
    domain_vocabulary,
)
from deepcrawl.settings import Settings
from tests.unit.querying.sections import settings_of

N = 1500


@pytest.fixture(scope="module")
def database() -> SyntheticDatabase:
    return SyntheticDatabase.generate(
        domain_vocabulary(list(frequent_words()), seed=7),
        N,
        seed=7,
        mean_length=30,
        length_sigma=0.5,
        min_length=8,
        max_pages=20,
        accepts_stopwords=False,
        stop_words=stopwords(),
    )


def race(db: SyntheticDatabase, policy: str, share: float) -> list[TracePoint]:
    settings = settings_of(policy=policy, max_queries=3000, saturation_window=10**6)
    return crawl(settings, db, until_reached=math.ceil(share * N))[1]


def test_estimate_is_within_ten_percent_when_ninety_percent_are_reached(
    database: SyntheticDatabase,
) -> None:
    trace = race(database, "greedy", 0.9)
    last = trace[-1]
    assert last.reached >= 0.9 * N
    assert last.estimated is not None
    assert abs(last.estimated / N - 1) <= 0.10


def test_greedy_needs_at_most_half_the_queries_of_random_to_reach_95_percent(
    database: SyntheticDatabase,
) -> None:
    greedy = race(database, "greedy", 0.95)
    random_ = race(database, "random", 0.95)
    assert greedy[-1].reached >= 0.95 * N
    random_queries = random_[-1].queries if random_[-1].reached >= 0.95 * N else 3001
    assert greedy[-1].queries <= 0.5 * random_queries


class BooksIndex:
    """The books fixture site's search, in-process: what its /search page would list."""

    def __init__(self) -> None:
        self.site = build_site("books", records=500, seed=0)

    def search(self, query: str) -> SearchResult:
        hits = self.site.corpus.search(tokenize(query), drop=STOP_WORDS)[:500]
        return SearchResult([str(i) for i in hits], max(1, math.ceil(len(hits) / 10)), len(hits))

    def text(self, record_id: str) -> str:
        record = self.site.corpus.records[int(record_id) - 1]
        return f"{record.title} {record.description}"


def test_books_site_saturates_after_reaching_98_percent_with_a_good_estimate() -> None:
    index = BooksIndex()
    loop, trace = crawl(Settings(), index)
    assert loop.words.stopwords_accepted is False  # books ignores stop words
    assert loop.words_stop is StopReason.SATURATED
    assert trace[-1].reached >= 0.98 * 500
    at_90 = next(p for p in trace if p.reached >= 450)
    assert at_90.estimated is not None
    assert abs(at_90.estimated / 500 - 1) <= 0.10
