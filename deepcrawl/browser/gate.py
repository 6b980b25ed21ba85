"""The door a page's requests pass on their way out of the browser: :class:`RequestGate`.

Every request a pooled page lets go to the network — its document, what the document loads,
what its scripts ask, a form's submission, a pager's next page — passes the gate the pool was
given (:class:`~deepcrawl.browser.pool.BrowserPool`'s ``gate``), after the page's own rules
(:mod:`deepcrawl.browser.lease`: blocked resource types, scope, navigations a probe captures)
and before it is sent. A request answered without the network (a held document, the store, the
pool's memory cache) never reaches it.

The crawl's gate is :class:`deepcrawl.fetch.gate.Gate`, one floor up: robots.txt, the safety
rule, the host's rate, the count — the same door as plain HTTP's. The browser knows it only by
this Protocol (a floor never imports the one above it: docs/ARCHITECTURE.md, "The floors").
Without a crawl (``deepcrawl render``, a test) a pool keeps to :class:`SafetyGate`: the safety
rule alone, nothing spaced, nothing counted.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Protocol

from deepcrawl.safety import SafetyRule

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from contextlib import AbstractAsyncContextManager

    from deepcrawl.safety import Sender

__all__ = ["RequestGate", "SafetyGate"]


class RequestGate(Protocol):
    """What a page's route handler asks before a request goes out (see the module docstring)."""

    def page_refusal(self, url: str, *, method: str, sender: Sender) -> str | None:
        """Why the request may not go out (robots.txt, the safety rule as
        :meth:`~deepcrawl.safety.SafetyRule.request_reason` judges a ``sender``'s request),
        None when it may. The page's scope is the browser's own (its hosts, a CDN allowed)."""
        ...

    def page_passage(self, url: str, *, navigation: bool) -> AbstractAsyncContextManager[None]:
        """Held while the request is handed to the network: it waits for the host's rate and is
        counted. ``navigation``: the page's main-frame navigation, which may be the very
        request a polite fetch was admitted and counted for already."""
        ...

    def page_answer(self, url: str, status: int, retry_after: str | None) -> None:
        """A request of the page was answered with an error ``status`` (400 or more) and
        ``retry_after`` (its ``Retry-After``, if any): the gate pauses the host of a server
        that says it is overloaded (429, 503), for every sender, as it does for plain HTTP."""
        ...

    def retried(self) -> None:
        """Count a request sent again after a transient failure (a throttled submission)."""
        ...


class SafetyGate:
    """The gate of a pool outside a crawl: the safety rule alone (:class:`RequestGate`).

    Args:
        rule: the rule requests are judged by (default: the built-in words).
    """

    def __init__(self, rule: SafetyRule | None = None) -> None:
        self.rule = rule or SafetyRule()

    def page_refusal(self, url: str, *, method: str, sender: Sender) -> str | None:
        """The safety rule's reason to refuse the request, if any."""
        return self.rule.request_reason(url, method=method, sender=sender)

    @contextlib.asynccontextmanager
    async def page_passage(self, url: str, *, navigation: bool) -> AsyncIterator[None]:
        """Nothing to wait for, nothing counted."""
        yield

    def page_answer(self, url: str, status: int, retry_after: str | None) -> None:
        """Nothing to pause: no request is spaced here."""

    def retried(self) -> None:
        """Nothing counted."""
