"""URL templates: querying a form without the browser, once that is shown to be safe.

A GET form's submission is a URL (``/search?q=water&cat=``). After the browser filled the form once,
:meth:`UrlTemplate.from_submission` turns that URL into a template with the keyword as a slot. A
POST form's submission is no URL, but its result page often shows one: the pager's links to the next
pages are GET URLs of the same search (``/search?words=water;page=2``), and
:meth:`UrlTemplate.from_result_page` takes the template from them; :meth:`TemplateSearch.check`
fetches the template's URL for the same keyword over plain HTTP and compares the result links with
the browser's. Only when they are the same links — the results are in the HTML the server sends, not
rendered by a script — are later queries issued by template (:class:`TemplateSearch`), about fifty
times cheaper than a browser submission (docs/ARCHITECTURE.md). Madhavan et al. (VLDB 2008) issue
all their queries this way; they can, we check.

Result pages are judged exactly as the filler's (:class:`~deepcrawl.search.judge.Judge`); only
links and static pagination (next links, page numbers, a next page the response's headers name:
:func:`~deepcrawl.search.pagination.header_next`) are available without a browser, which is
why the check must pass first.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlencode, urlsplit, urlunsplit

from deepcrawl.errors import FetchError
from deepcrawl.page.groups import find_form
from deepcrawl.page.static_forms import parse_forms
from deepcrawl.page.submission import submission_of
from deepcrawl.search.backend import QueryBackend
from deepcrawl.search.causes import cause_of_error
from deepcrawl.search.judge import Judge, classify_links
from deepcrawl.search.pagination import PAGE_PARAMS, brings_new_links, header_next, next_page
from deepcrawl.search.results import QueryResult, ResultPage, page_from_fetched
from deepcrawl.urls import normalise_urls, query_pairs

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.page.form import Form

__all__ = ["TemplateCheck", "TemplateSearch", "UrlTemplate", "carries", "compared"]

Trigger = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class UrlTemplate:
    """A GET form's results URL with the keyword as a slot.

    Attributes:
        base: scheme, host and path of the results URL.
        params: its query parameters in order, the keyword parameter's value left empty.
        keyword_param: the parameter that carries the keyword.
        bare_empty: the empty query's URL leaves the keyword parameter out (the site's own
            did: its script dropped the empty field, or the server redirected to a URL
            without it, and may refuse one with it).
    """

    base: str
    params: tuple[tuple[str, str], ...]
    keyword_param: str
    bare_empty: bool = False

    @classmethod
    def from_submission(
        cls, form: Form, keyword: str, url: str, query_field: str | None = None
    ) -> UrlTemplate | None:
        """The template behind ``url``, the first result page a GET submission of ``keyword``
        reached; None when the form is not a GET form or the URL does not carry the keyword.
        """
        if form.method != "GET":
            return None
        return cls.from_url(keyword, url, query_field)

    @classmethod
    def from_url(cls, keyword: str, url: str, query_field: str | None = None) -> UrlTemplate | None:
        """The template of any GET URL that carries ``keyword`` as a parameter value (a results
        page, or the data request a scripted results page made); None when none does."""
        if not keyword.strip():
            return None
        parts = urlsplit(url)
        params = _query_pairs(parts.query)
        names = [n for n, v in params if v.strip().casefold() == keyword.strip().casefold()]
        if not names:
            return None
        name = query_field if query_field in names else names[0]
        base = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
        kept = tuple((n, "" if n == name else v) for n, v in params)
        return cls(base=base, params=kept, keyword_param=name)

    @classmethod
    def from_empty(cls, form: Form, url: str, query_field: str | None) -> UrlTemplate | None:
        """The template behind ``url``, the first result page a GET submission of the empty
        query reached: the form's query field is the slot, wherever the form puts it — the
        browser sent it empty, or the form's script dropped it (``?sort=id`` for ``?q=&sort=id``).
        None when the form is not a GET form, its query field is not known, or ``url`` is not
        its action's or carries a word in that field.

        The empty query is where a site lists every record; a template of it reads that list
        over plain HTTP once :meth:`TemplateSearch.check` found its first page the browser's.
        """
        if form.method != "GET" or not query_field:
            return None
        parts, action = urlsplit(url), urlsplit(form.action)
        if (parts.netloc, parts.path) != (action.netloc, action.path):
            return None
        params = _query_pairs(parts.query)
        if any(n == query_field and v.strip() for n, v in params):
            return None
        bare = all(n != query_field for n, _ in params)
        order = {f.name: i for i, f in reversed(list(enumerate(form.fields))) if f.name}
        kept = [(n, v) for n, v in params if n != query_field]
        # in the form's own order (a server may read its parameters positionally)
        ordered = sorted([(query_field, ""), *kept], key=lambda p: order.get(p[0], len(order)))
        base = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
        return cls(base=base, params=tuple(ordered), keyword_param=query_field, bare_empty=bare)

    @classmethod
    def from_result_page(
        cls, form: Form, keyword: str, links: Iterable[str], query_field: str | None = None
    ) -> UrlTemplate | None:
        """The template a result page of ``keyword`` shows in its own links: a GET link to the
        form's action that carries the keyword (a pager's "page 2"), its page parameter dropped
        so that it asks for the first page; None when no link does.

        What a POST form's submission never gives (its URL carries no query); the template is
        trusted only once :meth:`TemplateSearch.check` found its first page equal to the
        browser's.
        """
        action = urlsplit(form.action)
        for url in links:
            parts = urlsplit(url)
            if (parts.scheme, parts.netloc, parts.path) != (
                action.scheme,
                action.netloc,
                action.path,
            ):
                continue
            template = cls.from_url(keyword, url, query_field)
            if template is not None:
                params = tuple((n, v) for n, v in template.params if n.lower() not in PAGE_PARAMS)
                return cls(template.base, params, template.keyword_param)
        return None

    def url_for(self, keyword: str, values: Mapping[str, str] | None = None) -> str:
        """The results URL of ``keyword``, with ``values`` replacing (or adding) parameters."""
        extra = dict(values or {})
        bare = self.bare_empty and not keyword.strip()
        out = [
            (n, keyword if n == self.keyword_param else extra.pop(n, v))
            for n, v in self.params
            if not (bare and n == self.keyword_param)
        ]
        out.extend(extra.items())
        return f"{self.base}?{urlencode(out)}"


def _query_pairs(query: str) -> list[tuple[str, str]]:
    """A query string's parameters in order; ``;`` separates them where ``&`` never does
    (``words=tea;page=2``, as older CGI programs write their links)."""
    return query_pairs(query)


def compared(urls: Iterable[str]) -> frozenset[str]:
    """Result links as a check compares the browser's with plain HTTP's: by their normal form,
    session ids dropped. The two are two clients, and a server that writes its session into
    its links gives each its own (:func:`~deepcrawl.urls.normalise_url`)."""
    return frozenset(url for url in normalise_urls(urls) if isinstance(url, str))


@dataclass(frozen=True, slots=True)
class TemplateCheck:
    """Whether plain HTTP gives the browser's result links for one keyword.

    Attributes:
        passed: the two sets of result links are equal (and not empty).
        browser: the browser's result URLs on the first page.
        http: plain HTTP's result URLs on the first page.
        url: the URL fetched.
        error: why the fetch failed, if it did (an error status: the server refused it).
    """

    passed: bool
    browser: frozenset[str]
    http: frozenset[str]
    url: str
    error: str | None = None


@dataclass
class TemplateSearch(QueryBackend):
    """Queries by URL template over a plain-HTTP fetcher.

    Args:
        template: the template.
        fetcher: an entered fetcher (the plain-HTTP one).
        max_pages: result pages read per query at most.
        form: the form the template came from (recorded in results).
        nonsense_keyword: submitted once before the first query, when ``judge`` has no
            baseline yet, to learn the "no results" page (empty: never).
        judge: the chrome and baseline to judge pages by — share the filler's (both fetchers
            report the same DOM paths, and the check showed they see the same page).
    """

    template: UrlTemplate
    fetcher: Fetcher
    max_pages: int = 50
    form: Form | None = None
    nonsense_keyword: str = ""
    judge: Judge = field(default_factory=Judge)
    _checked: dict[str, FetchedPage] = field(default_factory=dict, repr=False)
    """The page the latest check fetched, by URL: the next query of its keyword starts there
    instead of fetching it again."""

    async def check(self, browser: QueryResult, *, superset: bool = False) -> TemplateCheck:
        """Compare the template's first page for ``browser.keyword`` with the browser's (one
        request; its page starts the keyword's next query).

        Args:
            browser: the browser's result of the same keyword.
            superset: pass when plain HTTP lists the browser's links and perhaps more (a
                template asking for a larger page), not only exactly those.
        """
        url = self.template.url_for(browser.keyword, browser.values)
        wanted = frozenset(link.url for link in browser.result_links if link.page == 1)
        try:
            fetched = await self.fetcher.fetch(url)
        except FetchError as exc:
            return TemplateCheck(False, wanted, frozenset(), url, str(exc))
        self._checked = {url: fetched}
        page = page_from_fetched(fetched)
        links = classify_links([page], self.judge.chrome)
        got = frozenset(link.url for link in links if link.role == "result")
        got -= self._adopt_chrome(browser, page, got - wanted)
        same = compared(wanted) <= compared(got) if superset else compared(got) == compared(wanted)
        refused = f"HTTP status {fetched.status}" if fetched.status >= 400 else None
        return TemplateCheck(bool(wanted) and same and not refused, wanted, got, url, refused)

    def _turned(self, fetched: FetchedPage, trigger: Trigger, visited: set[str]) -> str:
        """The next page's URL where a GET form's own button turns the page; empty when the
        form is not on the page, or the URL was read."""
        url = _get_turn(self.form, fetched, trigger)
        return "" if url in visited else url

    def _adopt_chrome(
        self, browser: QueryResult, page: ResultPage, extra: frozenset[str]
    ) -> set[str]:
        """The links plain HTTP alone calls results that the browser's page called chrome.

        Chrome is keyed by DOM path, and two HTML parsers repair invalid markup differently
        (a stray ``<td>`` kept by one, dropped by the other), so a menu link can sit at another
        path over plain HTTP. The browser's roles are the reference: such a link's plain-HTTP
        key is learnt as chrome, so the template's later pages judge it as the browser did.
        Only when every extra link is one of them; otherwise the pages differ and the check
        fails.
        """
        chrome = {link.url for link in browser.links if link.page == 1 and link.role == "chrome"}
        if not extra or not extra <= chrome:
            return set()
        self.judge.chrome.learn_baseline([link for link in page.links if link.url in extra])
        return set(extra)

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
        """Fetch the results of ``keyword`` by template and follow their static pagination.

        ``more`` is asked after each result page whether the next is worth fetching (as
        :meth:`FormFiller.query <deepcrawl.search.filler.FormFiller.query>`). With ``resume``
        (a later page's URL carrying the keyword, and its number) the reading starts there:
        the list's earlier pages were read before.

        Returns:
            The query's result (``via="http"``); failures are ``error`` outcomes.
        """
        checked, self._checked = self._checked, {}
        if self.judge.baseline is None and self.nonsense_keyword:
            base_pages, failed = await self._fetch_pages(self.nonsense_keyword, None, 1)
            error = None if failed is None else str(failed)
            self.judge.learn_baseline(
                self.nonsense_keyword, base_pages[0] if base_pages else None, set(), error
            )
        cap = max_pages or self.max_pages
        start = resume if resume is not None and carries(resume[0], keyword) else None
        if start is not None:
            cap = max(1, cap - start[1] + 1)
        started = time.monotonic()
        result = QueryResult(
            keyword=keyword,
            values=dict(values or {}),
            form_locator=self.form.locator if self.form else "",
            form_action=self.form.action if self.form else self.template.base,
            method="GET",
            via="http",
        )
        pages, failed = await self._fetch_pages(keyword, values, cap, more, checked, start=start)
        result.first_page = start[1] if start is not None else 1
        result.elapsed_s = time.monotonic() - started
        if not pages:
            assert failed is not None  # no page without a failure
            result.outcome, result.error, result.cause = (
                "error",
                str(failed),
                cause_of_error(failed),
            )
            return result
        self.judge.judge(result, pages, cap)
        if failed is not None and result.outcome == "ok":
            result.error = f"stopped early: {failed}"
        return result

    async def _fetch_pages(
        self,
        keyword: str,
        values: Mapping[str, str] | None,
        cap: int,
        more: Callable[[ResultPage, int], bool] | None = None,
        checked: dict[str, FetchedPage] | None = None,
        *,
        start: tuple[str, int] | None = None,
    ) -> tuple[list[ResultPage], FetchError | None]:
        """The pages read, and the failure that ended the reading (None: none did)."""
        url, before = self.template.url_for(keyword, values), 0
        if start is not None:  # a later page of a list read before (its pages are not counted)
            url, before = start[0], start[1] - 1
        checked = checked or {}
        pages: list[ResultPage] = []
        visited: set[str] = set()
        while url and len(pages) < cap:
            fetched = checked.pop(url, None)  # a check's page was paid for already
            try:
                if fetched is None:
                    fetched = await self.fetcher.fetch(url)
            except FetchError as exc:
                return pages, exc
            page = page_from_fetched(fetched, form=self.form)
            page.fetched_url = url
            pages.append(page)
            visited.update({url, page.url})
            if len(pages) == 1 and not self.judge.has_results(page, keyword):
                break
            if len(pages) > 1 and not brings_new_links(pages):
                break
            if more is not None and not more(page, before + len(pages)):
                break
            turn = next_page(page, before + len(pages), visited)
            url = turn.url if turn is not None and turn.kind == "link" else ""
            if turn is not None and turn.kind == "submit":
                url = self._turned(fetched, turn.trigger, visited)
            if turn is None:  # a feed's next page named by its headers, not its body
                url = header_next(fetched.headers, fetched.final_url or url)
                url = "" if url in visited else url
        return pages, None


def _get_turn(form: Form | None, fetched: FetchedPage, trigger: Trigger) -> str:
    """The URL a GET form's page turn asks for: the form as ``fetched`` shows it, submitted
    by the turn's control (a "Next" button of the result form); empty when there is none."""
    if form is None or form.method != "GET":
        return ""
    found = parse_forms(fetched.body, fetched.final_url or fetched.url, formless=False)
    shown = find_form(found, form)
    return submission_of(shown, trigger=trigger).as_url() if shown is not None else ""


def carries(url: str, keyword: str) -> bool:
    """Whether one of ``url``'s query parameters is ``keyword`` (case and spaces aside)."""
    wanted = keyword.strip().casefold()
    params = query_pairs(urlsplit(url).query)
    return bool(wanted) and any(v.strip().casefold() == wanted for _n, v in params)
