"""How many records does the hidden database hold? Capture–recapture over query results.

Every query's result set is a "capture" of records; the overlap between captures tells how large
the population is. The classic estimators assume every record is equally likely to be caught, and
keyword queries break that: a long record, or one full of common words, matches many queries, a
short one few. Such *heterogeneous catchability* biases the equal-catchability estimators low
(Lincoln–Petersen/Chapman on two captures, Schnabel's multiple-recapture on many — the bias
Shokouhi, Zobel, Scholer & Tahaghoghi measured for collection-size estimation, SIGIR 2006, and
corrected with a regression fitted to their search engines). A greedy query policy makes it
worse: each query is chosen for its overlap with what was already found.

The default estimator here is Chao's *Mh* estimator (Chao 1987, bias-corrected form), built for
heterogeneous catchability: it counts the records caught exactly once (f1) and exactly twice
(f2) and adds f1(f1−1)/(2(f2+1)) unseen records — the records that are rarely caught announce
how many are never caught. It is a lower bound in expectation, never below the records reached,
and was the most accurate of the estimators here on the simulated databases of
``benchmarks/keywords_sim.py`` (Chapman and Schnabel are kept for comparison).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from deepcrawl._capture import chao1

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping, Sequence

__all__ = [
    "CaptureRecapture",
    "CoverageEstimate",
    "Estimator",
    "chao1",
    "chapman",
    "lists_estimate",
    "schnabel",
]

Estimator = Literal["chao1", "schnabel", "chapman"]


def chapman(marked: int, caught: int, recaptured: int) -> float:
    """Lincoln–Petersen with Chapman's correction for two captures.

    Args:
        marked: records in the first capture.
        caught: records in the second capture.
        recaptured: records in both.

    Returns:
        (marked+1)(caught+1)/(recaptured+1) − 1, nearly unbiased for random captures.
    """
    return (marked + 1) * (caught + 1) / (recaptured + 1) - 1


def schnabel(captures: Iterable[Collection[str]]) -> float | None:
    """Schnabel's multiple-recapture estimator (Chapman-corrected) over a sequence of captures.

    N = Σ C_t·M_t / (Σ R_t + 1), with C_t the records of capture t, M_t those marked before it,
    R_t those of capture t already marked.

    Returns:
        The estimate, or None before a second capture.
    """
    marked: set[str] = set()
    numerator = 0.0
    recaptured = 0
    count = 0
    for capture in captures:
        ids = set(capture)
        numerator += len(ids) * len(marked)
        recaptured += len(ids & marked)
        marked |= ids
        count += 1
    if count < 2:
        return None
    return numerator / (recaptured + 1)


def lists_estimate(lists: Sequence[Collection[str]]) -> tuple[float, int] | None:
    """The database's size by the records of whole result lists, and the recaptures behind it.

    A result list read to its end holds every record matching its word, whatever order the
    search ranks them in: unlike a first page, which a fixed ranking fills with the same
    records whatever the word, it is a sample of the database unbiased by the ranking. Two
    such lists give Lincoln–Petersen's estimate (:func:`chapman`), more Schnabel's
    (:func:`schnabel`, in the order given). Both assume that a record's holding one word says
    nothing of its holding another: near enough for the words nearly every record holds, not
    for a topic's words (rare words of one topic hold the same few records, and the estimate
    falls to what the crawl knows).

    Returns:
        (estimate, recaptures: records counted again by a later list), or None for fewer
        than two lists.
    """
    if len(lists) < 2:
        return None
    if len(lists) == 2:
        first, second = set(lists[0]), set(lists[1])
        both = len(first & second)
        return chapman(len(first), len(second), both), both
    value = schnabel(lists)
    if value is None:
        return None
    marked: set[str] = set()
    recaptured = 0
    for capture in lists:
        ids = set(capture)
        recaptured += len(ids & marked)
        marked |= ids
    return value, recaptured


@dataclass(frozen=True, slots=True)
class CoverageEstimate:
    """Records reached so far against the estimated size of the hidden database.

    Attributes:
        reached: distinct records reached.
        estimated: estimated records in the database (never below ``reached``), or None while
            too few queries have been made.
        method: the estimator's name.
    """

    reached: int
    estimated: float | None
    method: str

    @property
    def ratio(self) -> float | None:
        """reached / estimated, in [0, 1]; None while no estimate exists."""
        if self.estimated is None or self.estimated <= 0:
            return None
        return min(1.0, self.reached / self.estimated)

    def __str__(self) -> str:
        if self.estimated is None or self.ratio is None:
            return f"{self.reached} records reached (no estimate yet)"
        return (
            f"{self.reached} of ~{round(self.estimated)} records reached "
            f"({self.ratio:.0%}, {self.method})"
        )


class CaptureRecapture:
    """Incremental capture–recapture over the result sets of successive queries.

    Empty result sets are ignored (a query that found nothing caught nobody).

    Args:
        method: the estimator reported by :meth:`estimate`.
        min_captures: no estimate before this many non-empty captures.
    """

    def __init__(self, method: Estimator = "chao1", *, min_captures: int = 2) -> None:
        self.method: Estimator = method
        self.min_captures = min_captures
        self.counts: Counter[str] = Counter()
        self.captures = 0
        self._schnabel_num = 0.0
        self._schnabel_recaptured = 0
        self._previous: frozenset[str] = frozenset()
        self._chapman: float | None = None
        self._chao1: float | None = None
        """Chao's estimate over :attr:`counts` as last computed (None: to compute): it is asked
        for every record page fetched (the runaway rules), and changes only with a capture."""

    def add(self, result_ids: Collection[str]) -> None:
        """Record one query's result set."""
        ids = frozenset(result_ids)
        if not ids:
            return
        marked = len(self.counts)
        recaptured = sum(1 for record in ids if record in self.counts)
        self._schnabel_num += len(ids) * marked
        self._schnabel_recaptured += recaptured
        if self._previous:
            self._chapman = chapman(len(self._previous), len(ids), len(ids & self._previous))
        self._previous = ids
        self.counts.update(ids)
        self.captures += 1
        self._chao1 = None

    def merge(self, same: Mapping[str, str]) -> None:
        """Count each record of ``same`` as the record it maps to (one record was caught under
        two ids): their captures add up, so a repeated record is no new one."""
        for old, new in same.items():
            if old != new and (caught := self.counts.pop(old, 0)):
                self.counts[new] += caught
        if any(record in same for record in self._previous):
            self._previous = frozenset(same.get(record, record) for record in self._previous)
        self._chao1 = None

    @property
    def reached(self) -> int:
        """Distinct records caught so far."""
        return len(self.counts)

    def value(self, method: Estimator | None = None) -> float | None:
        """The raw estimate of ``method`` (default: this object's), or None if too early."""
        if self.captures < max(2, self.min_captures):
            return None
        match method or self.method:
            case "chao1":
                if self._chao1 is None:
                    self._chao1 = chao1(self.counts.values())
                return self._chao1
            case "schnabel":
                return self._schnabel_num / (self._schnabel_recaptured + 1)
            case "chapman":
                return self._chapman

    def estimate(self) -> CoverageEstimate:
        """Reached against estimated, the estimate floored at the records reached."""
        value = self.value()
        estimated = None if value is None else max(value, float(self.reached))
        return CoverageEstimate(self.reached, estimated, self.method)
