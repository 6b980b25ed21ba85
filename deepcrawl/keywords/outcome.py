"""What the keyword manager reports: why it stopped, where a word came from, what a query
brought."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["LEARNT", "LEAVABLE", "QueryOutcome", "StopReason", "WordSource"]


class StopReason(StrEnum):
    """Why the manager stopped handing out queries."""

    SATURATED = "saturated"
    QUERY_BUDGET = "query budget spent"
    COST_BUDGET = "request budget spent"
    EXHAUSTED = "no keyword left"
    IDENTICAL = "the form returns the same results for every keyword"
    ERRORS = "the form keeps failing"


class WordSource(StrEnum):
    """Where a query word came from, in the order the sources are tried."""

    USER = "user"
    """The user's words: ``seeds`` and ``--keywords FILE``, every one of them first."""
    EXAMPLE = "example"
    """xCrawl queries from the ``--like`` pages (TF-IDF × hit count, middle-out)."""
    FRAME = "frame"
    """The record pages' template words as one query, sent once: a search engine indexing
    whole pages lists every record for them (the words every record holds, where the site
    refuses stop words)."""
    RESULTS = "results"
    """Terms of the result links' texts (and of wanted links on fetched pages): greedy."""
    ENTRIES = "entries"
    """Terms of the result pages' text blocks that hold the query word: greedy."""
    RECORDS = "records"
    """Terms of the fetched record pages' main text: greedy."""
    FREQUENT = "frequent"
    """The language's frequent-word list (cold start)."""


#: Sources whose words the policy chooses from learnt document frequencies.
LEARNT = (WordSource.RESULTS, WordSource.ENTRIES, WordSource.RECORDS)
#: Sources left when their words keep coming back empty (the user's words are all sent; the
#: frequent words are the last resort, and a site may match their later ones).
LEAVABLE = frozenset({WordSource.EXAMPLE, *LEARNT})


@dataclass(frozen=True, slots=True)
class QueryOutcome:
    """What one query brought.

    Attributes:
        query: the keyword submitted.
        results: distinct records in its results.
        new: records never seen before it.
        cost: requests it used (submission plus further result pages).
        total_results: the result count the site reported, if any.
        error: why it failed (error page, timeout), None if it did not.
        reached: distinct records reached after it.
        source: where its word came from (None: recorded without being handed out).
    """

    query: str
    results: int
    new: int
    cost: int
    total_results: int | None
    error: str | None
    reached: int
    source: WordSource | None = None
