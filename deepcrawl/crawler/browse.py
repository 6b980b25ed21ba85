"""A crawl without a query: where robots.txt forbids the search, ``--navigate`` reaches the
records through the pages it allows.

With ``--navigate`` and a ``--like`` example, a crawl whose search robots.txt forbids
(:class:`~deepcrawl.errors.SearchForbiddenError`) reads the site as a person browsing it would:

1. the start page's links robots.txt allows (its lists: categories, new arrivals …; the safety
   rule's refusals left out) are read through the crawl's gate, as the setup phase reads
   result lists — :data:`MAX_LISTS` at most;
2. their links, the start page's and the examples' are prototyped; the examples label their
   kind (:func:`~deepcrawl.crawler.setup.apply_labels`);
3. the normal phase, with no search to query, queues the lists' wanted links and fetches them
   (and the records that the sitemaps robots.txt names list), and the navigate phase follows the
   site's links from the start page for the rest.

Every request passes the crawl's gate: nothing robots.txt forbids is asked for.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from deepcrawl.crawler.forbidden import allowed_links
from deepcrawl.crawler.setup import example_urls, setup_fetch
from deepcrawl.prototypes import LabelSession
from deepcrawl.urls import normalise_urls

if TYPE_CHECKING:
    from collections.abc import Sequence

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.page.fetched import FetchedPage

__all__ = ["MAX_LISTS", "read_lists"]

logger = logging.getLogger(__name__)

#: The start page's allowed links read as lists before the records' kind is learnt.
MAX_LISTS = 20


async def read_lists(
    ctx: CrawlContext,
    fetcher: Fetcher,
    start: FetchedPage | None,
    examples: Sequence[FetchedPage],
    like: Sequence[str],
) -> tuple[LabelSession, list[FetchedPage]]:
    """Read the start page's allowed lists and learn the site's prototypes from their links.

    Args:
        ctx: the crawl's context (its gate, robots.txt, storage).
        fetcher: the crawl's fetcher (sent through the gate).
        start: the start page as the input check fetched it (None: its links are unknown).
        examples: the ``--like`` examples' pages.
        like: the ``--like`` examples.

    Returns:
        The label session over the prototypes learnt, and the lists read.
    """
    links = start.links if start is not None else ()
    lists: list[FetchedPage] = []
    for url in allowed_links(ctx.robots.allowed, ctx.start_url, links)[:MAX_LISTS]:
        page = await setup_fetch(ctx, fetcher, url)
        if page is not None and page.status < 400:
            lists.append(page)
    seen = [link.url for page in [*([start] if start else []), *lists, *examples]
            for link in page.links]  # fmt: skip
    urls = [u for u in normalise_urls([*seen, *example_urls(ctx, like)]) if isinstance(u, str)]
    urls = [ctx.sessions.drop(url) for url in dict.fromkeys(urls)]
    if ctx.repo.prototypes(ctx.site.id):
        session = LabelSession(ctx.repo, ctx.site.id, urls)
    else:
        session = LabelSession.learn(ctx.repo, ctx.site.id, urls)
    logger.info(
        "%d prototypes learnt from the links of %d allowed lists", len(session.members), len(lists)
    )
    return session, lists
