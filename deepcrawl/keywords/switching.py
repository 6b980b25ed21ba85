"""Moving between sources of words: when the keyword manager leaves one, and puts the next on
trial (a mixin of :class:`~deepcrawl.keywords.manager.KeywordManager`).

A source is *spent* once the queries since the last source was left show saturation
(:mod:`~deepcrawl.keywords.saturation`), or once the source on trial answered its queries with
no new record. Saturation is then *deferred* — the crawl goes on with the next source — while a
word of the user's is left, or a source is untried and either the estimate says most records
are missing (``saturation_max_missing``) or untried sources get a trial
(``source_trial_queries``).
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING

from deepcrawl.keywords.outcome import LEARNT, WordSource
from deepcrawl.keywords.saturation import records_saturated, window_saturated

if TYPE_CHECKING:
    from collections import Counter

    from deepcrawl.keywords.estimate import CoverageEstimate
    from deepcrawl.keywords.outcome import QueryOutcome, StopReason
    from deepcrawl.keywords.terms import SourceTerms
    from deepcrawl.settings import KeywordSettings

__all__ = ["SourceSwitching"]

logger = logging.getLogger(__name__)


class SourceSwitching:
    """The source-switching rules, over the keyword manager's state."""

    settings: KeywordSettings
    history: list[QueryOutcome]
    records: set[str]
    left: set[WordSource]
    since: int
    _seeds: list[str]
    _examples: list[str]
    _stop: StopReason | None
    _trial: int | None
    _trial_length: int
    _used: Counter[WordSource]
    _terms: dict[WordSource, SourceTerms]

    @property
    def issued(self) -> frozenset[str]:
        raise NotImplementedError

    def coverage(self) -> CoverageEstimate:
        raise NotImplementedError

    def switch_if_saturated(self) -> bool:
        """Leave the current source if it is saturated (or failed its trial) while saturation
        waits (a source untried); returns whether it was left.

        The next source is on trial for ``source_trial_queries`` queries, or
        ``source_trial_share`` of the queries made if more, unless the estimate
        says most records are missing (it then gets the whole saturation window).
        """
        if self._stop is None and self._spent() and self._deferred():
            logger.info("words from %s saturated: on to the next source", self._current_source())
            trial = self.settings.source_trial_queries > 0 and not self._most_missing()
            self.leave(self._current_source())
            self._trial = len(self.history) if trial else None
            self._trial_length = max(
                self.settings.source_trial_queries,
                math.ceil(max(0.0, self.settings.source_trial_share) * len(self.history)),
            )
            return True
        return False

    def _spent(self) -> bool:
        """Whether the current source is done: saturated, or its trial failed."""
        return self._saturation() or self._trial_failed()

    @property
    def on_trial(self) -> bool:
        """Whether a source of words is on trial (``source_trial_queries``) and has queries of
        it left: the evidence of the lists asked before, from another source's words, does not
        speak for what its words reach."""
        if self._trial is None or self._trial_failed():
            return False
        trial = self.history[self._trial : self._trial + self._trial_length]
        return len(trial) < self._trial_length

    def _trial_failed(self) -> bool:
        """Whether the source on trial answered its ``source_trial_queries`` queries with
        fewer than ``saturation_min_new`` new records between them."""
        if self._trial is None:
            return False
        trial = self.history[self._trial : self._trial + self._trial_length]
        return (
            len(trial) >= self._trial_length
            and sum(outcome.new for outcome in trial) < self.settings.saturation_min_new
        )

    def _current_source(self) -> WordSource | None:
        """The source of the latest query handed out by this manager."""
        for outcome in reversed(self.history):
            if outcome.source is not None:
                return outcome.source
        return None

    def leave(self, source: WordSource | None) -> None:
        """Take no more words from ``source`` (the user's words are sent all the same), and
        judge saturation afresh from the next query on."""
        if source is None:
            return
        self.left.add(source)
        self.since = len(self.history)

    def _untried(self) -> list[WordSource]:
        """Sources with a word to give that no query has come from yet."""
        issued = self.issued
        out: list[WordSource] = []
        for source in (WordSource.EXAMPLE, *LEARNT):
            if source in self.left or self._used[source]:
                continue
            if source is WordSource.EXAMPLE:
                if any(w.casefold() not in issued for w in self._examples):
                    out.append(source)
            elif self._terms[source].untried(issued):
                out.append(source)
        return out

    def _deferred(self) -> bool:
        """Whether saturation waits: a word of the user's is left (they are all sent), or a
        source of words is left untried and either the estimate says most records are
        missing (``saturation_max_missing``) or untried sources get a trial
        (``source_trial_queries``): Chao's estimate under-counts what one source's words
        never reach, since their queries re-catch the same records."""
        issued = self.issued
        if any(word.casefold() not in issued for word in self._seeds):
            return True
        if not self._untried():
            return False
        return self._most_missing() or self.settings.source_trial_queries > 0

    def _most_missing(self) -> bool:
        """Whether the estimate says more than ``saturation_max_missing`` of the records are
        missing."""
        ratio = self.coverage().ratio
        missing = 1.0 - ratio if ratio is not None else 0.0
        return missing > self.settings.saturation_max_missing

    def _saturation(self) -> bool:
        """Whether the queries since the last source was left show saturation."""
        history, known = self.history[self.since :], len(self.records)
        return window_saturated(history, self.settings, known) or records_saturated(
            history, self.settings, known
        )
