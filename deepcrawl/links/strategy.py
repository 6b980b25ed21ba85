"""The contract of a crawl strategy, so that strategies can be swapped and compared.

A strategy decides which URLs to request and in which order; it fetches through the
:class:`~deepcrawl.browser.base.Fetcher` it is given (so the caller controls the backend and can
count requests) and yields every page it fetched, in fetch order. The links it means to follow wait
in a :class:`~deepcrawl.storage.frontier.Frontier` — one queue, deduplicated by URL, in priority
order (ties: first added first), leased and settled — at the priorities the strategy gives them: a
new :class:`~deepcrawl.storage.frontier.MemoryFrontier` for each crawl, or the one the caller hands
it. Every link it would follow is judged first by its :attr:`Strategy.safety` rule (URL and link
text): logout, delete, cart … links are never requested. ``deepcrawl bench`` runs strategies side by
side against the same fixture site; ``--strategy`` picks one for a crawl.

Its requests pass a :class:`~deepcrawl.fetch.gate.Gate` (:meth:`Strategy.door`): run alone, one of
its own (robots.txt read through the fetcher: one request of the budget); run inside a crawl
(``--navigate``, the discovery of the search form), the crawl's (:attr:`Strategy.gate`), which
the fetcher it is given is behind already — one robots.txt, one rate per host, one count.
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, ClassVar, Literal

from deepcrawl.safety import SafetyRule
from deepcrawl.storage.frontier import MemoryFrontier

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.fetch.gate import Gate
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.settings import Settings
    from deepcrawl.storage.frontier import Frontier

__all__ = ["LEASE_S", "STRATEGIES", "Strategy", "register"]

#: How long a link strategy holds a URL leased from its frontier before it may be handed out
#: again: a day, long enough for a whole batch fetched at the slowest rate robots.txt asks.
LEASE_S = 86_400.0


class Strategy(abc.ABC):
    """A way to crawl one site.

    Contract:
        * ``crawl`` sends at most ``max_requests`` requests through ``fetcher`` (robots.txt
          included) and stays on the start URL's host;
        * it requests no URL other than the start URL that :attr:`safety` refuses (judged with
          the text of the link that led to it), and records each in :attr:`refused`;
        * it yields each fetched page once, as soon as it is fetched;
        * a :class:`~deepcrawl.errors.FetchError` for one URL is recorded and skipped, never
          raised out of ``crawl``.
    """

    #: The name ``--strategy`` and ``deepcrawl bench`` know it by.
    name: ClassVar[str]
    #: How pages must be fetched for this strategy (``never``: static HTML is all it reads);
    #: None leaves it to ``settings.browser.render``.
    render: ClassVar[Literal["auto", "always", "never"] | None] = None

    def __init__(self, settings: Settings, *, frontier: Frontier | None = None) -> None:
        self.settings = settings
        self._frontier = frontier
        #: URLs that failed, with the reason (filled as the crawl goes).
        self.failures: dict[str, str] = {}
        #: The rule links are judged by before they are requested (the caller may replace it,
        #: e.g. with one that trusts the records of a labelled kind).
        self.safety = SafetyRule()
        #: URLs not requested because :attr:`safety` refused them, with the reason.
        self.refused: dict[str, str] = {}
        #: The crawl's gate when the strategy runs inside a crawl (the fetcher it is given is
        #: behind it already); None: the strategy opens a gate of its own (:meth:`door`).
        self.gate: Gate | None = None

    async def door(self, start_url: str, fetcher: Fetcher) -> tuple[Gate, Fetcher, int]:
        """The gate the crawl from ``start_url`` keeps to, the fetcher to fetch through, and the
        requests spent on opening it.

        Inside a crawl: :attr:`gate`, ``fetcher`` as given (behind it already), nothing spent.
        Alone: a gate of its own, robots.txt read through ``fetcher`` (one request when obeyed),
        and ``fetcher`` behind it — every URL vouched for, as the strategy judges each link
        with its text before it queues it, and the start URL is the user's.
        """
        if self.gate is not None:
            return self.gate, fetcher, 0
        from deepcrawl.fetch.gate import open_gate

        gate = await open_gate(self.settings, start_url, fetcher)
        spent = 1 if gate.robots.obey else 0
        return gate, gate.wrap(fetcher, vouched=_judged), spent

    def safe(self, url: str, text: str = "") -> bool:
        """True when ``url`` (reached through a link reading ``text``) may be requested; a
        refusal is recorded in :attr:`refused`."""
        why = self.safety.reason(url, text)
        if why is not None:
            self.refused.setdefault(url, why)
        return why is None

    def new_frontier(self) -> Frontier:
        """The frontier of one crawl: the one handed to the constructor, else a new one in memory.

        A handed frontier (e.g. a :class:`~deepcrawl.storage.frontier.SqlFrontier` of the crawl's
        database) keeps what the strategy queued and fetched beyond the crawl.
        """
        return self._frontier if self._frontier is not None else MemoryFrontier()

    @abc.abstractmethod
    def crawl(
        self, start_url: str, *, fetcher: Fetcher, max_requests: int
    ) -> AsyncIterator[FetchedPage]:
        """Crawl from ``start_url``, yielding every page fetched."""


def _judged(_url: str) -> bool:
    """A strategy's URLs: each judged with its link's text as it was queued."""
    return True


#: Every known strategy by name; filled by :func:`register`.
STRATEGIES: dict[str, type[Strategy]] = {}


def register(cls: type[Strategy]) -> type[Strategy]:
    """Class decorator that makes a strategy known by its ``name``."""
    STRATEGIES[cls.name] = cls
    return cls
