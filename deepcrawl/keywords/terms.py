"""Per-source term statistics, each seen by the query policy as a :class:`QueryState`.

The keyword manager keeps one :class:`SourceTerms` per learnt source of words (result-page
entries, record pages); the result links' terms are the manager's own counts
(:class:`ResultTerms`). The rest of the state a policy reads — the words issued, the size
estimate, the page size — is the manager's.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from deepcrawl.keywords.policy import QueryState

__all__ = ["PageTerms", "ResultTerms", "SourceTerms"]

#: Record pages a template word must be seen on before it counts as the pages' frame.
FRAME_MIN_PAGES = 20


class SourceTerms:
    """Document frequencies of one learnt source, seen by the policy as a :class:`QueryState`.

    Args:
        manager: the crawl-wide state (the keyword manager), which this source's state reads
            for everything but its own term counts.
    """

    def __init__(self, manager: QueryState) -> None:
        self.manager = manager
        self.df: Counter[str] = Counter()
        self.documents = 0

    def add(self, terms: frozenset[str]) -> None:
        self.documents += 1
        self.df.update(sorted(terms))

    def remove(self, terms: frozenset[str]) -> None:
        self.documents -= 1
        self.df.subtract(terms)
        for term in terms:
            if self.df[term] <= 0:
                del self.df[term]

    @property
    def issued(self) -> frozenset[str]:
        return self.manager.issued

    @property
    def cold_start(self) -> Sequence[str]:
        # the policy ranks ties by it (the commoner word first); its fallback to this list is
        # refused by the manager, which moves on to the next source instead
        return self.manager.cold_start

    @property
    def term_df(self) -> Mapping[str, int]:
        return self.df

    @property
    def texted_records(self) -> int:
        return self.documents

    @property
    def estimated_size(self) -> float | None:
        return self.manager.estimated_size

    @property
    def page_size(self) -> int | None:
        return self.manager.page_size

    @property
    def max_result_pages(self) -> int:
        return self.manager.max_result_pages

    def untried(self, issued: frozenset[str]) -> bool:
        """Whether a term of this source was never queried."""
        return any(term not in issued for term in self.term_df)


class PageTerms(SourceTerms):
    """The fetched record pages' terms, less their template's: a term on more than
    ``records_frame_share`` of them ("History", "Author", "Date" on every issue page of a
    tracker) is the page's frame, which the search does not index — and, being on every page,
    the greedy policy would pick it first."""

    def __init__(self, manager: QueryState, *, frame_share: float) -> None:
        super().__init__(manager)
        self.frame_share = frame_share

    @property
    def term_df(self) -> Mapping[str, int]:
        if not self._framed():
            return self.df
        most = self.frame_share * self.documents
        return {term: df for term, df in self.df.items() if df <= most}

    def frame(self) -> list[str]:
        """The template's terms, on more than ``frame_share`` of the pages (twenty at least),
        the commonest first (ties alphabetical); empty while too few pages were seen."""
        if not self._framed():
            return []
        most = self.frame_share * self.documents
        return sorted((t for t, df in self.df.items() if df > most), key=lambda t: (-self.df[t], t))

    def _framed(self) -> bool:
        return self.documents >= FRAME_MIN_PAGES and self.frame_share < 1.0


class ResultTerms(SourceTerms):
    """The result links' terms: the manager's own counts (stop words once the site takes them)."""

    @property
    def term_df(self) -> Mapping[str, int]:
        return self.manager.term_df

    @property
    def texted_records(self) -> int:
        return self.manager.texted_records
