"""Where the records' search is: a start page's box that only filters the page is not it.

A site's start page may hold a box that searches something else than the records: a library's
home page filters its *collections*, a source-code browser's its *projects*, and the search of
the articles or the commits sits on each collection's or project's page, and on every record
page. Querying such a box lists the page's own items and never a record.

Before the crawl queries the form it found on the start page, it asks it one word the start
page's links share (so that a filter answers something): a form whose answers are all links the
start page already shows (twice, with two words) filters the page rather than search a
database behind it. The search of the records is then looked for where the records are — on
the ``--like`` examples' pages first, then on the pages the box's answers lead to — and a form
found there of another :attr:`~deepcrawl.page.form.Form.identity` is taken when its own answer
to one of the words reaches past the start page. Otherwise the start page's form is kept: a
site whose record pages carry the same search box as its start page is unchanged, at the cost
of one query through the crawl's own search (its baseline and plain-HTTP path, learnt on the
way, serve the crawl after).
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, unquote_plus, urlsplit

from deepcrawl.errors import DeepcrawlError, SearchForbiddenError
from deepcrawl.keywords.sources import stopwords
from deepcrawl.keywords.text import tokenize
from deepcrawl.urls import normalise_or_none

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from deepcrawl.browser.pool import BrowserPool
    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.crawler.setup import SearchForm
    from deepcrawl.forms.critic import CriticVerdict
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.page.form import Form
    from deepcrawl.search.backend import QueryBackend

__all__ = ["PROBE_WORDS", "Candidate", "probe_words", "records_search", "switch_form"]

logger = logging.getLogger(__name__)

#: Words a form is asked before it is taken for a filter of the start page (each must answer
#: only with the page's own links).
PROBE_WORDS = 2
#: Words more that may be asked where one is answered by nothing (a word of one item's title
#: the box matches differently): a filter is told by answers, not silences.
PROBE_SPARE = 2
#: Pages the start box's answers lead to that are looked at for the records' search.
ANSWER_PAGES = 3
#: A word this short is no probe (it would match inside others).
_MIN_WORD = 4
#: A page whose HTML holds fewer links with a text is read as the browser draws it.
_FEW_LINKS = 3


@dataclass(frozen=True, slots=True)
class Candidate:
    """A search form found on a page, with the page it was found on (its held state)."""

    form: Form
    verdict: CriticVerdict
    page: FetchedPage | None = None


def probe_words(page: FetchedPage, count: int = PROBE_WORDS) -> list[str]:
    """The ``count`` words the most of ``page``'s link texts hold (stop words and short words
    aside; a tie in alphabetical order): a box that filters the page's items answers them."""
    stop = stopwords()
    shared: Counter[str] = Counter()
    for text in {link.text for link in page.links if link.text}:
        shared.update({w for w in tokenize(text) if len(w) >= _MIN_WORD and w not in stop})
    ranked = sorted(shared.items(), key=lambda item: (-item[1], item[0]))
    return [word for word, _n in ranked[:count]]


async def records_search(
    ctx: CrawlContext,
    pool: BrowserPool,
    search: QueryBackend,
    form: Form,
    start: FetchedPage | None,
    examples: Sequence[FetchedPage] = (),
) -> Candidate | None:
    """The records' search where ``form`` (the start page's, queried through ``search``, the
    crawl's own backend: its page, baseline and plain-HTTP path serve the crawl after) only
    filters the start page: the form of another identity on the examples' or the answers' pages
    (see the module docstring); None to keep ``form``.

    Raises:
        SearchForbiddenError: the search found where the records are submits where robots.txt
            forbids (the message says what it still allows).
    """
    if start is None:
        return None
    start = await _drawn(pool, start)
    words = probe_words(start, PROBE_WORDS + PROBE_SPARE)
    on_page = _normal({link.url for link in start.links} | {start.url, start.final_url})
    answers: list[str] = []
    answered = answered_at = 0  # words it answered (with the page's own links only), asked
    for word in words:
        answered_at += 1
        shown = await _answers(search, form, word)
        if not shown and (sent := _forbidden_query(ctx, word)) is not None:
            raise _forbidden(
                ctx, start, examples,
                f"the search of {form.page_url} sends its queries to {sent}, which robots.txt "
                "forbids: no query is answered",
            )  # fmt: skip
        if shown is None:
            return None  # cannot tell
        if not shown <= on_page:
            return None  # it answers past the page: a search of its own
        if shown:
            answered += 1
            answers += sorted(shown - set(answers))
        if answered == PROBE_WORDS:
            break
    if answered < PROBE_WORDS:
        return None  # too few answers to tell
    logger.info(
        "the start page's form %s answered %s with the page's own links only: looking for the "
        "records' search on the examples' and the answers' pages",
        form.action, ", ".join(repr(w) for w in words[:answered_at]),
    )  # fmt: skip
    pages: list[tuple[str, FetchedPage | None]] = [(p.final_url, p) for p in examples]
    pages += [(url, None) for url in answers[:ANSWER_PAGES]]
    seen = {form.identity}
    for url, held in pages:
        other = await _form_on(ctx, pool, url, held, seen)
        if other is None:
            continue
        seen.add(other.form.identity)
        filters = f"the start page's form {form.action} only filters the page's own links"
        if not ctx.robots.allowed(other.form.action):
            raise _forbidden(
                ctx, start, examples,
                f"{filters}; the search on {url} submits to {other.form.action}, which "
                "robots.txt forbids: no query is sent",
            )  # fmt: skip
        reaches, sent = await _reaches_past(ctx, pool, other, words, on_page)
        if sent is not None:
            raise _forbidden(
                ctx, start, examples,
                f"{filters}; the search on {url} sends its queries to {sent}, which robots.txt "
                "forbids: no query is answered",
            )  # fmt: skip
        if reaches:
            logger.info(
                "the records' search is the form of %s (%s %s): its answers reach past the "
                "start page", url, other.form.method, other.form.action,
            )  # fmt: skip
            return other
    logger.info("no other search found where the records are: the start page's form is kept")
    return None


async def _reaches_past(
    ctx: CrawlContext,
    pool: BrowserPool,
    candidate: Candidate,
    words: Sequence[str],
    on_page: set[str],
) -> tuple[bool, str | None]:
    """Whether ``candidate``'s first answer to one of ``words`` holds a link the start page
    does not show (a word it refuses, too short or too common, is no verdict: the next); and
    the request robots.txt refused that carried a word it answered nothing to (its script's
    search request, :func:`_forbidden_query`), or None."""
    from deepcrawl.search.form_search import FormSearch

    try:
        async with FormSearch(
            pool, candidate.form, candidate.verdict, ctx.settings, gate=ctx.gate,
            held=candidate.page,
        ) as search:  # fmt: skip
            for word in words:
                shown = await _answers(search, candidate.form, word)
                if shown:
                    return not shown <= on_page, None
                if (sent := _forbidden_query(ctx, word)) is not None:
                    return False, sent
    except DeepcrawlError as exc:
        logger.debug("probing %s: %s", candidate.form.action, exc)
    return False, None


async def _drawn(pool: BrowserPool, page: FetchedPage) -> FetchedPage:
    """``page`` as its links show: rendered in the browser where its HTML holds fewer than
    :data:`_FEW_LINKS` links with a text (a page a script draws)."""
    from deepcrawl.browser.render import render_page

    if sum(1 for link in page.links if link.text) >= _FEW_LINKS:
        return page
    try:
        async with pool.page() as lease:
            return await render_page(lease, page.final_url, forms=False)
    except DeepcrawlError as exc:
        logger.debug("rendering %s for its links: %s", page.final_url, exc)
        return page


async def _form_on(
    ctx: CrawlContext,
    pool: BrowserPool,
    url: str,
    held: FetchedPage | None,
    seen: Collection[object],
) -> Candidate | None:
    """The searchable form of the page at ``url`` if it is one not looked at yet."""
    from deepcrawl.search import find_search_form

    if not ctx.robots.allowed(url):
        return None
    try:
        form, verdict = await find_search_form(url, ctx.settings, pool, document=held)
    except DeepcrawlError as exc:
        logger.debug("no search form on %s: %s", url, exc)
        return None
    if form.identity in seen:
        return None
    return Candidate(form, verdict, held)


def _forbidden(
    ctx: CrawlContext, start: FetchedPage, examples: Sequence[FetchedPage], why: str
) -> SearchForbiddenError:
    """The error of a search robots.txt forbids: ``why``, then what robots.txt still allows
    that leads to records."""
    from deepcrawl.crawler.setup import still_allowed_clause  # the setup this serves

    allowed = still_allowed_clause(ctx, start, [page.final_url for page in examples])
    return SearchForbiddenError(f"{why}; {allowed}")


def _forbidden_query(ctx: CrawlContext, word: str) -> str | None:
    """A request the page sent with ``word`` as a parameter's value or a path segment that
    robots.txt refused (the gate's kept refusals, :attr:`Gate.forbidden
    <deepcrawl.fetch.gate.Gate.forbidden>`): the search's own request, where a script sends
    it; None where there is none."""
    wanted = word.casefold()
    for url in reversed(ctx.gate.forbidden):
        parts = urlsplit(url)
        values = [v.casefold() for _k, v in parse_qsl(parts.query, keep_blank_values=True)]
        segments = [unquote_plus(s).casefold() for s in parts.path.split("/")]
        if wanted in values or wanted in segments:
            return url
    return None


async def _answers(search: QueryBackend, form: Form, word: str) -> set[str] | None:
    """The normalised result links of ``search``'s first result page for ``word``; None
    where the query failed."""
    try:
        result = await search.query(word, max_pages=1)
    except DeepcrawlError as exc:
        logger.debug("probe %r of %s: %s", word, form.action, exc)
        return None
    if result.outcome not in {"ok", "no_results"}:
        return None
    return _normal(set(result.result_urls))


def _normal(urls: Collection[str]) -> set[str]:
    return {n for url in urls if (n := normalise_or_none(url)) is not None}


def switch_form(
    ctx: CrawlContext, found: SearchForm, form: Form, verdict: CriticVerdict
) -> SearchForm:
    """The crawl's search moved from ``found`` to ``form`` (the records' search, found where
    the records are): stored as the site's searchable form, ``found``'s no longer, so that a
    resumed crawl queries it."""
    from deepcrawl.crawler.setup import SearchForm, save_search_form  # the setup this serves

    ctx.repo.save_form(ctx.site.id, found.form, searchable=False)
    row = save_search_form(ctx, form, verdict)
    logger.info(
        "search form chosen: %s %s (%s) on %s, type %s, searchability %.2f",
        form.method.upper(), form.action, form.locator or "no locator", form.page_url,
        verdict.type, verdict.score,
    )  # fmt: skip
    return SearchForm(form, verdict, row.id)
