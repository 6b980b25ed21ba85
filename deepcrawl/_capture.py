"""Capture–recapture arithmetic shared by two floors: the size estimate of the hidden database
(:mod:`deepcrawl.keywords.estimate`, queries as captures of records) and the evidence of which
kind of URL is the records (:mod:`deepcrawl.prototypes._evidence`, queries as captures of a
kind's URLs)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["chao1"]


def chao1(capture_counts: Iterable[int]) -> float:
    """Chao's bias-corrected Mh estimator from how often each seen record was caught.

    Args:
        capture_counts: for every record seen, the number of captures that held it (>= 1).

    Returns:
        S + f1(f1−1)/(2(f2+1)), S the records seen, f_k those caught exactly k times.
    """
    freq = Counter(count for count in capture_counts if count > 0)
    seen = sum(freq.values())
    f1, f2 = freq.get(1, 0), freq.get(2, 0)
    return seen + f1 * (f1 - 1) / (2 * (f2 + 1))
