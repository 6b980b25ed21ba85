"""The crawl engine: one site behind its search form, from start URL to delivered pages.

:class:`Crawl` drives the parts in this order (docs/ARCHITECTURE.md, "The flow"):

1. **storage** — open the database and the site's row; everything below is stored as it
   happens, so the same command run again (or ``--resume``) continues where a crash stopped;
2. **politeness** — load robots.txt (rules and Crawl-delay) into the crawl's gate
   (:class:`~deepcrawl.fetch.gate.Gate`), the one door every request then goes through — the
   browser pages' too — and where each is counted;
3. **form** — find the search form with the critic (:func:`~deepcrawl.crawler.setup.locate_form`),
   in a Chromium pool scoped to the site; login, registration, cart and delete forms are refused
   by the critic and the safety policy and never submitted;
4. **setup phase** — the first queries of the keyword manager, their result links stored
   (:func:`~deepcrawl.crawler.setup.run_setup`);
5. **prototypes and labels** — prototype the links, take ``--like`` / ``--labels`` / the
   interactive labelling (:func:`~deepcrawl.crawler.setup.apply_labels`); without labels the crawl
   stops here and says how to give them;
6. **normal phase** — read the site's sitemaps (:mod:`~deepcrawl.crawler.sitemaps`), query to
   saturation, classify every listed and result link from its URL, fetch only the wanted
   pages, store them (:class:`~deepcrawl.crawler.normal.NormalPhase`); with
   ``crawl.navigate``, a link strategy then looks for the wanted records the queries missed
   (:class:`~deepcrawl.crawler.navigate.NavigatePhase`);
7. **delivery** — each stored page goes once to the extractor's sink
   (:mod:`deepcrawl.crawler.deliver`): JSON lines, a callback, or ``async for``. In a crawl shared
   on PostgreSQL this process is the one delivery point of all the workers' pages, and it ends
   only once every URL is settled and every stored page delivered.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Self

from deepcrawl._tasks import stream, supervised
from deepcrawl.browser.access import check_user_url, with_url_credentials
from deepcrawl.browser.scope import Scope, host_of
from deepcrawl.browser.wrapped import gate_fetcher
from deepcrawl.crawler.context import CrawlContext, CrawlStats
from deepcrawl.crawler.coordination import CrawlSeat
from deepcrawl.crawler.deliver import QueueSink
from deepcrawl.crawler.inputs import StartPage, keep_field_values
from deepcrawl.errors import ConfigError, SearchForbiddenError
from deepcrawl.search.causes import describe_causes
from deepcrawl.settings import Settings, load_settings
from deepcrawl.storage import Repository
from deepcrawl.storage.state import CrawlState
from deepcrawl.userinfo import split_userinfo

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
    from pathlib import Path
    from types import TracebackType

    from deepcrawl._tasks import Supervisor
    from deepcrawl.browser.base import Fetcher
    from deepcrawl.crawler.deliver import Record, Sink
    from deepcrawl.crawler.dispatch import FetchQueue
    from deepcrawl.crawler.fetching import Delivery
    from deepcrawl.fetch.politeness import HostLimiter
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.prototypes import LabelSession
    from deepcrawl.querying import QueryLoop
    from deepcrawl.records.pick import Pick

__all__ = ["Crawl", "CrawlReport", "crawl_each", "crawl_pages"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class CrawlReport:
    """How a crawl ended.

    Attributes:
        status: ``done`` (the form is exhausted and every wanted page fetched or failed),
            ``max_pages`` (the page budget was reached), ``needs_labels`` (the setup phase is
            done but no prototype is labelled relevant: label, then run again).
        site_id: the site's id in the database (``deepcrawl label`` / ``export`` take it).
        stats: the figures of the run.
    """

    status: Literal["done", "max_pages", "needs_labels"]
    site_id: int
    stats: CrawlStats


class Crawl:
    """One crawl of one site; an async context manager that refuses to be entered twice.

    Args:
        start_url: the page holding (or leading to) the search form; a user name and password
            in it are its origin's HTTP Basic authentication, never part of a URL the crawl
            keeps (:func:`~deepcrawl.browser.access.check_user_url`).
        settings: deepcrawl settings (default: :func:`~deepcrawl.settings.load_settings`).
        like: example URLs of the pages wanted (relative ones resolved against ``start_url``;
            credentials in them as in ``start_url``).
        labels_file: a YAML labels file (see :func:`deepcrawl.prototypes.read_labels_file`).
        resume: require stored state to continue from (a fresh crawl raises ``ConfigError``).
        start: what the input check fetched (:func:`~deepcrawl.crawler.inputs
            .check_start_page`): its robots.txt answer is read rather than fetched again, and
            the form finder renders its start page; default: nothing, every page is fetched.
        fetcher: the fetcher for wanted pages (default: ``make_fetcher`` in the site's scope).
        labeller: asks the user for labels when none are given (the CLI's interactive session),
            shown the crawl's own pick of the records when it made one
            (:mod:`deepcrawl.records.pick`); not asked with ``crawl.auto_label`` True.
        on_pick: called with the crawl's own pick of the records when no one was asked.
        progress: called with the figures whenever they change.
        on_fetch: called with every wanted page fetched.
        dispatch: fetch the wanted pages through this job queue's fetch jobs, which any
            worker runs (:mod:`deepcrawl.crawler.dispatch`), rather than in this process.
        delivery: how stored pages reach the sink (default: polled on PostgreSQL, direct
            elsewhere); ``none``: delivered by another process (a harvest's coordinator).
        limiter: the per-host rate and concurrency this process shares between the sites it
            crawls (a harvest); default: the crawl's own, shared through the database on
            PostgreSQL.

    Raises:
        InvalidURLError: ``start_url`` is not an http(s) URL with a host, or is too long.
        ConfigError: (on entering) another process is crawling the site — on SQLite while it
            lives, on PostgreSQL while it holds the query lock; or other field values
            (``forms.fields``) are given than the stored crawl's queries were sent with.
    """

    def __init__(
        self,
        start_url: str,
        *,
        settings: Settings | None = None,
        like: Sequence[str] = (),
        labels_file: Path | None = None,
        resume: bool = False,
        start: StartPage | None = None,
        fetcher: Fetcher | None = None,
        labeller: Callable[[LabelSession, Pick | None], None] | None = None,
        on_pick: Callable[[Pick], None] | None = None,
        progress: Callable[[CrawlStats], None] | None = None,
        on_fetch: Sequence[Callable[[FetchedPage], None]] = (),
        dispatch: FetchQueue | None = None,
        delivery: Delivery | None = None,
        limiter: HostLimiter | None = None,
    ) -> None:
        # one spelling of the start URL (an IDN host in punycode, no credentials) for scope,
        # robots and storage; the access headers and its credentials go to its origin (and
        # the named ones) only
        self.start_url, self.settings = check_user_url(
            settings or load_settings(), start_url, what="start URL"
        )
        start_url = self.start_url
        like = [*self.settings.crawl.like, *like]
        self.settings = with_url_credentials(self.settings, like)
        self.like = [split_userinfo(example)[0] for example in like]
        self.labels_file = labels_file
        self.resume = resume
        self.start = start or StartPage()
        self.labeller = labeller
        self.on_pick = on_pick
        self.progress = progress
        self.on_fetch = list(on_fetch)
        self.dispatch = dispatch
        self.delivery = delivery
        self._limiter = limiter
        self.scope = Scope((host_of(start_url),), implicit=False)
        self._fetcher = fetcher
        self._own_fetcher: Fetcher | None = None
        self._repo: Repository | None = None
        self._seat: CrawlSeat | None = None
        self._entered = False
        self.ctx: CrawlContext | None = None
        #: How the latest :meth:`run` (or :meth:`pages`) ended (None until it has).
        self.report: CrawlReport | None = None
        self.querying: QueryLoop | None = None
        """The normal phase's query loop once it ran (its ledger, its rules' firings)."""

    async def __aenter__(self) -> Self:
        if self._entered:
            raise RuntimeError("a Crawl cannot be entered twice")
        self._entered = True
        settings = self.settings
        self._repo = repo = Repository.open(settings.storage.url, settings.storage)
        try:
            site = repo.site(self.start_url)
            state = CrawlState(repo, site.id)
            if self.resume and not state.queries():
                raise ConfigError(
                    f"nothing to resume: {self.start_url} has no stored crawl in "
                    f"{settings.storage.url}"
                )
            # a stored crawl goes on with the field values its queries were sent with
            settings = self.settings = keep_field_values(settings, state.field_values())
        except BaseException:
            repo.close()
            raise
        self.ctx = CrawlContext.create(
            self.start_url, settings, repo, site, state, notify=self.progress,
            sent=self.start.requests, limiter=self._limiter,
        )  # fmt: skip
        # the query lock (other processes of the crawl are workers) or, on SQLite, the claim
        # that keeps a second crawl process out, and a heartbeat; taken before anything starts
        try:
            self._seat = CrawlSeat.take(self.ctx)
            if self._fetcher is None:
                from deepcrawl.browser import make_fetcher

                self._own_fetcher = make_fetcher(settings, self.scope, forms=False)
                self._fetcher = await self._own_fetcher.__aenter__()
            gate_fetcher(self._fetcher, self.ctx.gate)  # its pages' requests pass the gate too
        except BaseException as exc:
            self._own_fetcher = None  # not entered, or failed while entering: nothing to leave
            await self.__aexit__(type(exc), exc, exc.__traceback__)
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if self._seat is not None:
                # what ``deepcrawl status`` shows: a crawl waiting for labels is not done
                ended = self.report.status if self.report is not None else "done"
                self._seat.leave("stopped" if exc_type is not None else ended)
            if self._own_fetcher is not None:
                await self._own_fetcher.__aexit__(exc_type, exc, tb)
        finally:
            if self.ctx is not None and self._limiter is None:
                self.ctx.limiter.close()  # its seats in the database, if it holds any
            if self._repo is not None:
                self._repo.close()

    def _context(self) -> CrawlContext:
        if self.ctx is None or self._fetcher is None:
            raise RuntimeError("use the Crawl inside 'async with'")
        return self.ctx

    async def run(self, sink: Sink) -> CrawlReport:
        """Crawl the site, delivering every wanted page to ``sink``.

        Every task of the crawl runs in one supervised scope: the first to fail stops the others
        and the crawl, and its error is raised (as itself, not in an ``ExceptionGroup``).

        Raises:
            FetchError: the start page cannot be fetched.
            FormError: no search form, or the form returned nothing to learn from.
            ConfigError: a ``like`` URL or labels file entry matches no prototype.
            BrowserError: Chromium cannot be started.
            StorageError: the database fails.
            OutputError: the sink cannot write (``OutputClosedError``: a pipe's reader left).
            whatever the sink's callback raises.
        """
        from deepcrawl.browser.pool import BrowserPool
        from deepcrawl.crawler.normal import NormalPhase
        from deepcrawl.crawler.picking import pick_kind
        from deepcrawl.crawler.records_search import records_search, switch_form
        from deepcrawl.crawler.setup import (
            apply_labels,
            check_like_layouts,
            example_texts,
            fetch_examples,
            has_relevant,
            label_session,
            locate_form,
            run_setup,
        )
        from deepcrawl.records.documents import StoredPages
        from deepcrawl.search.form_search import FormSearch

        ctx = self._context()
        fetcher = self._fetcher
        assert fetcher is not None
        stats = ctx.stats
        self.report = None
        stats.pages_delivered = ctx.state.count("delivered")
        stats.errors = ctx.state.count("failed")
        # Every task of the crawl runs in this scope: the first failure of any of them (the
        # sink, a fetch, the heartbeat) cancels the rest and is raised here, as itself.
        async with supervised() as tasks:
            if self._seat is not None:
                tasks.daemon(self._seat.heartbeat.run(), name="heartbeat")
            ctx.enter("robots.txt")  # the input check's answer when it read it (no request)
            await ctx.gate.open(self.start_url, fetcher, held=self.start.pages)
            store = StoredPages(ctx.repo, ctx.site.id)  # answers result pages' script requests
            async with BrowserPool(ctx.settings, self.scope, store=store, gate=ctx.gate) as pool:
                ctx.enter("finding form")
                try:
                    found = await locate_form(ctx, pool, document=self.start.page, like=self.like)
                except SearchForbiddenError:
                    if not self._may_browse(ctx):
                        raise
                    self.report = await self._browse(ctx, fetcher, sink, tasks)
                    return self.report
                async with contextlib.AsyncExitStack() as searches:
                    search = await searches.enter_async_context(
                        FormSearch(
                            pool,
                            found.form,
                            found.verdict,
                            ctx.settings,
                            gate=ctx.gate,
                            held=self.start.page,  # the form's page: the start page
                        )
                    )
                    if found.chosen_now:  # is it the records' search? (one query tells)
                        try:
                            other = await records_search(
                                ctx, pool, search, found.form, self.start.page, self.start.examples
                            )
                        except SearchForbiddenError:
                            if not self._may_browse(ctx):
                                raise
                            self.report = await self._browse(ctx, fetcher, sink, tasks)
                            return self.report
                        if other is not None:
                            found = switch_form(ctx, found, other.form, other.verdict)
                            search = await searches.enter_async_context(
                                FormSearch(
                                    pool,
                                    other.form,
                                    other.verdict,
                                    ctx.settings,
                                    gate=ctx.gate,
                                    held=other.page,
                                )
                            )
                    if self.like:
                        ctx.enter("examples")
                    examples = await fetch_examples(
                        ctx, fetcher, self.like, held=self.start.examples
                    )
                    await run_setup(
                        ctx, search, found.form_id, examples=self.like, example_pages=examples
                    )
                    ctx.enter("labelling")
                    session = label_session(ctx, self.like)
                    relevant = apply_labels(
                        ctx, session, like=self.like, labels_file=self.labels_file
                    )
                    if self.like:
                        ctx.enter("layout check")
                    looked_at = await check_like_layouts(
                        ctx, session, self.like, fetcher, known=examples
                    )
                    if not relevant and not self.like and self.labels_file is None:
                        pick = await pick_kind(
                            ctx, session, fetcher, labeller=self.labeller, on_pick=self.on_pick
                        )
                        if pick is not None:
                            looked_at += pick.pages
                            examples += pick.example_pages
                        relevant = has_relevant(session)
                    if not relevant:
                        logger.info("site %d: no prototype is labelled relevant", ctx.site.id)
                        ctx.enter("needs labels")
                        self.report = CrawlReport("needs_labels", ctx.site.id, stats)
                        return self.report
                    phase = NormalPhase(
                        ctx, search, found.form_id, fetcher, sink, on_fetch=self.on_fetch,
                        tasks=tasks, examples=example_texts(examples), dispatch=self.dispatch,
                        delivery=self.delivery,
                    )  # fmt: skip
                    self.querying = phase.loop
                    phase.adopt(looked_at)  # the setup's fetches are not repeated
                    await phase.run()
                    if ctx.settings.crawl.navigate:
                        from deepcrawl.crawler.navigate import NavigatePhase

                        await NavigatePhase(phase).run()
                    # shared crawl: the workers' last leases settled, every stored page delivered
                    ctx.enter("finishing")
                    await phase.finish()
        full = ctx.budget.spent
        ctx.enter("stopped at max pages" if full else "done")
        causes = describe_causes(stats.query_failures)
        logger.info(
            "site %d: %s; %d pages delivered, %d queries, %d requests, %d failed URLs%s%s",
            ctx.site.id, stats.phase, stats.pages_delivered, stats.queries, stats.requests,
            stats.errors, f" (queries: {causes})" if causes else "",
            f" ({stats.stop_reason})" if stats.stop_reason else "",
        )  # fmt: skip
        self.report = CrawlReport("max_pages" if full else "done", ctx.site.id, stats)
        return self.report

    def _may_browse(self, ctx: CrawlContext) -> bool:
        """Whether a crawl whose search robots.txt forbids reaches the records through the
        pages it allows: with ``--navigate`` and the start page allowed, and the records' kind
        known by a ``--like`` example, labels, or the pick (``crawl.auto_label`` not False)."""
        told = (
            self.like or self.labels_file is not None or ctx.settings.crawl.auto_label is not False
        )
        return bool(ctx.settings.crawl.navigate and told and ctx.robots.allowed(ctx.start_url))

    async def _browse(
        self, ctx: CrawlContext, fetcher: Fetcher, sink: Sink, tasks: Supervisor
    ) -> CrawlReport:
        """The crawl without a query (:mod:`deepcrawl.crawler.browse`): the allowed lists read,
        the example's kind labelled, the lists' records fetched, then the navigate phase.

        Raises:
            SearchForbiddenError: the records' kind (the example's, or one the pick takes) is on
                none of the allowed pages.
        """
        from deepcrawl.crawler.browse import browse_lists, browsed, read_to_end
        from deepcrawl.crawler.navigate import NavigatePhase
        from deepcrawl.crawler.normal import NormalPhase
        from deepcrawl.crawler.picking import pick_kind
        from deepcrawl.crawler.setup import example_texts, fetch_examples
        from deepcrawl.storage.frontier import SETUP_SOURCE

        ctx.enter("examples")
        examples = await fetch_examples(ctx, fetcher, self.like, held=self.start.examples)
        ctx.enter("reading lists")
        lists, picked = await browse_lists(
            ctx, fetcher, self.start.page, examples, like=self.like, labels_file=self.labels_file,
            pick=lambda session, shown: pick_kind(
                ctx, session, fetcher, labeller=self.labeller, on_pick=self.on_pick, shown=shown
            ),
        )  # fmt: skip
        phase = NormalPhase(
            ctx, None, None, fetcher, sink, on_fetch=self.on_fetch, tasks=tasks,
            examples=example_texts([*examples, *picked]), dispatch=self.dispatch,
            delivery=self.delivery,
        )  # fmt: skip
        phase.adopt([*examples, *picked])
        pages = [page for read in lists for page in read.pages]
        pages += await read_to_end(ctx, fetcher, lists, phase.admission.labelled_record)
        for page in pages:
            phase.admission.enqueue(((link.url, link.text) for link in page.links), SETUP_SOURCE)
        await phase.run()
        navigation = NavigatePhase(phase, patient=True)
        await navigation.run()
        ctx.enter("finishing")
        await phase.finish()
        browsed(ctx.stats, lists, navigation.ended)
        full = ctx.budget.spent
        ctx.enter("stopped at max pages" if full else "done")
        return CrawlReport("max_pages" if full else "done", ctx.site.id, ctx.stats)

    async def pages(self) -> AsyncGenerator[Record]:
        """Run the crawl and yield each delivered page's record as it comes.

        Raises:
            whatever :meth:`run` raises, once the pages before the failure were yielded.
        """
        sink = QueueSink()
        self.report = None

        async def drive() -> None:
            self.report = await self.run(sink)

        # the reader leaving early cancels the crawl and waits for it to end
        async with stream(sink.queue, drive) as records:
            async for record in records:
                yield record


def _settings(
    settings: Settings | None,
    *,
    db: str | None,
    max_pages: int | None,
    max_queries: int | None,
    keywords: Path | None,
) -> Settings:
    base = settings or load_settings()
    return base.with_overrides(
        storage={"url": db},
        crawl={"max_pages": max_pages},
        keywords={"keywords_file": keywords},
        querying={"max_queries": max_queries},
    )


async def crawl_pages(
    start_url: str,
    *,
    like: Sequence[str] = (),
    labels: Path | None = None,
    settings: Settings | None = None,
    db: str | None = None,
    max_pages: int | None = None,
    max_queries: int | None = None,
    keywords: Path | None = None,
    resume: bool = False,
) -> AsyncIterator[Record]:
    """Crawl a site and yield each wanted page's record (``async for page in crawl(...)``).

    Args:
        start_url: the page with the search form.
        like: example URLs (or paths) of the pages wanted.
        labels: a YAML labels file, instead of or beside ``like``.
        settings: deepcrawl settings (default: loaded from the usual sources).
        db: database URL (default: ``settings.storage.url``); the crawl resumes from it.
        max_pages: stop after this many pages.
        max_queries: query budget.
        keywords: a file of keywords to query first.
        resume: require a stored crawl to continue.

    Yields:
        Records with ``url``, ``final_url``, ``status``, ``fetched_at``, ``label``,
        ``prototype``, ``content_type``, ``title``, ``body`` … (see ``deepcrawl.export``).

    Raises:
        ConfigError: no labels were given and none are stored (label, then run again).
        FetchError, FormError, BrowserError, StorageError: see :meth:`Crawl.run`.
    """
    chosen = _settings(
        settings, db=db, max_pages=max_pages, max_queries=max_queries, keywords=keywords
    )
    async with Crawl(
        start_url, settings=chosen, like=like, labels_file=labels, resume=resume
    ) as crawl:
        # closed here when the reader stops early, so that the crawl's tasks end before the
        # crawl does, not later when the garbage collector finds the generator
        async with contextlib.aclosing(crawl.pages()) as records:
            async for record in records:
                yield record
        _check_labelled(crawl.report)


async def crawl_each(
    start_url: str,
    callback: Callable[[Record], Awaitable[None] | None],
    *,
    like: Sequence[str] = (),
    labels: Path | None = None,
    settings: Settings | None = None,
    db: str | None = None,
    max_pages: int | None = None,
    max_queries: int | None = None,
    keywords: Path | None = None,
    resume: bool = False,
) -> CrawlReport:
    """Crawl a site and call ``callback(record)`` for each wanted page (it may be async).

    Arguments and errors as :func:`crawl_pages`. An exception the callback raises stops the
    crawl at once (every task cancelled, the URLs in flight queued again) and is raised here
    as itself; the page it was called with is not remembered as delivered.

    Returns:
        How the crawl ended, with its figures.
    """
    from deepcrawl.crawler.deliver import CallbackSink

    chosen = _settings(
        settings, db=db, max_pages=max_pages, max_queries=max_queries, keywords=keywords
    )
    async with Crawl(
        start_url, settings=chosen, like=like, labels_file=labels, resume=resume
    ) as crawl:
        report = await crawl.run(CallbackSink(callback))
    _check_labelled(report)
    return report


def _check_labelled(report: CrawlReport | None) -> None:
    if report is not None and report.status == "needs_labels":
        raise ConfigError(
            "no prototype is labelled relevant: pass like=[an example URL] or labels=FILE, "
            f"or label site {report.site_id} with 'deepcrawl label', then run again"
        )
