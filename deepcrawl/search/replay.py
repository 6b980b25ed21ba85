"""Replaying a POST form's submissions over plain HTTP, once that is shown to give the same.

A POST form has no URL to make a template of, and a page-wide form (one ``<form>`` holding a
search group beside others) pages its results by submitting itself again: a button of the
result form, or a link whose script fills hidden fields and submits. Each of those is a
submission a browser builds from the page it shows — every field's current value, the page's
hidden state, the one control pressed (:func:`~deepcrawl.page.submission.submission_of`) — and
:class:`FormReplay` builds the same from the HTML of the latest page showing the form, without
the browser:

1. the search: the group's fields as the latest page shows them, the keyword in the query
   field, the group's own button pressed;
2. each next page: the turn :func:`~deepcrawl.search.pagination.next_page` picks on the page
   just read, submitted with that page's state (a framework refuses a state it did not render),
   or fetched where it is a link;
3. the latest page's state serves the next query: a search costs one request. A submission
   the server refuses (an error status: a state that expired) is sent again once, from the
   form's page fetched afresh.

The first search starts from the form's page the crawl holds already (``page``: the start page
as the input check fetched it, which the browser rendered for the form finder): a page the
crawl has is not asked for again. Its state came to another client (no cookie of its answer is
in this one), so a check that finds no result at all from it is tried once more from the page
fetched afresh (a list that differs is the plain-HTTP path's, not the state's).

Every submission passes the crawl's gate (:meth:`Gate.submission_refusal
<deepcrawl.fetch.gate.Gate.submission_refusal>`), which refuses another group's button.
:meth:`FormReplay.check` compares the first page with the browser's before any query is trusted
to it, as :class:`~deepcrawl.search.template.TemplateSearch` does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from deepcrawl.browser.scope import strip_fragment
from deepcrawl.errors import FetchError
from deepcrawl.page.groups import find_form
from deepcrawl.page.static_forms import parse_forms
from deepcrawl.page.submission import Submission, submission_of
from deepcrawl.safety import SafetyRule
from deepcrawl.search.backend import QueryBackend
from deepcrawl.search.causes import cause_of_error
from deepcrawl.search.judge import Judge, classify_links
from deepcrawl.search.page_size import page_size_choice
from deepcrawl.search.pagination import brings_new_links, next_page
from deepcrawl.search.results import QueryResult, ResultPage, page_from_fetched
from deepcrawl.search.template import TemplateCheck, compared

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.page.form import Form

__all__ = ["FormReplay", "form_on"]


@dataclass
class FormReplay(QueryBackend):
    """Queries one POST form (or one group of a page-wide form) by replaying its submissions.

    Args:
        form: the form as the browser found it (its ``group`` finds it again on later pages).
        fetcher: an entered plain-HTTP fetcher (behind the crawl's gate in a crawl).
        query_field: the field the keyword goes into.
        max_pages: result pages read per query at most.
        judge: the chrome and baseline to judge pages by (the filler's).
        rule: the safety rule, which leaves another group's buttons out of a page's turns.
        page: the form's page as the crawl holds it (None: fetched when first needed); taken
            only where it is the form's page and shows the form.
        largest_page_size: set the form's "results per page" selects to their largest value,
            as the browser's filler does.
    """

    form: Form
    fetcher: Fetcher
    query_field: str | None
    max_pages: int = 50
    judge: Judge = field(default_factory=Judge)
    rule: SafetyRule = field(default_factory=SafetyRule)
    page: FetchedPage | None = field(default=None, repr=False)
    largest_page_size: bool = True
    _state: FetchedPage | None = field(default=None, init=False, repr=False)
    """The latest page showing the form: its fields' values and hidden state."""
    _checked: tuple[str, FetchedPage] | None = field(default=None, repr=False)
    """The check's first page, and its keyword: that keyword's next query starts there."""
    _cut: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[int, FetchedPage]] = field(
        default_factory=dict, repr=False
    )
    """Lists the page cap stopped, by keyword and values: the number of their last page read
    and that page (its state turns to the next)."""

    def __post_init__(self) -> None:
        held, self.page = self.page, None
        if held is not None and _is_page_of(held, self.form) and self._find(held) is not None:
            self._state = held

    @property
    def accepts_empty(self) -> bool:
        """False: the empty query is asked in the browser."""
        return False

    async def check(self, browser: QueryResult) -> TemplateCheck:
        """Submit ``browser.keyword`` over plain HTTP and compare the first page's result links
        with the browser's (one or two requests; its page starts the keyword's next query)."""
        wanted = frozenset(link.url for link in browser.result_links if link.page == 1)
        held = self._state is not None  # the crawl's copy of the form's page, not this client's
        try:
            fetched, form = await self._search(browser.keyword, browser.values)
            got = self._results(fetched, form)
            if held and wanted and not got:  # no results: the state may be another client's
                self._state = None  # once more from the form's page as this client gets it
                fetched, form = await self._search(browser.keyword, browser.values)
                got = self._results(fetched, form)
        except FetchError as exc:
            return TemplateCheck(False, wanted, frozenset(), self.form.action, str(exc))
        self._checked = (browser.keyword, fetched)
        passed = bool(wanted) and compared(got) == compared(wanted) and fetched.status < 400
        return TemplateCheck(passed, wanted, got, self.form.action)

    def _results(self, fetched: FetchedPage, form: Form) -> frozenset[str]:
        """The result links of a first page, as the check compares them."""
        page = page_from_fetched(fetched, form=form, rule=self.rule)
        return frozenset(
            link.url for link in classify_links([page], self.judge.chrome) if link.role == "result"
        )

    async def query(
        self,
        keyword: str,
        values: Mapping[str, str] | None = None,
        *,
        max_pages: int | None = None,
        more: Callable[[ResultPage, int], bool] | None = None,
        resume: tuple[str, int] | None = None,
    ) -> QueryResult:
        """Submit ``keyword`` (``values`` for other fields) and follow the result pages' turns
        while ``more`` asks for them (with each page's number in its list).

        A list an earlier query of the same keyword and values left at its page cap is read
        on from the page after its last one read: from ``resume`` (a later page's URL and its
        number) where its pages are links, else turned from the state of its last page read
        (a list whose pages are submissions has no URL): every page read again is a request
        that brings nothing.

        Returns:
            The query's result (``via="http"``; ``first_page`` past 1 for a list read on);
            failures are ``error`` outcomes.
        """
        cap = max_pages or self.max_pages
        started = time.monotonic()
        result = QueryResult(
            keyword=keyword,
            values=dict(values or {}),
            form_locator=self.form.locator,
            form_action=self.form.action,
            method="POST",
            via="http",
        )
        key = (keyword, tuple(sorted((values or {}).items())))
        pages, before, failed = await self._pages(key, cap, more, resume)
        result.first_page = before + 1
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

    async def _pages(
        self,
        key: tuple[str, tuple[tuple[str, str], ...]],
        cap: int,
        more: Callable[[ResultPage, int], bool] | None,
        resume: tuple[str, int] | None = None,
    ) -> tuple[list[ResultPage], int, FetchError | None]:
        """The pages read, the number of the list's pages read before them, and the failure
        that ended the reading (None: none did)."""
        keyword, values = key[0], dict(key[1])
        checked, self._checked = self._checked, None
        before, form = 0, None
        try:
            if resume is not None:  # a later page of a list paged by links
                before = resume[1] - 1
                fetched = await self.fetcher.fetch(resume[0])
            elif (cut := self._cut.pop(key, None)) is not None:
                before, last = cut
                form = self._find(last)
                turn = next_page(self._read(last, form), before, ())
                if turn is None or turn.kind != "submit" or form is None:
                    return [], before, FetchError(self.form.action, "the list's next page is gone")
                fetched = await self._send(
                    submission_of(form, trigger=turn.trigger, text=turn.text)
                )
            elif checked is not None and checked[0] == keyword and not values:
                fetched = checked[1]
            else:
                fetched, _sent = await self._search(keyword, values)
        except FetchError as exc:
            return [], before, exc
        form = self._find(fetched)  # the next page is turned from this page's own state
        pages = [self._read(fetched, form)]
        visited: set[str] = set()
        if not before and not self.judge.has_results(pages[0], keyword):
            return pages, before, None
        while True:
            number = before + len(pages)
            if more is not None and not more(pages[-1], number):
                break
            turn = next_page(pages[-1], number, visited)
            submitting = form if turn is not None and turn.kind == "submit" else None
            if turn is None or (submitting is None and turn.kind != "link"):
                break
            if len(pages) >= cap:  # the page cap, not the list, ends it: kept to read on
                if submitting is not None:
                    fetched.forget_tree()  # kept as long as the crawl: its state, not its tree
                    self._cut[key] = (number, fetched)
                break
            try:
                if submitting is None:  # a list paged by links after the submission
                    fetched = await self.fetcher.fetch(turn.url)
                    visited.add(turn.url)
                else:
                    fetched = await self._send(
                        submission_of(submitting, trigger=turn.trigger, text=turn.text)
                    )
            except FetchError as exc:
                return pages, before, exc
            form = self._find(fetched)
            pages.append(self._read(fetched, form))
            if fetched.status >= 400 or not brings_new_links(pages):
                break
        return pages, before, None

    def _read(self, fetched: FetchedPage, form: Form | None) -> ResultPage:
        page = page_from_fetched(fetched, form=form or self.form, rule=self.rule)
        if fetched.final_url == self.form.action or fetched.url == self.form.action:
            page.fetched_url = self.form.action  # a submission's answer
        return page

    async def _search(self, keyword: str, values: Mapping[str, str]) -> tuple[FetchedPage, Form]:
        """Submit the search from the latest page's state, else (or when the server refuses
        that state) from the form's page fetched afresh.

        Raises:
            FetchError: the form's page does not show the form, or a request failed.
        """
        if self._state is not None and (form := self._find(self._state)) is not None:
            fetched = await self._send(self._submission(form, keyword, values))
            if fetched.status < 400:
                return fetched, form
        self._state = await self.fetcher.fetch(self.form.page_url)
        form = self._find(self._state)
        if form is None:
            raise FetchError(self.form.page_url, "the form is not on its page any more")
        return await self._send(self._submission(form, keyword, values)), form

    def _submission(self, form: Form, keyword: str, values: Mapping[str, str]) -> Submission:
        """The search's submission from ``form`` as a page shows it: the keyword in the query
        field, ``values`` set, the group's own button pressed. Its selects not in ``values`` take
        the form's own choices, not those a result page echoes: the category the query before
        chose, left selected on its answer, would narrow this one."""
        own = {f.name: f.value for f in self.form.fields if f.name and f.tag == "select"}
        chosen = {**own, **page_size_choice(form)} if self.largest_page_size else own
        chosen.update(values)
        if self.query_field:
            chosen[self.query_field] = keyword
        button = next((s for s in form.submits if not s.disabled), None)
        return submission_of(form, chosen, button=button)

    async def _send(self, submission: Submission) -> FetchedPage:
        fetched = await self.fetcher.submit(submission)
        if fetched.status < 400 and self._find(fetched) is not None:
            self._state = fetched
        return fetched

    def _find(self, page: FetchedPage) -> Form | None:
        return form_on(page, self.form)


def _is_page_of(page: FetchedPage, form: Form) -> bool:
    """Whether ``page`` is an answer of ``form``'s page (asked for, or redirected to)."""
    where = strip_fragment(form.page_url)
    return page.status < 400 and where in {strip_fragment(page.url), strip_fragment(page.final_url)}


def form_on(page: FetchedPage, like: Form) -> Form | None:
    """The form ``like`` (its group) on ``page``, as that page shows it: its fields' values
    and its hidden state there."""
    return find_form(parse_forms(page.body, page.final_url or page.url, formless=False), like)
