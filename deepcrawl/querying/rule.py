"""The rule contract: one decision of the querying, one object.

The query loop asks its rules in order after every query (the tuple ``querying.rules`` names,
as Scrapy orders its extensions); the first that decides ends the round:

* an :class:`Ask` — the next list to read (a word, how far, why);
* a :class:`~deepcrawl.querying.verdict.Verdict` — the querying stops, and why;
* a note (:data:`~deepcrawl.querying.events.Note`) — a fact the rule found (a source of words
  spent, lists not worth reading on), which the loop writes into the ledger as an event, and
  logs, before it asks the same rule again;
* None — the rule has nothing to say; the next is asked.

A rule reads a :class:`QueryView` — the ledger, read only (:class:`~deepcrawl.querying.view.
LedgerView`), the word supply, the loop's own limits — and the settings. State a rule needs of
its own (the lists it split, the lists it reads again) it derives from the same events the
ledger folds (:meth:`Rule.observe`), so a resumed crawl's rules know what the interrupted ones
knew. A rule is tested by calling :meth:`Rule.decide` on a view built in a line or two.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from deepcrawl.querying.events import Reading

if TYPE_CHECKING:
    from deepcrawl.querying.events import Event, Note, Values
    from deepcrawl.querying.partition import Part
    from deepcrawl.querying.verdict import Verdict
    from deepcrawl.querying.view import LedgerView
    from deepcrawl.querying.words import KeywordManager
    from deepcrawl.settings import Settings

__all__ = ["Ask", "QueryView", "Rule"]


@dataclass(frozen=True, slots=True)
class Ask:
    """The next list to read.

    Attributes:
        word: the keyword.
        max_pages: result pages to read at most (None: as far as the list's total fills).
        reading: why it is read (the ledger keeps some readings apart).
        skip: pages read before, read again whatever they bring.
        resume: where to start instead of its first page: (URL, page number).
        threshold: records a further page must be expected to bring (None: the default).
        whole: the word is expected to list every record.
        part: the sub-list of a cut list it reads.
        before: the records its pages read before showed (a list read on is whole with them).
    """

    word: str
    max_pages: int | None
    reading: Reading = Reading.WORD
    skip: int = 0
    resume: tuple[str, int] | None = None
    threshold: float | None = None
    whole: bool = False
    part: Part | None = None
    before: frozenset[str] = field(default_factory=frozenset)

    @property
    def values(self) -> Values:
        """The field values that narrow its list."""
        return self.part.values if self.part is not None else ()


@dataclass(frozen=True, slots=True)
class QueryView:
    """What a rule decides over.

    Attributes:
        ledger: what the querying learnt, read only.
        words: the word supply (:class:`~deepcrawl.querying.words.KeywordManager`): the rules
            that ask for a word take it from there.
        accepts_empty: whether the search takes the empty query.
        max_pages: result pages a query reads at most by the loop's own cap (the setup
            phase's; None: as far as each list's total fills).
        cap: result pages a list is read to at most (``max_pages``, else
            ``querying.max_list_pages``).
        delivered: pages the crawl delivered so far (the runaway rule weighs them).
    """

    ledger: LedgerView
    words: KeywordManager
    accepts_empty: bool = False
    max_pages: int | None = None
    cap: int = 1
    delivered: int = 0


class Rule(ABC):
    """One decision of the querying (see the module docstring).

    Subclasses set :attr:`name` (how ``querying.rules`` and ``stats.json`` name it) and
    implement :meth:`decide`; a rule with state of its own keeps it from :meth:`observe`.
    """

    name: ClassVar[str]
    proves: ClassVar[bool] = False
    """Whether its verdict rests on evidence of the database's size — a proof that every
    record is known, or an estimate of its own (the size the crawl reports follows it:
    :func:`~deepcrawl.querying.stops.proves`)."""

    @abstractmethod
    def decide(self, view: QueryView, settings: Settings) -> Ask | Verdict | Note | None:
        """The rule's answer over ``view`` (see the module docstring)."""

    def observe(self, event: Event, view: QueryView) -> None:  # noqa: B027 (a hook)
        """Called with every event after the ledger folded it (``view`` shows the ledger
        with it): the place for state of the rule's own. Does nothing by default."""
