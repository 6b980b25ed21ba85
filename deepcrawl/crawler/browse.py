"""A crawl without a query: where robots.txt forbids the search, ``--navigate`` reaches the
records through the pages it allows.

With ``--navigate``, a crawl whose search robots.txt forbids
(:class:`~deepcrawl.errors.SearchForbiddenError`) reads the site as a person browsing it would:

1. the start page's links robots.txt allows (its lists: categories, new arrivals …; the safety
   rule's refusals left out) are read through the crawl's gate, as the setup phase reads
   result lists — :data:`MAX_LISTS` at most, each for up to :data:`LIST_PAGES` of its pages
   (its next-page links followed, as a result list's are);
2. their links, the start page's and the examples' are prototyped; the ``--like`` examples
   label their kind (:func:`~deepcrawl.crawler.setup.apply_labels`), and with none the lists'
   links are the evidence the records' kind is picked by (:func:`listed_links`,
   :func:`~deepcrawl.records.pick.pick_kinds`), each page of a list one list of entries, as
   each query's results are where the crawl may search;
3. each list that shows the records is read on to its end (:func:`read_to_end`, as a result
   list is), and the normal phase, with no search to query, queues the lists' wanted links and
   fetches them (and the records that the sitemaps robots.txt names list); the navigate phase
   follows the site's links from the start page for the rest.

Every request passes the crawl's gate: nothing robots.txt forbids is asked for.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from deepcrawl.crawler.forbidden import allowed_links
from deepcrawl.crawler.setup import apply_labels, example_urls, has_relevant, setup_fetch
from deepcrawl.errors import SearchForbiddenError
from deepcrawl.prototypes import LabelSession
from deepcrawl.search.judge import classify_links
from deepcrawl.search.pagination import next_page
from deepcrawl.search.results import ChromeFilter, page_from_fetched
from deepcrawl.urls import normalise_urls

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence
    from pathlib import Path

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.crawler.context import CrawlContext, CrawlStats
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.prototypes import ShownLink
    from deepcrawl.records.pick import Pick

__all__ = [
    "LIST_PAGES",
    "MAX_LISTS",
    "BrowsedList",
    "browse_lists",
    "browsed",
    "listed_links",
    "read_lists",
    "read_to_end",
]

logger = logging.getLogger(__name__)

#: The start page's allowed links read as lists before the records' kind is learnt.
MAX_LISTS = 20
#: The pages of each allowed list read before the records' kind is learnt (its first and the
#: next ones): a kind is judged on the entries of several lists, never on one page's.
LIST_PAGES = 3


@dataclass(slots=True)
class BrowsedList:
    """One allowed list as read so far: its pages, and its next page's URL (None: its end)."""

    pages: list[FetchedPage] = field(default_factory=list)
    next_url: str | None = None


async def browse_lists(
    ctx: CrawlContext,
    fetcher: Fetcher,
    start: FetchedPage | None,
    examples: Sequence[FetchedPage],
    *,
    like: Sequence[str],
    labels_file: Path | None,
    pick: Callable[[LabelSession, Sequence[ShownLink]], Awaitable[Pick | None]],
) -> tuple[list[BrowsedList], list[FetchedPage]]:
    """Read the allowed lists and label the records' kind: the ``--like`` examples' or the
    labels file's, else the one ``pick`` takes from the lists' links (:func:`listed_links`).

    Returns:
        The lists read, and the pages the pick looked at as its examples.

    Raises:
        SearchForbiddenError: no page robots.txt allows links records of a kind labelled.
    """
    session, lists = await read_lists(ctx, fetcher, start, examples, like)
    picked: list[FetchedPage] = []
    labelled = apply_labels(ctx, session, like=like, labels_file=labels_file)
    if not labelled and not like and labels_file is None:
        chosen = await pick(session, listed_links(start, lists, ctx.sessions.drop))
        labelled = chosen is not None and has_relevant(session)
        picked = list(chosen.example_pages) if chosen is not None else []
    if not labelled:
        what = f"records like {', '.join(like)}" if like else "a kind of records"
        raise SearchForbiddenError(
            f"robots.txt forbids the search of {ctx.start_url}, and no page it allows links {what}"
        )
    return lists, picked


async def read_lists(
    ctx: CrawlContext,
    fetcher: Fetcher,
    start: FetchedPage | None,
    examples: Sequence[FetchedPage],
    like: Sequence[str],
) -> tuple[LabelSession, list[BrowsedList]]:
    """Read the start page's allowed lists and learn the site's prototypes from their links.

    Args:
        ctx: the crawl's context (its gate, robots.txt, storage).
        fetcher: the crawl's fetcher (sent through the gate).
        start: the start page as the input check fetched it (None: its links are unknown).
        examples: the ``--like`` examples' pages.
        like: the ``--like`` examples.

    Returns:
        The label session over the prototypes learnt, and the lists read (up to
        :data:`LIST_PAGES` pages of each).
    """
    links = start.links if start is not None else ()
    lists: list[BrowsedList] = []
    for url in allowed_links(ctx.robots.allowed, ctx.start_url, links)[:MAX_LISTS]:
        read = BrowsedList(next_url=url)
        await _read_on(ctx, fetcher, read, LIST_PAGES)
        if read.pages:
            lists.append(read)
    pages = [page for read in lists for page in read.pages]
    seen = [link.url for page in [*([start] if start else []), *pages, *examples]
            for link in page.links]  # fmt: skip
    urls = [u for u in normalise_urls([*seen, *example_urls(ctx, like)]) if isinstance(u, str)]
    urls = [ctx.sessions.drop(url) for url in dict.fromkeys(urls)]
    if ctx.repo.prototypes(ctx.site.id):
        session = LabelSession(ctx.repo, ctx.site.id, urls)
    else:
        session = LabelSession.learn(ctx.repo, ctx.site.id, urls)
    logger.info(
        "%d prototypes learnt from the links of %d allowed lists (%d pages)",
        len(session.members), len(lists), len(pages),
    )  # fmt: skip
    return session, lists


async def read_to_end(
    ctx: CrawlContext,
    fetcher: Fetcher,
    lists: Sequence[BrowsedList],
    wanted: Callable[[str], bool],
) -> list[FetchedPage]:
    """Read on to its end (``querying.max_result_pages`` pages at most, as a result list) each
    list whose pages link a ``wanted`` record: the records a list holds are reached by its
    pages, one request for a page of entries, where a crawl following links would find them
    one page of the site at a time.

    Returns:
        The pages read on.
    """
    out: list[FetchedPage] = []
    cap = ctx.settings.querying.max_result_pages
    for read in lists:
        if read.next_url is not None and any(
            wanted(link.url) for page in read.pages for link in page.links
        ):
            before = len(read.pages)
            await _read_on(ctx, fetcher, read, cap)
            out += read.pages[before:]
    if out:
        logger.info("%d more pages of the lists that show records read", len(out))
    return out


async def _read_on(ctx: CrawlContext, fetcher: Fetcher, read: BrowsedList, upto: int) -> None:
    """Read ``read`` on from its next page until it holds ``upto`` pages or ends, each page
    turned to by its next-page link (:func:`~deepcrawl.search.pagination.next_page`) where
    robots.txt allows it."""
    visited = {p.url for p in read.pages} | {p.final_url for p in read.pages if p.final_url}
    while read.next_url is not None and len(read.pages) < upto:
        url, read.next_url = read.next_url, None
        page = await setup_fetch(ctx, fetcher, url)
        if page is None or page.status >= 400:
            return
        read.pages.append(page)
        visited.update((url, page.final_url or url))
        turn = next_page(page_from_fetched(page), len(read.pages), visited)
        if turn is not None and turn.kind == "link" and ctx.robots.allowed(turn.url):
            read.next_url = turn.url


def listed_links(
    start: FetchedPage | None,
    lists: Sequence[BrowsedList],
    record_url: Callable[[str], str] = lambda url: url,
) -> list[ShownLink]:
    """The links of the lists' pages, ``(page number, URL, text, role)``, as a search's result
    pages give them to the records' pick: each page one list of entries.

    A link is ``chrome`` where the start page shows it too (by its place in the page and its
    text) or every list page does (the site's menus), ``pager`` where it turns a list's pages,
    else ``result``; ``record_url`` is the URL its record is known by.
    """
    chrome = ChromeFilter(min_queries=2, share=1.0)
    if start is not None:
        chrome.learn_baseline(list(start.links))
    pages = [page_from_fetched(page) for read in lists for page in read.pages]
    for page in pages:
        chrome.observe({ChromeFilter.key(link) for link in page.links})
    return [
        (number, record_url(link.url), link.text, link.role)
        for number, page in enumerate(pages)
        for link in classify_links([page], chrome)
    ]


def browsed(stats: CrawlStats, lists: Sequence[BrowsedList], navigation: str) -> None:
    """A browse's figures, as a query loop's stop gives them: the records delivered are its
    best estimate of the records (the lists read to their end, the navigation past them), no
    proof — the lists may hold fewer than the site, and the navigation stops on a lull."""
    held = stats.pages_delivered
    stats.records_reached = held
    stats.records_estimated = float(held)
    stats.complete = False
    whole = sum(read.next_url is None for read in lists)
    stats.stop_reason = (
        f"{whole} of the {len(lists)} allowed lists read to their end; the navigation {navigation}"
    )
