"""Judging a query's result pages: outcome, link roles, and the nonsense-keyword yardstick.

Both ways of querying a form — the browser filler and the URL template over plain HTTP — fetch
pages differently and judge them here, identically:

* :class:`Judge` holds what is known of one form's site: its chrome
  (:class:`~deepcrawl.search.results.ChromeFilter`) and its :class:`Baseline`, the page a nonsense
  keyword gets (learnt once per form: its links are chrome when it holds no results; if it holds
  a list, a keyword that gets the very same page was ignored by the form);
* :meth:`Judge.judge` fills a :class:`~deepcrawl.search.results.QueryResult` from the pages:
  submitted URLs, links with roles (:func:`classify_links`), the outcome, the reported total.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from deepcrawl.search.causes import cause_of_status
from deepcrawl.search.pagination import next_page, pager_urls
from deepcrawl.search.results import (
    PAGE_CAP_NOTE,
    ChromeFilter,
    ResultLink,
    error_marker,
    no_results_marker,
    page_signature,
    total_results,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl.search.results import LinkRole, QueryResult, ResultPage

__all__ = [
    "MIN_NEW_LINKS",
    "NONSENSE_KEYWORD",
    "Baseline",
    "Judge",
    "classify_links",
    "without_chrome",
]

#: A word no site holds, submitted once per form to learn its "no results" page and the links
#: every page shows (site chrome, not results): the yardstick of every later result page.
NONSENSE_KEYWORD = "xqzvkjwq"

#: A nonsense-keyword page showing at least this many links the form's page did not show is
#: taken for a list of results, not for a "no results" page.
MIN_NEW_LINKS = 3


@dataclass(frozen=True, slots=True)
class Baseline:
    """What the nonsense keyword gave: the yardstick of every later result page.

    Attributes:
        keyword: the nonsense keyword.
        signature: the page's :func:`~deepcrawl.search.results.page_signature`.
        empty: True when the page holds no results (it says so, or shows fewer than
            :data:`MIN_NEW_LINKS` links the form's own page did not); False when the site
            answered a nonsense word with a list.
        error: why the baseline could not be learnt (an error page, a timeout), if so.
    """

    keyword: str
    signature: frozenset[tuple[str, str]]
    empty: bool
    error: str | None = None


def classify_links(pages: list[ResultPage], chrome: ChromeFilter) -> list[ResultLink]:
    """Every link of ``pages`` once (first page that showed it, first non-empty text), with its
    role: ``pager`` (pager links, and the URLs fetched as result pages), ``chrome``, ``result``.
    """
    fetched = {url for page in pages for url in (page.url, page.fetched_url)}
    found: dict[str, ResultLink] = {}
    for number, page in enumerate(pages, 1):
        pager = pager_urls(page) | fetched
        for link in page.links:
            role: LinkRole = (
                "pager" if link.url in pager else "chrome" if chrome.is_chrome(link) else "result"
            )
            known = found.get(link.url)
            if known is None:
                found[link.url] = ResultLink(
                    url=link.url, text=link.text, dom_path=link.dom_path, page=number, role=role
                )
            elif not known.text and link.text:
                found[link.url] = known.model_copy(update={"text": link.text})
    return list(found.values())


def without_chrome(
    more: Callable[[ResultPage, int], bool], chrome: ChromeFilter
) -> Callable[[ResultPage, int], bool]:
    """A paging control (``more``, asked after each result page) shown each page without the
    links ``chrome`` knows, as :func:`classify_links` will judge the query's links.

    The crawl's paging control counts a list's records from its page's links: a navigation
    beside the results that lists every record (a documentation site's sidebar) would read
    as a list holding every record, all of them known, and its stop evidence as "nothing
    lacking" whatever the results lack.
    """

    def ask(page: ResultPage, number: int) -> bool:
        links = [link for link in page.links if not chrome.is_chrome(link)]
        return more(replace(page, links=links), number)

    return ask


class Judge:
    """The site knowledge one form's queries are judged by (chrome and baseline)."""

    def __init__(self) -> None:
        self.chrome = ChromeFilter()
        self.baseline: Baseline | None = None

    def learn_baseline(
        self,
        keyword: str,
        page: ResultPage | None,
        form_keys: set[tuple[str, str]],
        error: str | None = None,
    ) -> Baseline:
        """Learn from the page the nonsense ``keyword`` got (None: it failed with ``error``).

        Args:
            keyword: the nonsense keyword.
            page: its first result page.
            form_keys: chrome keys of the links of the page holding the form.
            error: why there is no page.
        """
        if page is None or (error := error or error_marker(page)) is not None:
            self.baseline = Baseline(keyword, frozenset(), False, error or "no page")
            return self.baseline
        keys = {ChromeFilter.key(link) for link in page.links}
        empty = no_results_marker(page) is not None or len(keys - form_keys) < MIN_NEW_LINKS
        self.chrome.learn_baseline(
            [link for link in page.links if empty or ChromeFilter.key(link) in form_keys]
        )
        self.baseline = Baseline(keyword, page_signature(page, keyword), empty)
        return self.baseline

    def same_as_baseline(self, page: ResultPage, keyword: str) -> bool:
        """Did ``keyword`` get the very page the nonsense keyword got?"""
        base = self.baseline
        if base is None or base.error is not None or keyword == base.keyword:
            return False
        return page_signature(page, keyword) == base.signature

    def has_results(self, page: ResultPage, keyword: str) -> bool:
        """Is ``page`` (a query's first page) worth paging through?"""
        return not (
            error_marker(page) or no_results_marker(page) or self.same_as_baseline(page, keyword)
        )

    def judge(self, result: QueryResult, pages: list[ResultPage], cap: int) -> None:
        """Fill ``result`` from the query's pages (its keyword is ``result.keyword``)."""
        if not pages:
            return
        first = pages[0]
        result.submitted = [p.fetched_url for p in pages]
        result.pages = len(pages)
        result.links = classify_links(pages, self.chrome)
        result.total_results = total_results(first)
        if error := error_marker(first):
            result.outcome, result.error = "error", error
            result.cause = cause_of_status(first.status)
        elif self.same_as_baseline(first, result.keyword):
            assert self.baseline is not None
            if self.baseline.empty:
                result.outcome, result.cause = "no_results", "no results"
            else:
                result.outcome, result.cause = "error", "error"
                result.error = (
                    "the site returns the same page for every keyword (as for the nonsense "
                    f"word {self.baseline.keyword!r}): the form seems to ignore its keyword"
                )
        elif no_results_marker(first) is not None or not result.result_links:
            result.outcome, result.cause = "no_results", "no results"
        else:
            result.outcome, result.cause = "ok", None
            self.chrome.observe({ChromeFilter.key(link) for link in result.result_links})
            if len(pages) >= cap and next_page(pages[-1], len(pages), set(result.submitted)):
                result.error = f"{PAGE_CAP_NOTE} ({cap} result pages)"
