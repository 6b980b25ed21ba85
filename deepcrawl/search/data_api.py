"""Scripted result pages: query the JSON endpoint they read, over plain HTTP.

Many search pages are a shell a script fills: the browser loads ``/search?q=water``, whose script
fetches ``/api/search?q=water&offset=0`` and renders the JSON. The URL template of the page
itself then fails its check (plain HTTP sees an empty shell). But the browser saw the data
request go out, carrying the keyword (:attr:`QueryResult.data_urls
<deepcrawl.search.results.QueryResult.data_urls>`); that request is a URL template too, and
fetching it directly is both ~50 times faster than rendering the page and cheaper in requests
(no shell page per query). :class:`DataSearch`:

* reads the results from the JSON: the longest list of objects that name a same-site URL
  (``url``, ``href``, ``link`` … or any string that is a path), their titles as anchor texts,
  and a ``total`` count when the response has one (a number, or a text such as "93 results");
* pages by the request's own offset (``offset``, ``start`` … advanced by the results read) or
  page number parameter;
* raises a page-size parameter (``limit``, ``per_page`` …) to the size it is given
  (:data:`~deepcrawl.search.page_size.DATA_PAGE_SIZE` in a crawl) — the one
  the request carries, else the usual names in turn — and keeps it only when the response
  really holds more results (sites clamp such values silently);
* is used only after :meth:`DataSearch.check` showed it gives the browser's result links.

Only GET requests to the hosts of the form are made (the plain-HTTP fetcher's scope), and only
when ``allowed`` (robots.txt) says so.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from deepcrawl.errors import FetchError
from deepcrawl.page.fetched import Link
from deepcrawl.search.backend import QueryBackend
from deepcrawl.search.causes import cause_of_error
from deepcrawl.search.page_size import PAGE_SIZE_PARAMS, page_size_param, with_page_size
from deepcrawl.search.results import (
    PAGE_CAP_NOTE,
    QueryResult,
    ResultLink,
    ResultPage,
    reported_count,
)
from deepcrawl.search.template import UrlTemplate, compared
from deepcrawl.urls import query_pairs

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from deepcrawl.browser.base import Fetcher

__all__ = ["DataPage", "DataSearch", "parse_data_page"]

_URL_KEYS = ("url", "href", "link", "permalink", "path", "uri")
_TEXT_KEYS = ("title", "name", "headline", "label", "text")
_TOTAL_KEYS = ("total", "total_results", "totalresults", "total_count", "count", "hits", "found")
#: Keys a JSON response names its next page's request under (a URL, or a path of the site).
_NEXT_KEYS = ("next", "next_url", "nexturl", "next_page", "nextpage", "next_page_url")
_OFFSET_PARAMS = ("offset", "start", "from", "skip")
_PAGE_PARAMS = ("page", "p", "pg", "pn")
#: Page-size parameters tried on a data request that carries none (each try costs a request).
_SIZE_TRIES = 3


@dataclass(frozen=True, slots=True)
class DataPage:
    """The results one JSON response holds.

    Attributes:
        links: ``(absolute URL, title)`` of each result, in order.
        total: the result count it reports, if any.
        next: the request of the next page where the response names it (absolute), else None.
    """

    links: tuple[tuple[str, str], ...]
    total: int | None
    next: str | None = None


def _url_of(item: Mapping[str, Any]) -> str | None:
    for key in _URL_KEYS:
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return value
    for value in item.values():
        if isinstance(value, str) and (value.startswith(("/", "http://", "https://"))):
            return value
    return None


def _text_of(item: Mapping[str, Any]) -> str:
    for key in _TEXT_KEYS:
        value = item.get(key)
        if isinstance(value, str):
            return value.strip()
    return ""


def _lists(node: Any) -> list[list[Any]]:
    """Every list in a JSON document (depth first)."""
    found: list[list[Any]] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            found.append(item)
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return found


def parse_data_page(body: str | bytes, base_url: str) -> DataPage | None:
    """The results of a JSON response (None when it is not JSON or holds no result list)."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    best: list[tuple[str, str]] | None = None
    for items in _lists(data):
        links = [
            (urljoin(base_url, url), _text_of(item))
            for item in items
            if isinstance(item, dict) and (url := _url_of(item)) is not None
        ]
        if links and len(links) == len(items) and (best is None or len(links) > len(best)):
            best = links
    total = None
    if isinstance(data, dict):
        for key, value in data.items():
            if key.casefold() not in _TOTAL_KEYS or isinstance(value, bool):
                continue
            if isinstance(value, str):  # "93 results", "about 1,200"
                value = reported_count(value)
            if isinstance(value, int) and value >= 0:
                total = value
                break
    following = _named_next(data, base_url)
    if best is None:
        if total == 0 or (isinstance(data, dict) and any(v == [] for v in data.values())):
            return DataPage((), total)
        return None
    return DataPage(tuple(best), total, following)


def _named_next(data: object, base_url: str) -> str | None:
    """The next page's request a JSON response names at its top (``"next": "/api?q=x&page=2"``),
    absolute; None where it names none (or the end: an empty or null value)."""
    if not isinstance(data, dict):
        return None
    for key, value in data.items():
        if not isinstance(value, str) or key.casefold() not in _NEXT_KEYS:
            continue
        if value.startswith(("/", "http://", "https://", "?")):
            return urljoin(base_url, value)
    return None


def _following(page: DataPage, url: str) -> str | None:
    """The request of the page after ``page`` (the answer to ``url``): the one it names, else
    :func:`_next_url`'s."""
    return page.next or _next_url(url, len(page.links))


def _next_url(url: str, shown: int) -> str | None:
    """The request of the next page: the offset advanced by the results shown, or the page
    number by one; None when the request has neither."""
    params = dict(query_pairs(urlsplit(url).query))
    for name in _OFFSET_PARAMS:
        if name in params and params[name].isdigit():
            return with_page_size(url, name, int(params[name]) + shown)
    for name in _PAGE_PARAMS:
        if name in params and params[name].isdigit():
            return with_page_size(url, name, int(params[name]) + 1)
    return None


@dataclass
class DataSearch(QueryBackend):
    """Queries by the JSON data request of a scripted results page, over plain HTTP.

    Args:
        template: the data request's URL with the keyword as a slot.
        fetcher: an entered plain-HTTP fetcher.
        max_pages: data requests per query at most.
        page_size: the page size to ask for (0: leave the request as the page made it).

    In a crawl ``fetcher`` is behind the crawl's gate, which refuses what robots.txt disallows.
    """

    template: UrlTemplate
    fetcher: Fetcher
    max_pages: int = 50
    page_size: int = 0
    size_param: str | None = None

    @classmethod
    def from_result(cls, result: QueryResult, fetcher: Fetcher, **kwargs: Any) -> DataSearch | None:
        """The data search behind a browser query's result, or None when no data request of
        it carried the keyword."""
        for url in result.data_urls:
            template = UrlTemplate.from_url(result.keyword, url)
            if template is not None:
                return cls(template, fetcher, **kwargs)
        return None

    async def _get(self, url: str) -> DataPage | None:
        page = await self.fetcher.fetch(url)
        if page.status >= 400:
            raise FetchError(url, f"HTTP status {page.status}")
        return parse_data_page(page.body or b"", page.final_url or url)

    async def check(self, browser: QueryResult) -> bool:
        """Whether the data request gives the browser's first-page result links for the same
        keyword (compared as :func:`~deepcrawl.search.template.compared` says: a session id
        the server writes into its links is each client's own); settles the page-size
        parameter on the way (a few requests).

        A page that scrolls or loads more as it settles shows several data pages as its
        first: the request's pages are read on, as many as the browser's page requested,
        until they list every link it showed."""
        wanted = compared(link.url for link in browser.result_links if link.page == 1)
        url = self.template.url_for(browser.keyword)
        try:
            first = await self._get(url)
        except FetchError:
            return False
        if first is None or not wanted:
            return False
        listed, page, at = compared(u for u, _t in first.links), first, url
        for _more in range(1, len(browser.data_urls)):
            if wanted <= listed:
                break
            following = _following(page, at)
            if following is None:
                break
            try:
                later = await self._get(following)
            except FetchError:
                return False
            if later is None or not later.links:
                break
            listed |= compared(u for u, _t in later.links)
            page, at = later, following
        if not wanted <= listed:
            return False
        if self.page_size > len(first.links) and (first.total or 0) > len(first.links):
            await self._settle_size(url, len(first.links))
        return True

    async def _settle_size(self, url: str, shown: int) -> None:
        own = page_size_param(url)
        names = [own] if own else list(PAGE_SIZE_PARAMS[:_SIZE_TRIES])
        for name in names:
            try:
                bigger = await self._get(with_page_size(url, name, self.page_size))
            except FetchError:
                continue
            if bigger is not None and len(bigger.links) > shown:
                self.size_param = name
                return

    @property
    def accepts_empty(self) -> bool:
        """False: the empty query is asked in the browser, where the form's own rules (a
        required field, a script) decide what it does."""
        return False

    async def query(
        self,
        keyword: str,
        values: Mapping[str, str] | None = None,
        *,
        max_pages: int | None = None,
        more: Callable[[ResultPage, int], bool] | None = None,
        resume: tuple[str, int] | None = None,
    ) -> QueryResult:
        """Fetch the results of ``keyword`` from the data request, page by page.

        Args:
            keyword: the keyword, put in the request's keyword parameter.
            values: the form's field values the query stands for, recorded in the result and
                not sent: the request was seen carrying what the browser's form sent, under
                parameter names of its own, so it serves those values only (the caller,
                :class:`~deepcrawl.search.form_search.FormSearch`, asks it for no others).
            max_pages: data requests at most (default :attr:`max_pages`).
            more: the paging control, as :meth:`QueryBackend.query
                <deepcrawl.search.backend.QueryBackend.query>` says.
            resume: not used: the request's pages are read from the first.

        Returns:
            The query's result (``via="http"``, one page per data request); failures are
            ``error`` outcomes.
        """
        started = time.monotonic()
        result = QueryResult(keyword=keyword, values=dict(values or {}), method="GET", via="http")
        cap = max_pages or self.max_pages
        url: str | None = self.template.url_for(keyword)
        if self.size_param is not None and url is not None:
            url = with_page_size(url, self.size_param, self.page_size)
        links: dict[str, ResultLink] = {}
        while url is not None and result.pages < cap:
            try:
                data = await self._get(url)
            except FetchError as exc:
                if result.pages == 0:
                    result.outcome, result.error = "error", str(exc)
                    result.cause = cause_of_error(exc)
                else:
                    result.error = f"stopped early: {exc}"
                break
            if data is None:
                result.outcome, result.error = "error", f"no JSON results at {url}"
                result.cause = "error"
                break
            result.pages += 1
            result.submitted.append(url)
            if result.pages == 1:
                result.total_results = data.total
            fresh = [(u, t) for u, t in data.links if u not in links]
            for link_url, text in fresh:
                links[link_url] = ResultLink(url=link_url, text=text, page=result.pages)
            done = data.total is not None and len(links) >= data.total
            following = None if not fresh or done else _following(data, url)
            # the page as a page would show it, for the paging control (which sees every page):
            # its count, and its way on where the list goes on (the request of the next page)
            count = [f"{data.total} results"] if data.total is not None else []
            shown = [Link(u, t) for u, t in data.links]
            if following is not None:
                shown.append(Link(following, "Next", rel="next"))
            page = ResultPage(url=url, blocks=count, links=shown)
            wanted = more is None or more(page, result.pages)
            if following is None or not wanted:
                break
            url = following
        else:  # not ended by the results: by the cap, when a next page was there
            if url is not None and result.pages >= cap:
                result.error = f"{PAGE_CAP_NOTE} ({cap} result pages)"
        result.links = list(links.values())
        if result.outcome == "ok" and not result.links:
            result.outcome, result.cause = "no_results", "no results"
        result.elapsed_s = time.monotonic() - started
        return result
