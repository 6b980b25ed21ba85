"""Query selection policies: which keyword to submit next.

One small contract, :class:`QueryPolicy`: given the crawl's state so far (:class:`QueryState`,
implemented by the keyword manager), return the next query or None when it has nothing left.
Three policies, those compared by Ntoulas, Zerfos & Cho ("Downloading textual hidden web content
through keyword queries", JCDL 2005):

- :class:`GreedyPolicy` — the adaptive policy: the term with the highest expected number of *new*
  records per unit cost, estimated from the records already downloaded;
- :class:`RandomPolicy` — random words from the generic list (their baseline);
- :class:`FrequencyPolicy` — the generic list in order (their "generic-frequency" policy).

None of them re-issues a query: the state's ``issued`` set is checked case-insensitively.
"""

from __future__ import annotations

import math
import random
import zlib
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = ["FrequencyPolicy", "GreedyPolicy", "QueryPolicy", "QueryState", "RandomPolicy"]


class QueryState(Protocol):
    """What a policy may read about the crawl (the keyword manager provides it)."""

    @property
    def issued(self) -> frozenset[str]:
        """Case-folded queries already submitted (or handed out)."""

    @property
    def cold_start(self) -> Sequence[str]:
        """Queries to use before anything is known: seeds, then the frequent-word list
        (stop words removed unless the site accepts them)."""

    @property
    def term_df(self) -> Mapping[str, int]:
        """Document frequency of each term among the records whose text is known."""

    @property
    def texted_records(self) -> int:
        """Records whose text is known (the sample the document frequencies come from)."""

    @property
    def estimated_size(self) -> float | None:
        """Estimated records in the database (capture–recapture), None while unknown."""

    @property
    def page_size(self) -> int | None:
        """Results per result page seen so far, None while unknown."""

    @property
    def max_result_pages(self) -> int:
        """Result pages followed per query at most (caps the records a query can return)."""


class QueryPolicy(ABC):
    """Chooses the next query from the crawl's state."""

    #: Short name used in settings, reports and benchmarks.
    name: str = "policy"

    @abstractmethod
    def choose(self, state: QueryState) -> str | None:
        """Return the next query, never one in ``state.issued``; None when none is left."""


def _first_unissued(words: Sequence[str], issued: frozenset[str]) -> str | None:
    for word in words:
        if word.casefold() not in issued:
            return word
    return None


class FrequencyPolicy(QueryPolicy):
    """Generic frequent words in order: the cold-start list, top first."""

    name = "frequency"

    def choose(self, state: QueryState) -> str | None:
        """The first cold-start word not yet issued."""
        return _first_unissued(state.cold_start, state.issued)


class RandomPolicy(QueryPolicy):
    """Uniformly random words from the cold-start list (the baseline).

    Args:
        seed: seed of the random generator, for reproducible runs.
    """

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def choose(self, state: QueryState) -> str | None:
        """A random cold-start word not yet issued."""
        words = state.cold_start
        issued = state.issued
        for _ in range(64):  # rejection sampling is fast while most words are unused
            if not words:
                return None
            word = words[self._rng.randrange(len(words))]
            if word.casefold() not in issued:
                return word
        left = [word for word in words if word.casefold() not in issued]
        return self._rng.choice(left) if left else None


class GreedyPolicy(QueryPolicy):
    """Ntoulas, Zerfos & Cho's adaptive greedy policy.

    For every term t of the downloaded records, with df(t) its document frequency in that sample
    S and N̂ the estimated database size, the policy assumes (as the paper does) that t occurs
    independently of the earlier queries, so that

    - expected matches in the database: P(t)·N̂ with P(t) = df(t)/|S|;
    - expected records returned: that, capped at ``page_size × max_result_pages``;
    - expected *new* records: returned − df(t), the paper's "results minus the records already
      seen that contain t" — when the results are capped this assumes the records already seen
      come first, as they do when a site ranks results in a fixed order (by date, by id), so a
      term whose seen records fill the cap is worth nothing;
    - expected cost: one submission plus ``page_cost`` per further result page;

    and picks the term with the highest new records per unit cost, ties to the higher df.
    Before any record text is known it takes the cold-start list in order.

    Args:
        page_cost: cost of one further result page relative to a submission (0: count
            submissions only, 1: count every request).
        size_factor: N̂ = this × records known while no capture–recapture estimate exists.
    """

    name = "greedy"

    def __init__(self, page_cost: float = 0.0, size_factor: float = 2.0) -> None:
        self.page_cost = page_cost
        self.size_factor = size_factor
        self._ranked: tuple[int, dict[str, int]] = (0, {})

    def _rank(self, words: Sequence[str]) -> dict[str, int]:
        # How common each word is in the language (0 = most common), rebuilt when the list changes.
        if self._ranked[0] != id(words):
            self._ranked = (id(words), {w: i for i, w in enumerate(words)})
        return self._ranked[1]

    def choose(self, state: QueryState) -> str | None:
        """The unissued term of highest expected new records per unit cost."""
        sample = state.texted_records
        issued = state.issued
        best: str | None = None
        best_key: tuple[float, int, int, int] = (-1.0, -1, -(2**62), -1)
        rank = self._rank(state.cold_start)
        if sample:
            size = state.estimated_size or self.size_factor * sample
            size = max(size, float(sample))
            cap = (state.page_size or 0) * state.max_result_pages
            for term, df in state.term_df.items():
                if term in issued:
                    continue
                matches = df * size / sample
                returned = min(matches, cap) if cap else matches
                new = max(0.0, returned - df)  # seen records first when capped
                pages = math.ceil(returned / state.page_size) if state.page_size else 1
                cost = 1.0 + self.page_cost * max(0, pages - 1)
                # Ties (common in a small sample, where most terms have df 1) go to the word that
                # is more common in the language — more likely to occur in records not seen yet —
                # then to a hash stable across processes: the same crawl asks the same queries.
                key = (new / cost, df, -rank.get(term, len(rank)), zlib.crc32(term.encode()))
                if key > best_key:
                    best, best_key = term, key
        if best is not None and best_key[1] > 0:
            return best
        return _first_unissued(state.cold_start, issued)
