"""The setup phase (Hernández et al., "setup phase"): form, first queries, prototypes, labels.

1. find the site's search form with the critic (:func:`locate_form`; a form found by an earlier
   run is judged again from storage, not fetched again);
2. submit the first ``crawl.setup_queries`` keywords the keyword manager chooses (the stop-word
   probe first) and store every link their result pages show (:func:`run_setup`);
3. prototype those links into regular expressions (:class:`~deepcrawl.prototypes.LabelSession`);
4. take the user's labels (:func:`apply_labels`): ``--like`` example URLs, a ``--labels`` file,
   the interactive session, or — for the bench, which cannot ask — the prototype holding most
   result links; a ``--like`` page's layout then checks its prototype, narrows it, and widens
   its label to the sibling prototypes whose pages look like it (:func:`check_like_layouts`).

The normal phase (:mod:`deepcrawl.crawler.normal`) goes on from the stored queries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from deepcrawl.browser.base import FetchedPage, Link
from deepcrawl.crawler.queries import QueryLoop
from deepcrawl.errors import ConfigError, FetchError, FormError, InvalidURLError
from deepcrawl.forms.model import Form
from deepcrawl.prototypes import (
    LabelSession,
    read_labels_file,
    record_suggestion,
    suggest_name,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.browser.pool import BrowserPool
    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.forms.critic import CriticVerdict
    from deepcrawl.forms.results import QueryResult
    from deepcrawl.forms.search import FormSearch
    from deepcrawl.storage.tables import QueryRead

__all__ = [
    "SearchForm",
    "apply_labels",
    "check_like_layouts",
    "label_session",
    "locate_form",
    "run_setup",
]


@dataclass(frozen=True, slots=True)
class SearchForm:
    """The form a crawl queries, the critic's verdict on it, and its stored id."""

    form: Form
    verdict: CriticVerdict
    form_id: int


async def locate_form(ctx: CrawlContext, pool: BrowserPool) -> SearchForm:
    """The site's search form: from storage when an earlier run found it, else from the page.

    Raises:
        FetchError: the start page cannot be fetched.
        FormError: it has no form the critic accepts, or robots.txt forbids the start page.
    """
    from deepcrawl.forms import find_search_form, load_critic

    for row in ctx.repo.forms(ctx.site.id):
        if row.searchable:
            form = Form.model_validate(row.model)
            verdict = load_critic(ctx.settings.forms).judge([form])[0]
            if verdict.searchable:
                return SearchForm(form, verdict, row.id)
    if not ctx.robots.allowed(ctx.start_url):
        raise FormError(f"robots.txt forbids {ctx.start_url}: no search form can be looked for")
    ctx.stats.requests += 1
    try:
        async with ctx.limiter.slot(ctx.start_url):
            form, verdict = await find_search_form(ctx.start_url, ctx.settings, pool)
    except FormError as exc:  # no search form here: look for it (entry-point discovery)
        form, verdict = await _discover_form(ctx, pool, exc)
    if not ctx.robots.allowed(form.action):
        raise FormError(f"robots.txt forbids the search form's action {form.action}")
    row = ctx.repo.save_form(
        ctx.site.id,
        form,
        form_type=verdict.type,
        searchable=True,
        score=verdict.score,
        query_field=verdict.query_field,
    )
    return SearchForm(form, verdict, row.id)


async def _discover_form(
    ctx: CrawlContext, pool: BrowserPool, cause: FormError
) -> tuple[Form, CriticVerdict]:
    """The search form of a page that entry-point discovery finds from the start URL.

    Raises:
        FormError: discovery found none within its budget (``cause`` chained).
    """
    from deepcrawl.crawler.discover import discover_site
    from deepcrawl.forms import find_search_form

    ctx.stats.phase = "discover"
    ctx.changed()
    found = await discover_site(ctx.start_url, ctx.settings, scope=pool.scope)
    ctx.stats.requests += found.pages_fetched
    ctx.stats.discovery_pages = found.pages_fetched
    for page in dict.fromkeys(form["page"] for form in found.forms):
        ctx.stats.requests += 1
        async with ctx.limiter.slot(page):
            try:
                return await find_search_form(page, ctx.settings, pool)
            except FormError:
                continue
    raise FormError(
        f"{cause}; entry-point discovery ({found.strategy}) found no search form in "
        f"{found.pages_fetched} pages either"
    ) from cause


def store_results_page(ctx: CrawlContext, result: QueryResult, row: QueryRead) -> None:
    """Keep a query's result links as a ``results`` page, where ``deepcrawl label`` finds them.

    The body is not kept (the links are what the prototyper reads); the page's key carries the
    query id, as a POST form's result pages share one URL.
    """
    if not result.submitted:
        return
    first = result.submitted[0]
    page = FetchedPage(
        url=first,
        final_url=first,
        status=200,
        content_type="text/html",
        body="",
        links=[Link(url=link.url, text=link.text, dom_path=link.dom_path) for link in result.links],
        via=result.via,
    )
    ctx.repo.save_page(ctx.site.id, page, url=f"{first}#query-{row.id}", kind="results")


async def run_setup(ctx: CrawlContext, search: FormSearch, form_id: int) -> QueryLoop:
    """Submit the setup phase's queries (those stored by an earlier run count).

    Returns:
        The query loop, with every stored query replayed into its manager.
    """
    ctx.stats.phase = "setup"
    loop = QueryLoop(ctx, form_id, max_pages=ctx.settings.crawl.setup_result_pages)
    loop.replay(ctx.state.queries())
    ctx.changed()
    while len(loop.manager.history) < ctx.settings.crawl.setup_queries:
        step = await loop.step(search)
        if step is None:
            break
        store_results_page(ctx, *step)
    return loop


def label_session(ctx: CrawlContext) -> LabelSession:
    """The site's prototypes, learnt from the stored result links on first use.

    Raises:
        FormError: the queries found no link at all (nothing to prototype).
    """
    urls = ctx.state.link_urls()
    if not urls:
        raise FormError(
            f"the search form of {ctx.start_url} returned no links in "
            f"{ctx.stats.queries} queries: nothing to learn prototypes from"
        )
    if ctx.repo.prototypes(ctx.site.id):
        return LabelSession(ctx.repo, ctx.site.id, _normal(ctx, urls), ctx.settings.prototypes)
    return LabelSession.learn(ctx.repo, ctx.site.id, urls, ctx.settings.prototypes)


def _normal(ctx: CrawlContext, urls: Sequence[str]) -> list[str]:
    from deepcrawl.urls import URLNormaliser

    normaliser = URLNormaliser(ctx.settings.prototypes)
    out: list[str] = []
    for url in urls:
        try:
            out.append(normaliser(url))
        except InvalidURLError:
            continue
    return list(dict.fromkeys(out))


def apply_labels(
    ctx: CrawlContext,
    session: LabelSession,
    *,
    like: Sequence[str] = (),
    labels_file: Path | None = None,
    labeller: Callable[[LabelSession], None] | None = None,
) -> bool:
    """Take the user's labels; return whether some prototype is now labelled relevant.

    Order: the labels file, then ``like`` URLs (relative ones resolved against the start URL),
    then — only when nothing relevant is labelled yet — ``labeller`` (interactive), then
    ``crawl.auto_label``.

    Raises:
        ConfigError: a labels file entry or a ``like`` URL matches no prototype.
    """
    if labels_file is not None:
        session.apply(read_labels_file(labels_file, base=ctx.start_url))
    for example in like:
        url = urljoin(ctx.start_url, example)
        try:
            session.label_like(url)
        except (ConfigError, InvalidURLError) as exc:
            raise ConfigError(
                f"--like {example}: {exc}; the setup queries found no URL like it "
                f"(raise crawl.setup_queries, or label with 'deepcrawl label')"
            ) from exc
    if not _relevant(session) and labeller is not None:
        labeller(session)
    if not _relevant(session) and ctx.settings.crawl.auto_label:
        _auto_label(ctx, session)
    return _relevant(session)


async def check_like_layouts(
    ctx: CrawlContext, session: LabelSession, like: Sequence[str], fetcher: Fetcher
) -> None:
    """Let each ``--like`` page's layout check its prototype (:mod:`deepcrawl.classify.layout`):
    narrow the prototype, then widen its label to the look-alike siblings (their regexes are
    listed in ``stats.like_widened``).

    The pages are fetched through the crawl's fetcher, politely and within its scope.
    """
    from deepcrawl.classify.layout import narrow_to_example, widen_to_siblings

    async def fetch(url: str) -> str | None:
        if not ctx.in_scope(url) or not ctx.robots.allowed(url):
            return None
        ctx.stats.requests += 1
        try:
            async with ctx.limiter.slot(url):
                page = await fetcher.fetch(url)
        except FetchError:
            return None
        return page.body if page.status < 400 and page.is_html else None

    for example in like:
        check = await narrow_to_example(session, urljoin(ctx.start_url, example), fetch)
        widening = await widen_to_siblings(session, check, fetch)
        ctx.stats.like_widened.extend(p.regex for p in widening.added)


def _relevant(session: LabelSession) -> bool:
    return any(relevant for _name, relevant in session.labels().values())


def _auto_label(ctx: CrawlContext, session: LabelSession) -> None:
    """Mark the prototype holding most result links as relevant (no one to ask)."""
    result_urls = (url for query in ctx.state.queries() for url, _text in query.result_links())
    best = record_suggestion(session, result_urls)
    if best is not None:
        p = session.get(best)
        session.label(p.id, suggest_name(p), relevant=True)
