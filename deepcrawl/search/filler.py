"""The form filler: type a keyword into a search form in Chromium, submit it, read every page.

Hernández et al.'s "Deep Web Access" module fills a form and retrieves the response pages; here
:class:`FormFiller` does it for one form the critic accepted, in a page borrowed from the
:class:`~deepcrawl.browser.BrowserPool`:

1. the safety gate (:func:`~deepcrawl.forms.safety.ensure_submittable`) runs when the filler is
   made *and* on the live form before every submission — a refused form is never submitted;
2. the form is found live (:class:`~deepcrawl.search.form_page.FormPage`: the page the lease
   shows when it holds the form — the form finder's render of the form's page, a result page
   showing the form again — else the form's page loaded, from the bytes of an earlier load once
   two loads showed the same form, else from the server), the query field filled, the fields
   the user fixed set (``forms.fields``, checked against the form by
   :mod:`deepcrawl.forms.fields`), category selects set (:meth:`FormFiller.query` ``values``),
   a "results per page" select set to its largest value (:mod:`deepcrawl.search.page_size`),
   the other selects reset to their defaults;
3. the form is submitted by its own means: its submit button (an image button sends ``x``/``y``
   as a browser does), a scripted control, or Enter in the query field — unless typing alone
   shows the results: a form whose action is a script, or one without a submit button (a
   button that clears the box is none) that submits to its own page — a search-as-you-type over
   a client-side index, as static sites have — is first tried by typing the keyword as a user
   does (:func:`~deepcrawl.search.controls.may_search_as_typed`); once that has shown results,
   every later keyword is typed into the same live page, which is never submitted nor
   reloaded, and its list is read to its end by its "Load more" button or by scrolling;
4. the filler waits for the results, whether they come by navigation or by script
   (:func:`~deepcrawl.browser.settle.settle`), then follows the result pages — next links, page
   numbers, "load more" buttons — up to ``settings.querying.max_result_pages``
   (:mod:`deepcrawl.search.pagination`);
5. each query ends as a :class:`~deepcrawl.search.results.QueryResult`: ``ok``, ``no_results``
   or ``error`` (an error page, a timeout, the same page for every keyword) — never an exception
   for what a site does.

Once per form, before its first query, the filler submits a nonsense keyword
(:data:`~deepcrawl.search.judge.NONSENSE_KEYWORD`): that page shows the site's chrome and its
"no results" look, against which every later page is judged (:mod:`deepcrawl.search.results`).
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, NamedTuple

from playwright.async_api import Error as PlaywrightError

from deepcrawl.browser._assets import script
from deepcrawl.browser.render import collect_links, translate
from deepcrawl.browser.settle import (
    SETTLE_QUIET_S,
    ActionMark,
    Traffic,
    before_action,
    settle,
)
from deepcrawl.errors import ConfigError, FetchError, FetchTimeoutError, FormError, UnsafeFormError
from deepcrawl.fetch.politeness import HOST_WAITS
from deepcrawl.forms.fields import (
    check_field_values,
    describe_field,
    missing_required,
)
from deepcrawl.forms.query_field import find_query_fields
from deepcrawl.forms.safety import ensure_submittable
from deepcrawl.safety import SafetyRule
from deepcrawl.search.backend import QueryBackend
from deepcrawl.search.browsing import refused_navigation, reports_more, snapshot
from deepcrawl.search.causes import cause_of_error
from deepcrawl.search.controls import may_search_as_typed
from deepcrawl.search.form_page import FormPage
from deepcrawl.search.judge import MIN_NEW_LINKS, NONSENSE_KEYWORD, Judge
from deepcrawl.search.live_form import fill_live, submit_live
from deepcrawl.search.page_size import page_size_choice
from deepcrawl.search.pagination import brings_new_links, next_page
from deepcrawl.search.results import (
    ChromeFilter,
    Outcome,
    QueryResult,
    ResultPage,
)
from deepcrawl.search.template import carries

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from playwright.async_api import Page

    from deepcrawl.browser.lease import PageLease
    from deepcrawl.browser.pool import BrowserPool
    from deepcrawl.forms.critic import CriticVerdict
    from deepcrawl.page.form import Form, FormField
    from deepcrawl.search.causes import QueryCause
    from deepcrawl.settings import Settings

__all__ = ["ENTER_EFFECT_S", "MORE_EFFECT_S", "TYPING_TRIES", "TYPING_WAIT_S", "FormFiller"]

#: A form that submits to its own page is first tried by typing alone: this long at most for the
#: typed keyword to show results on the live page (then no query needs a submission); a
#: client-side search may first download and index its data.
TYPING_WAIT_S = 10.0
#: Queries whose submission showed results that typing had not shown before typing is given up
#: for the form (the first may come before its script loaded its index).
TYPING_TRIES = 3

#: Longest wait for the effect of Enter pressed in a box of no ``<form>`` that offers no button
#: (a search-as-you-type box): such a key press may well do nothing, the typing having searched.
ENTER_EFFECT_S = 2.0

#: Longest wait, after a live result list is scrolled to its end or its "Load more" control
#: clicked, for it to start growing (a request, a change to the page): a list that shows
#: nothing by then is at its end, where the typing wait would be paid at every list's end.
MORE_EFFECT_S = 2.0


class FormFiller(QueryBackend):
    """Fill and submit one searchable form in Chromium, and read all its result pages.

    Args:
        pool: an entered browser pool.
        form: the form (from discovery on its page).
        verdict: the critic's verdict on it.
        settings: deepcrawl settings (``forms``, ``querying.max_result_pages``, ``browser``).
        largest_page_size: set the form's "results per page" select to its largest value (each
            result page costs a request).

    Raises:
        UnsafeFormError: the critic or the safety policy refuses the form.
        ConfigError: a value of ``forms.fields`` does not fit the form, or a required field
            of the form has no value (the message names it and how to give one).
    """

    def __init__(
        self,
        pool: BrowserPool,
        form: Form,
        verdict: CriticVerdict,
        settings: Settings,
        *,
        largest_page_size: bool = True,
    ) -> None:
        ensure_submittable(form, verdict)
        self.fixed = check_field_values(
            form, settings.forms.fields, query_field=verdict.query_field
        )
        """The values the user fixed (``forms.fields``), sent with every query."""
        missing = missing_required(form, self.fixed, query_field=verdict.query_field)
        if missing:
            names = "; ".join(describe_field(f) for f in missing)
            how = " ".join(f"--field {f.name}=VALUE" for f in missing)
            raise ConfigError(
                f"the search form {form.locator or form.action} has required field(s) the "
                f"keywords do not go into: {names}; give their values with {how} "
                "(or forms.fields in deepcrawl.toml)"
            )
        self.pool = pool
        self.form = form
        self.verdict = verdict
        self.settings = settings
        self.largest_page_size = largest_page_size
        self.judge = Judge()
        """The form's chrome and nonsense-keyword baseline, against which pages are judged."""
        self._rule = SafetyRule(settings.forms.refused_words)
        self.form_page = FormPage(form, verdict, settings)
        """Where the form is found live before each submission (:mod:`.form_page`)."""
        self.types_live: bool | None = None
        """Whether typing alone shows this form's results (None: not known yet)."""
        self._typing_misses = 0
        self._retries = max(0, settings.politeness.retries)
        for url in (form.page_url, form.action):
            pool.scope.admit(url)

    @property
    def accepts_empty(self) -> bool:
        """Whether the empty query can be submitted: the query field is not required, and the
        form is submitted (typing nothing into a search-as-you-type box shows nothing)."""
        return not self.query_required and not self.types_live and not self._may_type(self.form)

    @property
    def query_required(self) -> bool:
        """Whether the form marks its query field required (it refuses the empty query)."""
        query = self.query_field
        return any(f.required for f in self.form.fields if f.name and f.name == query)

    @property
    def query_field(self) -> str | None:
        """Name of the field the keywords go into, as the critic named it (None: a form of
        selects only, or a query box without a name — then found on the live form by the
        critic's own rules)."""
        return self.verdict.query_field

    def category_options(self) -> dict[str, list[str]]:
        """Values of each category field the critic marked, the "all" value (empty) left out,
        and the fields the user fixed (``forms.fields``) left out.

        Each value is a query dimension: ``query(word, values={name: value})``.
        """
        out: dict[str, list[str]] = {}
        for name in self.verdict.category_fields:
            if name in self.fixed:
                continue
            values: list[str] = []
            for field in self.form.fields:
                if field.name != name:
                    continue
                if field.tag == "select":
                    values.extend(o.value for o in field.options if o.value.strip())
                elif field.type == "radio" and field.value.strip():
                    values.append(field.value)
            out[name] = list(dict.fromkeys(values))
        return out

    async def query(
        self,
        keyword: str,
        values: Mapping[str, str] | None = None,
        *,
        max_pages: int | None = None,
        more: Callable[[ResultPage, int], bool] | None = None,
        resume: tuple[str, int] | None = None,
    ) -> QueryResult:
        """Submit ``keyword`` (with ``values`` for other fields) and read every result page.

        Args:
            keyword: what to type into the query field.
            values: values of other fields by name (category selects, radio groups), on top
                of the fixed ones (``forms.fields``); the result records both.
            max_pages: result pages to read at most (default ``querying.max_result_pages``).
            more: asked with each result page read and its number whether the next one is
                worth reading (the crawl's paging control); None: read them all.
            resume: not used: a submitted form shows its first page (the list is read from
                it, its pages read before read again).

        Returns:
            The query's result. What the site does is an outcome, never an exception: ``error``
            (an error page, a timeout, the form gone from its page, the same page for every
            keyword), ``rejected`` (the live form turned out to be one the safety policy refuses:
            nothing was submitted), ``no_results`` or ``ok``.

        Raises:
            BrowserError: the browser cannot be (re)started.
        """
        cap = max_pages or self.settings.querying.max_result_pages
        chosen = {**self.fixed, **(values or {})}
        if self.judge.baseline is None:
            await self.learn_baseline()
        started = time.monotonic()
        result = QueryResult(
            keyword=keyword,
            values=chosen,
            form_locator=self.form.locator,
            form_action=self.form.action,
            method=self.form.method,
            via="browser",
        )
        pages: list[ResultPage] = []
        run = await self._submission(keyword, chosen, cap, pages, more)
        if run.failure is not None:
            result.outcome, result.error, result.cause = run.failure
        result.data_urls = [u for u in run.data_urls if carries(u, keyword)]
        result.elapsed_s = time.monotonic() - started
        if pages:
            note = result.error
            self.judge.judge(result, pages, cap)
            if note and result.outcome == "ok":
                result.error = f"stopped early: {note}"
        return result

    async def learn_baseline(self) -> None:
        """Submit the nonsense keyword once and learn the site's chrome and "no results" page."""
        word = NONSENSE_KEYWORD
        pages: list[ResultPage] = []
        run = await self._submission(word, dict(self.fixed), 1, pages)
        error = run.failure[1] if run.failure is not None else None
        self.judge.learn_baseline(
            word, pages[0] if pages else None, self.form_page.keys or set(), error
        )

    # -- one submission ----------------------------------------------------------------------

    async def _submission(
        self,
        keyword: str,
        values: dict[str, str],
        cap: int,
        pages: list[ResultPage],
        more: Callable[[ResultPage, int], bool] | None = None,
    ) -> _Submission:
        """Submit in a page borrowed from the pool and read up to ``cap`` result pages into
        ``pages``; what the site did wrong is the submission's failure, not an exception.

        A submission the server throttles (429, 503: the pool's gate paused its host as the
        answer came) is sent again, up to ``politeness.retries`` times; the gate holds the
        next one until the pause is over."""
        tries = 0
        while True:
            pages.clear()
            run = await self._submit_once(keyword, values, cap, pages, more)
            tries += 1
            if not (pages and pages[0].status in HOST_WAITS) or tries > self._retries:
                return run
            self.pool.gate.retried()

    async def _submit_once(
        self,
        keyword: str,
        values: dict[str, str],
        cap: int,
        pages: list[ResultPage],
        more: Callable[[ResultPage, int], bool] | None,
    ) -> _Submission:
        failure: tuple[Outcome, str, QueryCause] | None = None
        async with self.pool.page() as lease:
            with Traffic(lease.page) as traffic:
                try:
                    await self._run(lease, traffic, keyword, values, cap, pages, more)
                except UnsafeFormError as exc:  # the live form changed into a refused one
                    failure = "rejected", str(exc), "blocked"
                except FetchError as exc:
                    failure = "error", str(exc), cause_of_error(exc)
                except FormError as exc:
                    failure = "error", str(exc), "error"
                except PlaywrightError as exc:
                    error = translate(exc, lease.page.url, lease)
                    failure = "error", str(error), cause_of_error(error)
                if failure is not None:  # the form's page may have changed: see it afresh
                    self.form_page.forget()
        return _Submission(failure, list(traffic.data_urls))

    async def _run(
        self,
        lease: PageLease,
        traffic: Traffic,
        keyword: str,
        values: dict[str, str],
        cap: int,
        pages: list[ResultPage],
        more: Callable[[ResultPage, int], bool] | None = None,
    ) -> None:
        """Submit and read up to ``cap`` result pages into ``pages``.

        Raises:
            FetchError, playwright.async_api.Error: before the first result page was read (a
                failure on a later page ends the paging quietly).
        """
        page = lease.page
        timeout = self.settings.browser.page_timeout_s
        lease.begin()
        live = await self.form_page.open(lease, traffic, self._read)
        before: _BeforeTyping | None = None
        if self._may_type(live):  # what the page shows before the keyword is typed
            shown = {ChromeFilter.key(link) for link in await collect_links(page)}
            before = _BeforeTyping(shown, traffic.mark(), await before_action(page, traffic))
        await self._fill(page, live, keyword, values)
        if before is not None and await self._typed(lease, traffic, live, before, pages, keyword):
            pages[-1].scrolls = True
            await self._scroll_on(page, traffic, cap, pages, more)
            return
        mark = traffic.mark()
        acted = await before_action(page, traffic)
        pressed_only = await self._submit(page, live)
        try:
            await settle(
                page,
                traffic,
                timeout_s=timeout,
                after=acted,
                effect_s=ENTER_EFFECT_S if pressed_only else None,
            )
        except FetchTimeoutError:
            lease.poisoned = True
            refused_navigation(lease, live.action)
            raise
        refused_navigation(lease, live.action)
        pages.append(await self._read(page, traffic, mark))
        if not self.judge.has_results(pages[0], keyword):
            return
        if before is not None and self.judge.baseline is not None:
            # submitting showed results that typing did not (a script still loading its index
            # may be slow to answer the first keywords): after a few such queries, stop trying
            self._typing_misses += 1
            if self._typing_misses >= TYPING_TRIES:
                self.types_live = False
        visited = {pages[0].url, pages[0].fetched_url}
        while len(pages) < cap:
            if more is not None and not more(pages[-1], len(pages)):
                break
            turn = next_page(pages[-1], len(pages), visited)
            if turn is None:
                if reports_more(pages, self.judge):  # no pager: a list that grows as scrolled?
                    await self._scroll_on(page, traffic, cap, pages, more)
                break
            mark = traffic.mark()
            try:
                acted = await before_action(page, traffic)
                if turn.kind == "link":
                    await page.goto(turn.url, wait_until="commit", timeout=timeout * 1000)
                else:
                    await page.locator(turn.locator).first.click(
                        timeout=timeout * 1000, no_wait_after=True
                    )
                await settle(page, traffic, timeout_s=timeout, after=acted)
                nxt = await self._read(page, traffic, mark)
            except (FetchError, PlaywrightError):
                lease.poisoned = True
                break  # keep the pages read so far
            if turn.kind == "link":
                nxt.fetched_url = turn.url
            pages.append(nxt)
            visited.update({nxt.url, nxt.fetched_url, turn.url})
            if not brings_new_links(pages):
                break

    def _may_type(self, live: Form) -> bool:
        """Whether to try typing alone: :func:`may_search_as_typed`, unless typing was shown to
        search or not to."""
        if self.types_live is not None:
            return self.types_live
        return may_search_as_typed(live)

    async def _typed(
        self,
        lease: PageLease,
        traffic: Traffic,
        live: Form,
        before: _BeforeTyping,
        pages: list[ResultPage],
        keyword: str,
    ) -> bool:
        """Let the keyword just typed into ``live`` show its results on the same page.

        The key-up of a last key (End: it changes no text) is what many search-as-you-type
        scripts listen to. True, with the page read into ``pages``, when typing searches: the
        page stayed and at least :data:`MIN_NEW_LINKS` links not shown before typing appeared
        (or this form is known to search so, and the answer is an empty list). Links are told
        apart by place and text (a result may point where the navigation beside it points).
        Not known yet, the wait ends early once the page asked the site for the keyword (a data
        request carrying it) and settled with no such links: the answer came and was not a
        list (an empty one, or suggestions), and the submission path reads the rest.
        """
        page = lease.page
        query = self._query_input(live)
        if query is None:
            return False
        timeout = self.settings.browser.page_timeout_s * 1000
        await page.locator(query.locator).first.press("End", timeout=timeout, no_wait_after=True)
        quiet = SETTLE_QUIET_S
        deadline = time.monotonic() + min(TYPING_WAIT_S, self.settings.browser.page_timeout_s)
        after: ActionMark | None = before.acted
        while True:
            # Known to search so, the page's first answer is the keyword's; not known yet, the
            # answer must be links, and may come late (a script still building its index).
            try:
                await settle(
                    page,
                    traffic,
                    timeout_s=max(quiet, deadline - time.monotonic()),
                    after=after,
                )
            except FetchTimeoutError:
                return False  # a navigation is under way: the submission path reads it
            if traffic.navigations > before.mark[1]:
                return False
            new = {ChromeFilter.key(link) for link in await collect_links(page)} - before.shown
            if self.types_live or len(new) >= MIN_NEW_LINKS:
                break
            asked = traffic.data_urls[before.mark[0] :]
            if time.monotonic() >= deadline or any(carries(url, keyword) for url in asked):
                return False
            after = None
            await asyncio.sleep(quiet)
        typed = await self._read(page, traffic, before.mark)
        self.types_live = True
        pages.append(typed)
        return True

    async def _scroll_on(
        self,
        page: Page,
        traffic: Traffic,
        cap: int,
        pages: list[ResultPage],
        more: Callable[[ResultPage, int], bool] | None,
    ) -> None:
        """Read a typed result list to its end: click its "Load more" control where it shows
        one, else scroll to its end (a list that renders more as it is scrolled), and read it
        again while it grows, up to ``cap`` readings. No navigation: the list is live, and
        whatever its script fetches passes the pool's gate."""
        wait = min(TYPING_WAIT_S, self.settings.browser.page_timeout_s)
        timeout = self.settings.browser.page_timeout_s * 1000
        while len(pages) < cap and (more is None or more(pages[-1], len(pages))):
            mark = traffic.mark()
            acted = await before_action(page, traffic)
            button = next((c for c in pages[-1].clickables if c.kind == "more"), None)
            try:
                if button is not None:
                    await page.locator(button.locator).first.click(
                        timeout=timeout, no_wait_after=True
                    )
                elif not await page.evaluate(script("deepcrawl.browser.js", "scroll.js")):
                    return
                await settle(
                    page,
                    traffic,
                    timeout_s=wait,
                    after=acted,
                    # at the list's end, a scroll or a "more" control may show nothing at all
                    effect_s=MORE_EFFECT_S,
                )
            except (FetchTimeoutError, PlaywrightError):
                return  # keep the readings so far
            pages.append(await self._read(page, traffic, mark))
            pages[-1].scrolls = True
            if not brings_new_links(pages):
                pages.pop()
                return

    async def _read(self, page: Page, traffic: Traffic, mark: tuple[int, int]) -> ResultPage:
        data_urls = traffic.data_urls[mark[0] :]
        navigated = traffic.navigations > mark[1]
        status = traffic.nav_status if navigated and traffic.nav_status else 200
        if not navigated and data_urls:
            status = max(status, *traffic.data_statuses[mark[0] :])
        fetched = data_urls[0] if data_urls and not navigated else ""
        return await snapshot(
            page, status=status, rule=self._rule, fetched_url=fetched, form=self.form
        )

    async def _fill(self, page: Page, live: Form, keyword: str, values: dict[str, str]) -> None:
        # a "results per page" select at its largest: fewer result pages for the same records
        await fill_live(
            page,
            live,
            query=self._query_input(live),
            keyword=keyword,
            values=values,
            defaults={f.name: f.value for f in self.form.fields if f.name},
            sizes=page_size_choice(live) if self.largest_page_size else {},
            timeout_ms=self.settings.browser.page_timeout_s * 1000,
        )

    def _query_input(self, live: Form) -> FormField | None:
        """The live query field: by the name the critic gave, else (a field without a name,
        common in scripted search boxes) by the critic's own rules on the live form."""
        if self.query_field:
            field = live.field(self.query_field)
            if field is None:
                raise FormError(f"the query field {self.query_field!r} is not in the form any more")
            return field
        return find_query_fields(live).query

    async def _submit(self, page: Page, live: Form) -> bool:
        """Submit ``live`` (:func:`~deepcrawl.search.live_form.submit_live`); True when only
        Enter was pressed in a box of no ``<form>``: a key press that may well do nothing."""
        timeout = self.settings.browser.page_timeout_s * 1000
        return await submit_live(page, live, self._query_input(live), timeout_ms=timeout)


class _Submission(NamedTuple):
    """How one submission failed, and what data it asked for (its result pages are read into a
    list; what it cost the server, the pool's gate counted)."""

    failure: tuple[Outcome, str, QueryCause] | None
    """The outcome (``error``, ``rejected``), why, and its cause, when it failed; None: it
    did not."""
    data_urls: list[str]
    """URLs of the XHR / fetch requests answered, in order."""


class _BeforeTyping(NamedTuple):
    """The page just before a keyword is typed into it."""

    shown: set[tuple[str, str]]
    """Chrome keys of the links it shows."""
    mark: tuple[int, int]
    """The traffic mark (:meth:`Traffic.mark`)."""
    acted: ActionMark
    """The :func:`~deepcrawl.browser.settle.before_action` mark."""
