"""Saturation: the evidence that a run of queries stopped bringing new records.

Judged over the queries since the keyword manager last left a source of words (``history``),
against the records known so far (``known``, by queries and links).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from deepcrawl.keywords.outcome import QueryOutcome
    from deepcrawl.settings import QuerySettings

__all__ = ["records_saturated", "saturation_need", "window_saturated"]

#: Fewer new records than this over the window (``querying.saturation_window``) means the
#: source is exhausted.
SATURATION_MIN_NEW = 1
#: Saturation counted in results too: the latest queries showed this many results between them
#: and fewer than :data:`SATURATION_MIN_NEW` new records (sooner than the window when result
#: pages are big). None: off.
SATURATION_RECORDS: int | None = 200
#: The window's queries, and the results :data:`SATURATION_RECORDS` counts, must also have shown
#: this share of the records known (by queries and links) without a new record, unless the
#: window showed none: the evidence grows with the site (0–1; 0: off).
SATURATION_FRACTION = 0.05


def saturation_need(known: int) -> int:
    """Results shown without a new record that saturation asks for at least:
    :data:`SATURATION_FRACTION` of the records known. (Not of the capture–recapture estimate:
    while few records were caught twice, Chao's estimate runs to many times the site.)"""
    return math.ceil(max(0.0, SATURATION_FRACTION) * known)


def window_saturated(history: Sequence[QueryOutcome], settings: QuerySettings, known: int) -> bool:
    """The last ``saturation_window`` queries brought fewer than :data:`SATURATION_MIN_NEW` new
    records — and so did as many more as it takes to have shown :func:`saturation_need`
    results, unless the window showed none at all (the form finds nothing any more)."""
    window = settings.saturation_window
    if len(history) < window:
        return False
    need = saturation_need(known)
    shown = new = 0
    for count, outcome in enumerate(reversed(history), start=1):
        shown += outcome.results
        new += outcome.new
        if new >= SATURATION_MIN_NEW:
            return False
        if count >= window and (shown >= need or shown == 0):
            return True
    return False


def records_saturated(history: Sequence[QueryOutcome], known: int) -> bool:
    """The most recent queries showed :data:`SATURATION_RECORDS` results between them (more on
    a large site: :func:`saturation_need`) and fewer than :data:`SATURATION_MIN_NEW` new ones:
    evidence counted in records re-seen, so a query showing fifty results weighs five times
    one showing ten."""
    if not SATURATION_RECORDS:
        return False
    need = max(SATURATION_RECORDS, saturation_need(known))
    shown = new = 0
    for outcome in reversed(history):
        if outcome.error:
            continue
        shown += outcome.results
        new += outcome.new
        if new >= SATURATION_MIN_NEW:
            return False
        if shown >= need:
            return True
    return False
