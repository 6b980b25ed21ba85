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
            judge the records complete: :func:`~deepcrawl.querying.stops.gap`).
        complete: the rule judged the records complete by their own evidence.
        rule: the rule that found it, where one names itself (``outgrown``, ``repeating``).
    """

    reason: str
    complete: bool = False
    rule: str = ""
