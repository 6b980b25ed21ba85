"""A stop rule's answer: why the querying stops (:mod:`~deepcrawl.querying.stops`,
:mod:`~deepcrawl.querying.runaway`)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Verdict"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """Why the querying stops.

    Attributes:
        reason: what ``stats.json`` says (the estimate's gap is added for a stop that does not
            prove the records complete: :func:`~deepcrawl.querying.size.gap`).
        complete: the rule's evidence proves every record known (a list of everything read to
            its end, the lists' totals covered with none lacking): the crawl says it holds
            every record only then.
        size: the database's size by the rule's own evidence, where that evidence estimates
            it rather than proves it (the share the latest lists lacked by their totals, the
            lists read to their end): what the crawl reports beside the records it holds.
        rule: the rule that found it, where one names itself (``outgrown``, ``repeating``).
    """

    reason: str
    complete: bool = False
    size: float | None = None
    rule: str = ""

    @property
    def sized(self) -> bool:
        """Whether the verdict rests on evidence of the database's size: a proof, or an
        estimate of its own (a stop that does not is a budget's, or the words')."""
        return self.complete or self.size is not None
