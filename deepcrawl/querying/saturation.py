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


def saturation_need(settings: QuerySettings, known: int) -> int:
    """Results shown without a new record that saturation asks for at least:
    ``saturation_fraction`` of the records known. (Not of the capture–recapture estimate:
    while few records were caught twice, Chao's estimate runs to many times the site.)"""
    return math.ceil(max(0.0, settings.saturation_fraction) * known)


def window_saturated(history: Sequence[QueryOutcome], settings: QuerySettings, known: int) -> bool:
    """The last ``saturation_window`` queries brought fewer than ``saturation_min_new`` new
    records — and so did as many more as it takes to have shown :func:`saturation_need`
    results, unless the window showed none at all (the form finds nothing any more)."""
    s = settings
    if len(history) < s.saturation_window:
        return False
    need = saturation_need(settings, known)
    shown = new = 0
    for count, outcome in enumerate(reversed(history), start=1):
        shown += outcome.results
        new += outcome.new
        if new >= s.saturation_min_new:
            return False
        if count >= s.saturation_window and (shown >= need or shown == 0):
            return True
    return False


def records_saturated(history: Sequence[QueryOutcome], settings: QuerySettings, known: int) -> bool:
    """The most recent queries showed ``saturation_records`` results between them (more on
    a large site: :func:`saturation_need`) and fewer than ``saturation_min_new`` new ones:
    evidence counted in records re-seen, so a query showing fifty results weighs five times
    one showing ten."""
    s = settings
    if not s.saturation_records:
        return False
    need = max(s.saturation_records, saturation_need(settings, known))
    shown = new = 0
    for outcome in reversed(history):
        if outcome.error:
            continue
        shown += outcome.results
        new += outcome.new
        if new >= s.saturation_min_new:
            return False
        if shown >= need:
            return True
    return False
