"""Querying a site's search form the cheapest way that is shown to work.

This is the entry point of the "Deep Web Access" role (Hernández et al.) for its callers — the
crawl's query loop (:mod:`deepcrawl.querying`), the setup phase of a crawl, ``deepcrawl query`` —
once :mod:`~deepcrawl.search.form_choice` has found the form:

* :class:`FormSearch` queries one form: through the browser (:class:`FormFiller`) until a GET
  form's results are shown to be the same over plain HTTP, then by URL template
  (:class:`TemplateSearch`); it can tell which category selects are worth enumerating
  (Madhavan et al., VLDB 2008: only fields whose values give different results);
* a scripted results page (a shell its script fills from a JSON request) is queried by that
  request over plain HTTP once it is shown to give the browser's links
  (:class:`~deepcrawl.search.data_api.DataSearch`);
* a POST form with neither (a page-wide form's search group, paged by its own buttons or
  postback links) is queried by replaying its submissions over plain HTTP once its first page
  is shown to be the browser's (:class:`~deepcrawl.search.replay.FormReplay`);
* :func:`query_page` is ``deepcrawl query``: one keyword, every result page, in one call.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from deepcrawl._resource import AsyncResource
from deepcrawl.browser.access import check_user_url
from deepcrawl.browser.http import HttpFetcher
from deepcrawl.browser.pool import BrowserPool
from deepcrawl.browser.scope import Scope, host_of
from deepcrawl.safety import SafetyRule
from deepcrawl.search.backend import QueryBackend
from deepcrawl.search.data_api import DataSearch
from deepcrawl.search.filler import FormFiller
from deepcrawl.search.form_choice import find_search_form
from deepcrawl.search.judge import NONSENSE_KEYWORD, without_chrome
from deepcrawl.search.page_size import DATA_PAGE_SIZE, offered_page_size
from deepcrawl.search.replay import FormReplay
from deepcrawl.search.template import TemplateCheck, TemplateSearch, UrlTemplate

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.fetch.gate import Gate
    from deepcrawl.forms.critic import CriticVerdict
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.page.form import Form
    from deepcrawl.search.results import QueryResult, ResultPage
    from deepcrawl.settings import Settings

__all__ = ["FormSearch", "query_page"]

#: Queries with results whose first page is put to the plain-HTTP paths (a template, the page's
#: data request, a replayed submission) before the browser serves the rest: a script's data
#: request may go out after the page looked settled, and a first trial miss it (or see it, and
#: its check miss its answer). A trial whose plain-HTTP request the server refused settles it.
PLAIN_TRIALS = 3

logger = logging.getLogger(__name__)

#: Madhavan et al.'s distinctness threshold: a field is informative when at least this share of
#: its sampled values give result pages no other value gave.
INFORMATIVE_SHARE = 0.25


class FormSearch(AsyncResource, QueryBackend):
    """Queries one form, by browser first and by URL template once that is shown equivalent.

    A :class:`~deepcrawl.search.backend.QueryBackend` over the three others, picked query by
    query. An async context manager (it owns a plain-HTTP fetcher, limited to the hosts of the
    form's page and action, unless given one).

    Args:
        pool: an entered browser pool (in a crawl, behind the crawl's gate).
        form: the form.
        verdict: the critic's verdict on it.
        settings: deepcrawl settings.
        http: an entered plain-HTTP fetcher to share.
        gate: the crawl's gate, which the plain-HTTP requests pass (scope, robots.txt, the
            host's rate slot, the count; the safety rule vouched: they are the form's own
            submissions and result pages); None: outside a crawl, sent as they are.
        held: the form's page as the crawl fetched it already (the input check's start page):
            a POST form's replay submits from its state rather than fetch the page again.
        templates: send later queries over plain HTTP (a GET form's URL template, a POST
            form's replayed submission, a data request) once a check shows they give the
            browser's result links; off, every query goes through the browser.

    Raises:
        UnsafeFormError: the critic or the safety policy refuses the form.
    """

    def __init__(
        self,
        pool: BrowserPool,
        form: Form,
        verdict: CriticVerdict,
        settings: Settings,
        *,
        http: Fetcher | None = None,
        gate: Gate | None = None,
        held: FetchedPage | None = None,
        templates: bool = True,
    ) -> None:
        self.filler = FormFiller(pool, form, verdict, settings)
        self.templates = templates
        self.gate = gate
        self.held = held
        self.data: DataSearch | None = None
        self.replay: FormReplay | None = None
        self.settings = settings
        self.template: TemplateSearch | None = None
        self.empty: TemplateSearch | None = None
        """The empty query's list over plain HTTP (:meth:`_query_empty`)."""
        self.check: TemplateCheck | None = None
        self._http = http
        self._own_http: HttpFetcher | None = None
        self._trials = 0
        """Queries whose first page was put to the plain-HTTP paths (:data:`PLAIN_TRIALS`)."""
        self._tried_empty = False

    async def open(self) -> None:
        """Start the plain-HTTP fetcher, unless one was given; put it behind the gate."""
        if self._http is None:
            form = self.filler.form
            scope = Scope((host_of(form.page_url), host_of(form.action)), implicit=False)
            self._own_http = HttpFetcher(self.settings, scope, forms=False)
            self._http = await self._own_http.__aenter__()
        if self.gate is not None:
            self._http = self.gate.wrap(self._http, vouched=_the_forms_own)

    async def close(self) -> None:
        """Stop the plain-HTTP fetcher this search started."""
        if self._own_http is not None:
            await self._own_http.close()

    @property
    def partitions(self) -> Mapping[str, Sequence[str]]:
        """The category fields' values (:meth:`FormFiller.category_options
        <deepcrawl.search.filler.FormFiller.category_options>`: the critic's category fields,
        the "all" value and the fields the user fixed left out) and the sort selects' orders,
        less every field and value whose name or label the safety rule refuses: a select of
        actions ("delete", "report") is no way to narrow a list."""
        rule = SafetyRule(self.settings.forms.refused_words)
        form, fixed = self.filler.form, self.filler.fixed
        labels = {
            (field.name, option.value): option.text
            for field in form.fields
            for option in field.options
        }
        sorts = {
            field.name: [o.value for o in field.options if o.value.strip()]
            for field in form.fields
            if field.name in self.filler.verdict.sort_fields and field.name not in fixed
        }
        out: dict[str, list[str]] = {}
        for name, values in {**self.filler.category_options(), **sorts}.items():
            if rule.text_reason(name):
                continue
            kept = [
                value
                for value in values
                if not rule.text_reason(f"{value} {labels.get((name, value), '')}")
            ]
            if kept:
                out[name] = kept
        return out

    @property
    def accepts_empty(self) -> bool:
        """Whether the empty query may be submitted: a form that takes it
        (:attr:`FormFiller.accepts_empty <deepcrawl.search.filler.FormFiller.accepts_empty>`),
        or a box searched as one types (where typing nothing shows nothing) once a plain-HTTP
        path is known to give its lists — a URL template, a data request: the empty query is
        that request with no keyword, whatever it answers (the judge reads it)."""
        if self.filler.accepts_empty:
            return True
        known = self.template is not None or self.data is not None
        return known and not self.filler.query_required

    async def query(
        self,
        keyword: str,
        values: Mapping[str, str] | None = None,
        *,
        max_pages: int | None = None,
        more: Callable[[ResultPage, int], bool] | None = None,
        resume: tuple[str, int] | None = None,
    ) -> QueryResult:
        """Submit ``keyword`` (``values`` for category fields, on top of the fixed values of
        ``forms.fields``) and read its result pages.

        ``more``, asked after each result page (and its number), stops the paging when it
        returns False: the crawl reads no page it expects to bring nothing new. It is shown
        each page without the links known as the site's chrome: the paging control counts a
        list's records from its links, and a navigation that lists every record (a
        documentation site's sidebar) would read as a list holding them all. ``resume`` (a
        later page of the list, read before up to it) is where a URL template starts; the
        browser and a data request start from the first page.

        Returns:
            The result; ``via`` tells which path served it.
        """
        ask = None if more is None else without_chrome(more, self.filler.judge.chrome)
        return await self._query(keyword, values, max_pages=max_pages, more=ask, resume=resume)

    async def _query(
        self,
        keyword: str,
        values: Mapping[str, str] | None,
        *,
        max_pages: int | None,
        more: Callable[[ResultPage, int], bool] | None,
        resume: tuple[str, int] | None = None,
    ) -> QueryResult:
        fixed = self.filler.fixed
        values = {**fixed, **(values or {})}
        if self.data is not None and values == fixed:
            # the data request was seen carrying what the browser sent, fixed values included
            data = await self.data.query(keyword, fixed, max_pages=max_pages, more=more)
            if data.outcome != "error":
                return data
            self.data = None  # plain HTTP failed: back to the browser for good
        if self.template is not None:
            quick = await self.template.query(
                keyword, values, max_pages=max_pages, more=more, resume=resume
            )
            if quick.outcome != "error":
                return quick
            # Plain HTTP failed: ask the browser, and trust the template no more if it works.
            result = await self.filler.query(keyword, values, max_pages=max_pages, more=more)
            if result.outcome != "error":
                self.template = None
            return result
        if self.replay is not None:
            quick = await self.replay.query(keyword, values, max_pages=max_pages, more=more)
            if quick.outcome != "error":
                return quick
            result = await self.filler.query(keyword, values, max_pages=max_pages, more=more)
            if result.outcome != "error":
                self.replay = None
            return result
        if not keyword.strip() and max_pages != 1:
            return await self._query_empty(keyword, values, max_pages=max_pages, more=more)
        if self._trials >= PLAIN_TRIALS or not keyword.strip():
            return await self.filler.query(keyword, values, max_pages=max_pages, more=more)
        # The first queries with results: the first page only, by browser, to learn whether a
        # plain-HTTP path gives the same; its other pages then come the cheapest way. A query
        # of one page is tried too: the lists the setup phase cuts at their first page are
        # read on later, each from its second page, and the trial would cost a render then.
        first = await self.filler.query(keyword, values, max_pages=1)
        if first.outcome != "ok" or not first.submitted:
            return first
        self._trials += 1
        await self._try_template(first)
        if self.template is None:
            await self._try_data(first)
        if self.template is None and self.data is None:
            await self._try_replay(first)
        if self.check is not None and self.check.error is not None:
            self._trials = PLAIN_TRIALS  # plain HTTP refused: no later trial will differ
        if self.template is None and self.data is None and self.replay is None:
            logger.info(
                "no plain-HTTP path to the results of %r (%d data requests seen); trial %d of %d",
                keyword, len(first.data_urls), self._trials, PLAIN_TRIALS,
            )  # fmt: skip
        if max_pages == 1 or (more is not None and not more(_first_page(first), 1)):
            return first
        return await self._query(keyword, values, max_pages=max_pages, more=more, resume=resume)

    async def _query_empty(
        self,
        keyword: str,
        values: Mapping[str, str],
        *,
        max_pages: int | None,
        more: Callable[[ResultPage, int], bool] | None,
    ) -> QueryResult:
        """The empty query, its first page by browser; its other pages over plain HTTP by a
        template of that page's URL (:meth:`UrlTemplate.from_empty`) once plain HTTP gives the
        same first page, else by browser.

        A site's list of every record is its longest: read in the browser, each of its pages
        costs a render where a fetch would do. The template serves this list only; a keyword's
        template is learnt from its own submission (:meth:`_try_template`).
        """
        if self.empty is None and not self._tried_empty:
            self._tried_empty = True
            first = await self.filler.query(keyword, values, max_pages=1)
            if first.outcome != "ok" or not first.submitted:
                return first
            self.empty = await self._empty_template(first)
            if more is not None and not more(_first_page(first), 1):
                return first
        if self.empty is not None:
            result = await self.empty.query(keyword, values, max_pages=max_pages, more=more)
            if result.outcome != "error":
                return result
            self.empty = None  # plain HTTP failed: back to the browser for good
        return await self.filler.query(keyword, values, max_pages=max_pages, more=more)

    async def _empty_template(self, result: QueryResult) -> TemplateSearch | None:
        """A plain-HTTP search of the empty query's list, checked against the browser's first
        page (:meth:`_query_empty`); None where there is none."""
        if not self.templates or self._http is None:
            return None
        form = self.filler.form
        template = UrlTemplate.from_empty(form, result.submitted[0], self.filler.query_field)
        if template is None:
            return None
        candidate = TemplateSearch(
            template,
            self._http,
            max_pages=self.settings.querying.max_result_pages,
            form=form,
            judge=self.filler.judge,
        )
        return candidate if (await candidate.check(result)).passed else None

    async def _try_data(self, result: QueryResult) -> None:
        if not self.templates or self._http is None or not result.data_urls:
            return
        candidate = DataSearch.from_result(
            result,
            self._http,
            max_pages=self.settings.querying.max_result_pages,
            page_size=DATA_PAGE_SIZE,
        )
        if candidate is not None and await candidate.check(result):
            self.data = candidate

    async def _try_replay(self, result: QueryResult) -> None:
        """Query a POST form by replaying its submissions over plain HTTP
        (:class:`~deepcrawl.search.replay.FormReplay`), once its first page is the browser's."""
        form = self.filler.form
        if not self.templates or self._http is None or form.method != "POST":
            return
        candidate = FormReplay(
            form,
            self._http,
            self.filler.query_field,
            max_pages=self.settings.querying.max_result_pages,
            judge=self.filler.judge,
            rule=SafetyRule(self.settings.forms.refused_words),
            page=self.held,
        )
        self.held = None  # given once: a later look at the page asks the server
        if (await candidate.check(result)).passed:
            self.replay = candidate

    async def _try_template(self, result: QueryResult) -> None:
        form = self.filler.form
        if not self.templates or self._http is None:
            return
        template = UrlTemplate.from_submission(
            form, result.keyword, result.submitted[0], self.filler.query_field
        ) or UrlTemplate.from_result_page(
            form,
            result.keyword,
            (link.url for link in result.links if link.page == 1),
            self.filler.query_field,
        )
        if template is None:
            return
        candidate = TemplateSearch(
            template,
            self._http,
            max_pages=self.settings.querying.max_result_pages,
            form=form,
            nonsense_keyword=NONSENSE_KEYWORD,
            judge=self.filler.judge,
        )
        self.check = await candidate.check(result)
        if self.check.passed:
            self.template = candidate
            await self._try_page_size(result, candidate)

    async def _try_page_size(self, result: QueryResult, template: TemplateSearch) -> None:
        """Query by the largest page size the first result page offers (its "show 20 | 50 |
        100" links), once plain HTTP at that size lists every result the browser's page did:
        each result page is a request, whatever it holds."""
        urls = [link.url for link in result.links if link.page == 1]
        offer = offered_page_size(urls, result.keyword)
        if offer is None:
            return
        sized = UrlTemplate.from_url(result.keyword, offer[1], self.filler.query_field)
        if sized is None or sized == template.template:
            return
        candidate = replace(template, template=sized)
        if (await candidate.check(result, superset=True)).passed:
            self.template = candidate

    async def category_informativeness(self, keyword: str, *, sample: int = 4) -> dict[str, float]:
        """How informative each category field is for ``keyword`` (Madhavan et al.).

        Submits ``keyword`` with up to ``sample`` values of each category field (first result
        page only) and scores the field by the share of values whose results no other value
        gave. A field scoring at least :data:`INFORMATIVE_SHARE` is worth enumerating.

        Returns:
            Score in [0, 1] by field name.
        """
        scores: dict[str, float] = {}
        for name, options in self.filler.category_options().items():
            chosen = options[:sample]
            seen: list[frozenset[str]] = []
            for value in chosen:
                result = await self.query(keyword, {name: value}, max_pages=1)
                seen.append(frozenset(result.result_urls))
            distinct = sum(1 for s in seen if s and seen.count(s) == 1)
            scores[name] = distinct / len(chosen) if chosen else 0.0
        return scores


def _the_forms_own(_url: str) -> bool:
    """The search's plain-HTTP requests: the form's submissions and result pages, by the URL
    template or data request the browser's submission showed."""
    return True


def _first_page(result: QueryResult) -> ResultPage:
    """The first result page of ``result`` as the paging control sees it (its result links)."""
    from deepcrawl.page.fetched import Link
    from deepcrawl.search.results import ResultPage

    links = [Link(link.url, link.text) for link in result.result_links if link.page == 1]
    return ResultPage(url=result.submitted[0], links=links)


async def query_page(
    url: str, keyword: str, settings: Settings
) -> tuple[Form, CriticVerdict, QueryResult]:
    """Find the search form on the page at ``url``, submit ``keyword``, read every result page.

    The pages' requests pass a gate of their own — the safety rule, the host's rate — which
    counts what the query cost (``QueryResult.requests``); robots.txt is not read: the user
    asks for this one query.

    Raises:
        InvalidURLError: ``url`` fails :func:`~deepcrawl.browser.scope.check_url`.
        FetchError: the page cannot be fetched.
        FormError: it has no searchable form.
        BrowserError: Chromium cannot be started.
    """
    from deepcrawl.fetch.gate import Count, Gate
    from deepcrawl.fetch.politeness import HostLimiter
    from deepcrawl.fetch.robots import RobotsPolicy

    url, settings = check_user_url(settings, url)  # as every command does
    politeness = settings.politeness
    robots = RobotsPolicy(settings.http.user_agent, obey=False)
    gate = Gate(politeness, robots, HostLimiter(politeness), lambda _url: True)
    sent = Count()
    async with BrowserPool(settings, gate=gate) as pool:
        form, verdict = await find_search_form(url, settings, pool)
        filler = FormFiller(pool, form, verdict, settings)
        pool.gate = gate.counting(sent)  # the query's requests, the form's page aside
        result = await filler.query(keyword)
    result.requests = sent.requests
    return form, verdict, result
