"""The fetch contract shared by the browser and the plain-HTTP fetcher.

A :class:`Fetcher` turns a URL into a :class:`~deepcrawl.page.fetched.FetchedPage`: where it
ended up, what it said, and the links and forms on it. The browser backend renders the live DOM
(and may probe JavaScript); the HTTP backend parses the HTML the server sent. Callers (the
crawl, the bench strategies) see only this contract, so either backend — or the adaptive one
that picks per URL prototype — can serve them.
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING

from deepcrawl._resource import AsyncResource

if TYPE_CHECKING:
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.page.submission import Submission

__all__ = ["Fetcher"]


class Fetcher(AsyncResource, abc.ABC):
    """Fetch pages; an async context manager that owns its connections or browser.

    Contract:
        * ``fetch`` returns a :class:`FetchedPage` for any answer the server gave, error statuses
          included (the caller decides what a 404 means);
        * it raises :class:`~deepcrawl.errors.FetchError` subclasses for what is not an answer:
          network failure, timeout, a body over the size limit, a blocked URL;
        * it never raises a third-party exception;
        * entering the context twice raises ``RuntimeError``.
    """

    @abc.abstractmethod
    async def fetch(self, url: str) -> FetchedPage:
        """Fetch ``url`` and return what it gave (see the class contract)."""

    async def submit(self, submission: Submission) -> FetchedPage:
        """Send a form ``submission`` (a POST) and return what it gave, as :meth:`fetch` does.

        Raises:
            FetchError: as :meth:`fetch`; by default, this fetcher submits no forms.
        """
        from deepcrawl.errors import FetchError

        raise FetchError(submission.action, f"{type(self).__name__} submits no forms")
