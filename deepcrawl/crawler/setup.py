"""The setup phase (Hernández et al., "setup phase"): form, first queries, prototypes, labels.

1. find the site's search form with the critic (:func:`locate_form`; a form found by an earlier
   run is judged again from storage, not fetched again);
2. fetch the ``--like`` example pages (:func:`fetch_examples`): they are evidence of the wanted
   kind — their words become queries (xCrawl's query generation from sample documents) and
   their URLs join the links the prototyper sees;
3. submit the first :data:`SETUP_QUERIES` keywords the keyword manager chooses (the stop-word
   probe, the user's words and the examples' first) and store every link their result pages
   show (:func:`run_setup`); while no result link is like an example, read deeper
   (:data:`LIKE_RESULT_PAGES`) and query on (up to :data:`LIKE_SETUP_QUERIES`): a site-wide
   search may list other kinds first;
4. prototype those links into regular expressions (:class:`~deepcrawl.prototypes.LabelSession`);
5. take the user's labels (:func:`apply_labels`): ``--like`` example URLs, a ``--labels`` file,
   the interactive session, or — for the bench, which cannot ask — the prototype holding most
   result links; a ``--like`` page's layout then checks its prototype, narrows it, and widens
   its label to the sibling prototypes whose pages look like it (:func:`check_like_layouts`).

The normal phase (:mod:`deepcrawl.crawler.normal`) goes on from the stored queries.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from deepcrawl.crawler.queries import SETUP, query_loop
from deepcrawl.errors import (
    ConfigError,
    FormError,
    InvalidURLError,
    SearchForbiddenError,
    UnsafeFormError,
)
from deepcrawl.page.fetched import FetchedPage
from deepcrawl.page.form import Form
from deepcrawl.prototypes import (
    LabelSession,
    Prototyper,
    read_labels_file,
    suggest_name,
)
from deepcrawl.querying import QueryLoop, main_text, order
from deepcrawl.querying.order import one_way_share
from deepcrawl.querying.resume import resume_url
from deepcrawl.records.documents import StoredPages
from deepcrawl.records.like import check_like_layout, sample_politely
from deepcrawl.search.causes import describe_causes
from deepcrawl.search.results import PAGE_CAP_NOTE
from deepcrawl.urls import normalise_or_none

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.browser.pool import BrowserPool
    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.forms.critic import CriticVerdict
    from deepcrawl.search.backend import QueryBackend
    from deepcrawl.search.results import QueryResult
    from deepcrawl.settings import Settings
    from deepcrawl.storage.tables import FormRead

__all__ = [
    "LIKE_RESULT_PAGES",
    "LIKE_SETUP_QUERIES",
    "SETUP_FIRST_PAGES",
    "SETUP_NEW_SHARE",
    "SETUP_QUERIES",
    "SETUP_RESULT_PAGES",
    "SETUP_UNTOTALLED_PAGES",
    "SearchForm",
    "apply_labels",
    "check_like_layouts",
    "example_texts",
    "example_urls",
    "fetch_examples",
    "has_relevant",
    "label_session",
    "like_seen",
    "locate_form",
    "repeats_one_listing",
    "run_setup",
    "save_search_form",
    "setup_fetch",
    "setup_pages",
]

logger = logging.getLogger(__name__)

#: Queries of the setup phase: their result links are prototyped for labelling (the stop-word
#: probes count). The normal phase goes on from there to saturation.
SETUP_QUERIES = 8
#: Result pages the setup phase reads of its queries until one list was read past its first
#: page: how a list goes on (the kinds listed after those first, its pager).
SETUP_FIRST_PAGES = 3
#: Result pages read per setup query after that, where a list reported its total: the later
#: pages show records that rank low in every list, which the stop by the lists' totals otherwise
#: waits for. One page a query was measured and not taken (BENCHMARKS.md, eleventh round).
SETUP_RESULT_PAGES = 3
#: Result pages read per setup query after the first list where no list reported a total: the
#: stop then needs lists read to their end, which bring what later pages of the setup's lists
#: would.
SETUP_UNTOTALLED_PAGES = 1
#: Result pages read per setup query at most while no result link is like the ``--like``
#: example (the wanted kind may be listed after other kinds of a site-wide search), or with no
#: example while the lists repeat one listing first.
LIKE_RESULT_PAGES = 10
#: Setup queries at most (:data:`SETUP_QUERIES` included) while no result link is like the
#: ``--like`` example, before the crawl reports what the queries showed instead.
LIKE_SETUP_QUERIES = 24
#: With no example, a setup query's list repeats one listing when less than this share of its
#: result links are new to the lists before (:func:`repeats_one_listing`).
SETUP_NEW_SHARE = 0.5

#: Steps between the links a setup query's list repeats that tell whether it repeats them in
#: their order: a chance order of five goes one way once in sixty.
_REPEAT_STEPS = 4


@dataclass(frozen=True, slots=True)
class SearchForm:
    """The form a crawl queries, the critic's verdict on it, and its stored id."""

    form: Form
    verdict: CriticVerdict
    form_id: int
    chosen_now: bool = False
    """Chosen by the critic on this run (not stored, not ``--form``'s): it may be checked for
    whether it searches the records (:mod:`deepcrawl.crawler.records_search`)."""


async def locate_form(
    ctx: CrawlContext,
    pool: BrowserPool,
    *,
    document: FetchedPage | None = None,
    like: Sequence[str] = (),
) -> SearchForm:
    """The site's search form: from storage when an earlier run found it, else from the page
    (the one ``forms.form`` picks, else the critic's choice) — rendered from ``document``, the
    start page as the input check fetched it, when that is its HTML answer.

    A stored form is the one the crawl chose (by the critic, or the user's ``--form``): it is
    queried again even when the critic would not pick it, unless the safety policy refuses it.
    With ``forms.form`` the page is looked at again: a stored crawl without queries switches
    to the form picked; one with queries cannot.

    Raises:
        FetchError: the start page cannot be fetched.
        FormError: it has no form the critic accepts, or robots.txt forbids the start page or
            the form's action (the message says what robots.txt still allows that leads to
            records, and suggests ``--navigate``).
        ConfigError: ``forms.form`` picks no form of the start page, or another form than the
            one the stored crawl's queries went to.
    """
    from deepcrawl.forms import load_critic
    from deepcrawl.forms.fields import user_verdict
    from deepcrawl.search import find_search_form

    stored = [row for row in ctx.repo.forms(ctx.site.id) if row.searchable]
    picked = ctx.settings.forms.form is not None
    for row in [] if picked else stored:
        form = Form.model_validate(row.model)
        verdict = load_critic(ctx.settings.forms).judge([form])[0]
        try:
            verdict = user_verdict(form, verdict, ctx.settings.forms.refused_words)
        except UnsafeFormError:
            continue
        logger.info("search form %s from storage (found by an earlier run)", form.action)
        return SearchForm(form, verdict, row.id)
    if not ctx.robots.allowed(ctx.start_url):
        raise SearchForbiddenError(
            f"robots.txt forbids {ctx.start_url}: no search form can be looked for; "
            + still_allowed_clause(ctx, None, like)
        )
    try:  # rendered in the crawl's pool: its requests pass the crawl's gate
        form, verdict = await find_search_form(ctx.start_url, ctx.settings, pool, document=document)
    except FormError as exc:  # no search form here: look for it (entry-point discovery)
        logger.info("%s; looking for one by entry-point discovery", exc)
        form, verdict = await _discover_form(ctx, pool, exc)
    if not ctx.robots.allowed(form.action):
        raise SearchForbiddenError(
            f"robots.txt forbids the search form's action {form.action}: no query is sent; "
            + still_allowed_clause(ctx, document, like)
        )
    logger.info(
        "search form chosen: %s %s (%s), type %s, searchability %.2f, keywords into %r",
        form.method.upper(), form.action, form.locator or "no locator", verdict.type,
        verdict.score, verdict.query_field,
    )  # fmt: skip
    if picked:
        same = [  # the same form by what stays of it across loads (its name may not)
            r
            for r in stored
            if r.page_url == form.page_url
            and Form.model_validate(r.model).identity == form.identity
        ]
        if same:
            return SearchForm(form, verdict, same[0].id)
        if stored and ctx.state.field_values() is not None:  # queries went to the stored form
            raise ConfigError(
                f"--form picks the form {form.locator}, but this site's stored crawl queried "
                f"{stored[0].locator}; crawl into another database (--db) to query another form"
            )
        for old in stored:  # never queried: the user's pick replaces it
            ctx.repo.save_form(ctx.site.id, Form.model_validate(old.model), searchable=False)
    row = save_search_form(ctx, form, verdict)
    return SearchForm(form, verdict, row.id, chosen_now=not picked)


def save_search_form(ctx: CrawlContext, form: Form, verdict: CriticVerdict) -> FormRead:
    """Store ``form`` as the site's searchable form, with the critic's ``verdict`` on it."""
    return ctx.repo.save_form(
        ctx.site.id,
        form,
        form_type=verdict.type,
        searchable=True,
        score=verdict.score,
        query_field=verdict.query_field,
    )


def still_allowed_clause(ctx: CrawlContext, start: FetchedPage | None, like: Sequence[str]) -> str:
    """What robots.txt still allows that leads to records (:mod:`deepcrawl.crawler.forbidden`)."""
    from deepcrawl.crawler.forbidden import still_allowed

    return still_allowed(
        ctx.robots.allowed,
        ctx.start_url,
        links=start.links if start is not None else (),
        sitemaps=ctx.robots.sitemaps(ctx.start_url),
        examples=example_urls(ctx, like),
    )


async def _discover_form(
    ctx: CrawlContext, pool: BrowserPool, cause: FormError
) -> tuple[Form, CriticVerdict]:
    """The search form of a page that entry-point discovery finds from the start URL.

    Raises:
        FormError: discovery found none within its budget (``cause`` chained).
    """
    from deepcrawl.links.discover import discover_site
    from deepcrawl.search import find_search_form

    ctx.enter("discovering form")
    found = await discover_site(ctx.start_url, ctx.settings, scope=pool.scope, gate=ctx.gate)
    ctx.stats.discovery_pages = found.pages_fetched
    for page in dict.fromkeys(form["page"] for form in found.forms):
        try:
            return await find_search_form(page, ctx.settings, pool)
        except FormError as exc:
            logger.debug("discovery: %s", exc)
            continue
    raise FormError(
        f"{cause}; entry-point discovery ({found.strategy}) found no search form in "
        f"{found.pages_fetched} pages either"
    ) from cause


def example_urls(ctx: CrawlContext, like: Sequence[str]) -> list[str]:
    """The ``--like`` examples as absolute URLs (a path is resolved against the start URL)."""
    return list(dict.fromkeys(urljoin(ctx.start_url, example) for example in like))


async def fetch_examples(
    ctx: CrawlContext,
    fetcher: Fetcher,
    like: Sequence[str],
    *,
    held: Sequence[FetchedPage] = (),
) -> list[FetchedPage]:
    """Fetch the ``--like`` example pages politely (scope, robots.txt, the host's rate), but
    those ``held`` (the input check's answers: :class:`~deepcrawl.crawler.inputs.StartPage`).

    An example that cannot be fetched is left out: its URL still joins the prototyper's links
    (:func:`label_session`), and the crawl goes on without its words.

    Returns:
        The pages fetched with a success status.
    """
    known = {page.url: page for page in held}
    pages: list[FetchedPage] = []
    for url in example_urls(ctx, like):
        if (page := known.get(url)) is not None:
            ctx.sessions.observe(link.url for link in page.links)
        else:
            page = await setup_fetch(ctx, fetcher, url)
        if page is not None and page.status < 400 and page.body:
            pages.append(page)
        else:
            logger.warning("--like example %s could not be fetched: its words are not used", url)
    return pages


async def setup_fetch(ctx: CrawlContext, fetcher: Fetcher, url: str) -> FetchedPage | None:
    """One page the setup phase looks at (an example, a layout sample): the stored copy when the
    crawl has it — so a resumed crawl fetches nothing twice — else fetched through the crawl's
    gate (scope, robots.txt, the safety rule, the host's rate:
    :func:`~deepcrawl.records.like.sample_politely`); None when refused or the fetch failed."""
    if (stored := StoredPages(ctx.repo, ctx.site.id).document(url)) is not None:
        body = stored.body.decode("utf-8", errors="replace")
        return FetchedPage(url, url, stored.status, stored.content_type, body)
    page = await sample_politely(ctx.gate.wrap(fetcher), url)
    if page is not None:
        ctx.sessions.observe(link.url for link in page.links)
    return page


def example_texts(pages: Sequence[FetchedPage]) -> list[str]:
    """The main text of each example page: the sample documents of xCrawl's queries."""
    return [text for page in pages if (text := main_text(page.body))]


def like_seen(urls: Sequence[str], examples: Sequence[str], ctx: CrawlContext) -> bool:
    """Whether every example's prototype, learnt from ``urls`` and the examples, holds a URL
    that is no example (a result page showed a URL like it)."""
    if not examples:
        return True
    links = _normal(ctx, urls)
    wanted = _normal(ctx, examples)
    ids = Prototyper().fit_predict([*links, *wanted])
    found = {pid for pid, url in zip(ids, links, strict=False) if url not in wanted}
    return all(pid is not None and pid in found for pid in ids[len(links) :])


async def run_setup(
    ctx: CrawlContext,
    search: QueryBackend,
    form_id: int,
    *,
    examples: Sequence[str] = (),
    example_pages: Sequence[FetchedPage] = (),
) -> QueryLoop:
    """Submit the setup phase's queries (those stored by an earlier run count).

    With ``examples`` (``--like`` URLs), their pages' words are queried among the first, and
    while no result link is like an example the queries read up to :data:`LIKE_RESULT_PAGES`
    result pages and go on to :data:`LIKE_SETUP_QUERIES`. With none, a query reads as deep
    when the one before repeated the earlier lists' links in their order
    (:func:`repeats_one_listing`): a site-wide search listing the same help pages first for
    every word shows its records further down.

    Returns:
        The query loop, with every stored query replayed into its manager.
    """
    ctx.enter("setup queries")
    loop = query_loop(
        ctx,
        form_id,
        phase=SETUP,
        # no parameter learnt to be no part of a URL makes another record
        record_id=lambda url: (
            None if (n := normalise_or_none(url)) is None else ctx.sessions.drop(n)
        ),
        max_pages=SETUP_RESULT_PAGES,
        examples=example_texts(example_pages),
    )
    ctx.changed()
    wanted = example_urls(ctx, examples)
    seen = like_seen(ctx.state.link_urls(), wanted, ctx)

    def merge(_learnt: set[str]) -> None:
        loop.facts.merge()  # the records known under their old ids count once

    # every result link shown so far, by the order it was first shown in
    shown: dict[str, int] = {}
    past_first = False  # whether a list was read past its first page
    totalled = False  # whether a list reported its total
    for query in ctx.state.queries():
        past_first |= query.row.result_pages > 1
        totalled |= query.row.results_reported is not None
        for url, _text in query.result_links():
            shown.setdefault(url, len(shown))
    stale = False  # no example: the last query's list repeated one listing first
    ctx.sessions.listeners.append(merge)
    try:
        while True:
            asked = len(loop.ledger.history)
            if asked >= (SETUP_QUERIES if seen else LIKE_SETUP_QUERIES):
                break
            pages = setup_pages(past_first=past_first, totalled=totalled)
            deeper = max(pages, LIKE_RESULT_PAGES)
            loop.max_pages = pages if seen and not stale else deeper
            if (result := await loop.step(search)) is None:
                break
            past_first |= result.pages > 1
            totalled |= result.total_results is not None
            if not seen:
                seen = like_seen(ctx.state.link_urls(), wanted, ctx)
            if not wanted:
                urls = list(dict.fromkeys(link.url for link in result.result_links))
                if (repeats := repeats_one_listing(urls, shown, ctx.settings)) is not None:
                    stale = repeats  # a list too short to tell leaves the verdict as it was
                for url in urls:
                    shown.setdefault(url, len(shown))
                if repeats and (result.error or "").startswith(PAGE_CAP_NOTE):
                    # its records lie past the listing it repeats: read it on
                    await _read_on(ctx, loop, search, result, deeper - result.pages, shown)
    finally:
        ctx.sessions.listeners.remove(merge)
    return loop


def setup_pages(*, past_first: bool, totalled: bool) -> int:
    """Result pages the next setup query reads: :data:`SETUP_FIRST_PAGES` until a list was
    read past its first page (how a list goes on); then :data:`SETUP_RESULT_PAGES` where the
    lists report their totals, :data:`SETUP_UNTOTALLED_PAGES` where none did.

    With totals, the stop judges each list by its total against the fetched records' words,
    and a setup list's later pages bring the records that rank low in it, which no first page
    of a later query shows. With none, the stop's evidence is lists read to their end, and
    those bring every record the later pages of the setup's lists would: read in the setup
    too, those pages are paid twice.
    """
    if not past_first:
        return SETUP_FIRST_PAGES
    return SETUP_RESULT_PAGES if totalled else SETUP_UNTOTALLED_PAGES


async def _read_on(
    ctx: CrawlContext,
    loop: QueryLoop,
    search: QueryBackend,
    result: QueryResult,
    pages: int,
    shown: dict[str, int],
) -> None:
    """Read the list of ``result`` on, ``pages`` more, from the page after those it read (its
    pager names it); the links it shows join ``shown``."""
    more = await loop.read_on(
        search, result.keyword, skip=result.pages, url=resume_url(result), pages=pages
    )
    for link in more.result_links:
        shown.setdefault(link.url, len(shown))


def repeats_one_listing(
    urls: Sequence[str], shown: Mapping[str, int], settings: Settings
) -> bool | None:
    """Whether a setup query's result links (``urls``, in list order) mostly repeat the links
    the lists before showed (``shown``: each by the order it was first shown in), in the order
    """
    repeated = [shown[url] for url in urls if url in shown]
    if len(urls) - len(repeated) >= SETUP_NEW_SHARE * len(urls):
        return False if len(urls) > _REPEAT_STEPS else None
    share = one_way_share(repeated, _REPEAT_STEPS)
    return None if share is None else share >= order.FIXED_ORDER_SHARE


def label_session(ctx: CrawlContext, examples: Sequence[str] = ()) -> LabelSession:
    """The site's prototypes, learnt from the stored result links on first use.

    The ``--like`` examples join the links: an example is a member of its prototype even when
    no result page showed it.

    Raises:
        FormError: the queries found no link at all (nothing to prototype).
    """
    links = ctx.state.link_urls()
    # in their normal form without the session parameters learnt: no kind of URL splits on them
    urls = [ctx.sessions.drop(url) for url in _normal(ctx, [*links, *example_urls(ctx, examples)])]
    if not links:
        causes = describe_causes(ctx.stats.query_failures)
        raise FormError(
            f"the search form of {ctx.start_url} returned no links in "
            f"{ctx.stats.queries} queries{f' ({causes})' if causes else ''}: "
            "nothing to learn prototypes from"
        )
    if ctx.repo.prototypes(ctx.site.id):
        return LabelSession(ctx.repo, ctx.site.id, _normal(ctx, urls))
    session = LabelSession.learn(ctx.repo, ctx.site.id, urls)
    logger.info("%d prototypes learnt from %d result links", len(session.members), len(links))
    return session


def _normal(ctx: CrawlContext, urls: Sequence[str]) -> list[str]:
    from deepcrawl.urls import URLNormaliser

    normaliser = URLNormaliser()
    out: list[str] = []
    for url in urls:
        try:  # without the parameters learnt to be no part of a URL
            out.append(ctx.sessions.drop(normaliser(url)))
        except InvalidURLError:
            continue
    return list(dict.fromkeys(out))


def apply_labels(
    ctx: CrawlContext,
    session: LabelSession,
    *,
    like: Sequence[str] = (),
    labels_file: Path | None = None,
) -> bool:
    """Take the user's labels; return whether some prototype is now labelled relevant.

    Order: the labels file, then ``like`` URLs (relative ones resolved against the start URL).
    With neither, the crawl picks the records itself (:mod:`deepcrawl.records.pick`).

    A ``like`` URL whose prototype holds no result link (the queries found nothing like it)
    labels nothing: the stop reason then says which queries were tried and what they showed.

    Raises:
        ConfigError: a labels file entry matches no prototype.
    """
    if labels_file is not None:
        session.apply(read_labels_file(labels_file, base=ctx.start_url))
        logger.info("labels applied from %s", labels_file)
    unseen: list[str] = []
    for example in like:
        url = urljoin(ctx.start_url, example)
        try:
            prototype = session.like(url)
        except (ConfigError, InvalidURLError):
            unseen.append(example)
            continue
        if not any(member != session.normaliser(url) for member in session.members[prototype.id]):
            unseen.append(example)
            continue
        session.label(prototype.id, suggest_name(prototype), relevant=True)
        logger.info("prototype %s labelled relevant: --like %s", prototype.regex, example)
    if unseen and not has_relevant(session):
        ctx.stats.stop_reason = _unseen_report(ctx, session, unseen)
        logger.warning("%s", ctx.stats.stop_reason)
    return has_relevant(session)


async def check_like_layouts(
    ctx: CrawlContext,
    session: LabelSession,
    like: Sequence[str],
    fetcher: Fetcher,
    *,
    known: Sequence[FetchedPage] = (),
) -> list[FetchedPage]:
    """Let each ``--like`` page's layout check its prototype (:mod:`deepcrawl.classify.layout`):
    narrow the prototype, then widen its label to the look-alike siblings (their regexes are
    listed in ``stats.like_widened``) — :func:`~deepcrawl.records.like.check_like_layout`, the
    sequence ``deepcrawl prototypes --from-file URLS --like U`` runs too.

    The pages come from ``known`` (the examples :func:`fetch_examples` fetched), the store, or
    the crawl's fetcher, politely and within its scope (:func:`setup_fetch`).

    Returns:
        Every page looked at, for the normal phase to adopt (:meth:`NormalPhase.adopt`) rather
        than fetch again.
    """
    pages = {page.url: page for page in known}

    async def fetch(url: str) -> FetchedPage | None:
        page = pages.get(url) or await setup_fetch(ctx, fetcher, url)
        if page is not None:
            pages[url] = page
        return page

    for example in like:
        layout = await check_like_layout(session, urljoin(ctx.start_url, example), fetch)
        widening = layout.widening
        ctx.stats.like_widened.extend(p.regex for p in widening.added)
        for p in widening.added:
            logger.info("prototype %s labelled like --like %s (its pages look alike)", p.regex,
                        example)  # fmt: skip
    return list(pages.values())


def _unseen_report(ctx: CrawlContext, session: LabelSession, unseen: Sequence[str]) -> str:
    """Which queries the setup phase tried and what their result links were, for an example
    no result link was like."""
    stored = [query.row for query in ctx.state.queries()]
    words = [row.keyword for row in stored]
    if stored and all(row.outcome == "error" for row in stored):
        # nothing to be like: the form refused every query (a required field, a bad value)
        sent = " ".join(f"--field {k}={v}" for k, v in stored[-1].field_values.items())
        return (
            f"--like {', '.join(unseen)}: every one of the {len(stored)} setup queries failed "
            f"({stored[-1].error})"
            + (f"; they were sent with {sent}" if sent else "")
            + " — see what the form takes with 'deepcrawl forms URL'"
        )
    kinds = sorted(session.members.items(), key=lambda item: -len(item[1]))[:5]
    shown = "; ".join(f"{session.get(pid).regex} ({len(urls)})" for pid, urls in kinds if urls)
    return (
        f"--like {', '.join(unseen)}: no result link of the {len(words)} setup queries "
        f"({', '.join(words[:30])}{' …' if len(words) > 30 else ''}) was like it; "
        f"they showed {shown or 'no link'} — label with 'deepcrawl label', or give --keywords"
    )


def has_relevant(session: LabelSession) -> bool:
    """Whether some prototype of the session is labelled relevant."""
    return any(wanted for _name, wanted in session.labels().values())
