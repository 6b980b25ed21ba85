"""The one contract of every way to query a search form: :class:`QueryBackend`.

A chosen form is queried three ways — the browser fills and submits it
(:class:`~deepcrawl.search.filler.FormFiller`), its GET URL template is fetched over plain HTTP
(:class:`~deepcrawl.search.template.TemplateSearch`), or the JSON request its results page makes
is (:class:`~deepcrawl.search.data_api.DataSearch`) — and
:class:`~deepcrawl.search.form_search.FormSearch` picks among them query by query. Each declares
this Protocol, so that whoever only submits keywords (the crawl's query loop,
:class:`~deepcrawl.querying.loop.QueryLoop`, a test's fake) holds "some backend" and not one
of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from deepcrawl.search.results import QueryResult, ResultPage

__all__ = ["QueryBackend"]


@runtime_checkable
class QueryBackend(Protocol):
    """Submits one keyword to a search form and reads its result pages.

    Resources: a backend queries through something its caller entered and keeps entered while
    it queries (a :class:`~deepcrawl.browser.BrowserPool`, a plain-HTTP fetcher); it borrows,
    never closes them. One that owns its own (:class:`~deepcrawl.search.form_search.FormSearch`
    and its fetcher) is also an async context manager, entered before its first query.

    One query at a time: a backend learns from the queries it serves (the site's "no results"
    page, the chrome around the results, whether typing alone searches), so a caller awaits a
    query before it submits the next.
    """

    @property
    def partitions(self) -> Mapping[str, Sequence[str]]:
        """The form's fields whose values narrow a query's list (a category select, a radio
        group of regions, a sort order), their values by name: a list the search cuts short
        is read again split by them (:mod:`~deepcrawl.querying.partition`). None here: only the
        form's own search knows its fields and what the safety gate refuses of them."""
        return {}

    @property
    def accepts_empty(self) -> bool:
        """Whether the empty keyword is a query this backend submits as the form would: many
        searches answer it with every record (the crawl asks it first), but not a form whose
        query field is required, nor a box that searches as one types."""
        ...

    async def query(
        self,
        keyword: str,
        values: Mapping[str, str] | None = None,
        *,
        max_pages: int | None = None,
        more: Callable[[ResultPage, int], bool] | None = None,
        resume: tuple[str, int] | None = None,
    ) -> QueryResult:
        """Submit ``keyword`` and read its result pages, in order, from the first (or from
        ``resume``'s page, where the backend can load a page by its URL).

        Args:
            keyword: what goes into the form's query field.
            values: values of the form's other fields by name (category selects, radio
                groups), on top of the values the user fixed (``forms.fields``); the result
                records what the query stands for.
            max_pages: result pages read at most; None: the backend's own cap (by default
                ``querying.max_result_pages``).
            more: asked after each result page read, with that page and its number (from 1),
                whether the next page is worth reading — the crawl's paging control; False
                ends the paging there. None: read up to ``max_pages`` pages, while there is a
                next page and it brings links the earlier ones did not show.
            resume: a later result page of the same keyword (the URL a page of the list read
                before linked to as its next page) and its number: a backend that fetches
                result pages by URL starts there, numbering its pages on from it
                (``QueryResult.first_page``), so the pages read before are not paid again; one
                that cannot (a browser filling the form) starts from the first.

        Returns:
            The query's result, whatever the site did: ``ok``, ``no_results``, ``error`` (an
            error page or status, a timeout, a fetch that failed, the form gone; ``error``
            says why) or ``rejected`` (the live form turned into one the safety policy
            refuses: nothing was submitted). A failure after the first result page ends the
            paging and keeps the pages read. A backend counts no request: whatever it sends
            (its queries, a baseline, a check) passes the gate of the fetcher or browser pool
            it was given, which counts it (:mod:`deepcrawl.fetch.gate`).

        Raises:
            DeepcrawlError: only for what is wrong on this side, never for what the site does —
                e.g. :class:`~deepcrawl.errors.BrowserError` when the browser cannot be
                (re)started.
        """
        ...
