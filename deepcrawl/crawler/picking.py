"""The records' kind picked with no example: the crawl's side of :mod:`deepcrawl.records.pick`.

The pick reads lists of entries — the setup queries' result pages, or where robots.txt
forbids the search the lists a crawl may browse (:mod:`deepcrawl.crawler.browse`) — and fetches
a few of each kind's pages through the crawl's gate; the user, where a labeller asks them,
accepts the pick or labels otherwise. Its figures go into ``stats.json`` (``picked``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl.crawler.setup import setup_fetch
from deepcrawl.records.pick import pick_kinds, pick_records
from deepcrawl.urls import normalise_or_none

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.prototypes import LabelSession, ShownLink
    from deepcrawl.records.pick import Pick

__all__ = ["pick_kind"]


async def pick_kind(
    ctx: CrawlContext,
    session: LabelSession,
    fetcher: Fetcher | None,
    *,
    labeller: Callable[[LabelSession, Pick | None], None] | None = None,
    on_pick: Callable[[Pick], None] | None = None,
    shown: Sequence[ShownLink] | None = None,
) -> Pick | None:
    """With no example and no labels: pick the records' kind (:mod:`deepcrawl.records.pick`)
    from the setup queries' results (or the lists ``shown``: a crawl that may not search)
    unless ``crawl.auto_label`` is False, and let ``labeller`` (if any, and unless
    ``auto_label`` is True) accept it or label otherwise; ``on_pick`` is told the pick no one
    was asked about."""
    auto = ctx.settings.crawl.auto_label
    ask = None if auto is True else labeller
    pick = None
    if auto is not False and fetcher is not None:
        ctx.enter("picking records")
        every = ctx.settings.crawl.record_kinds == "all"

        async def fetch(url: str) -> FetchedPage | None:
            return await setup_fetch(ctx, fetcher, url)

        if shown is not None:
            pick = await pick_kinds(shown, {}, session, fetch, every=every)
        else:
            pick = await pick_records(
                ctx.state.queries(),
                session,
                fetch,
                every=every,
                # as the prototypes were learnt: without the parameters learnt to be no part
                record_url=lambda url: (
                    url if (n := normalise_or_none(url)) is None else ctx.sessions.drop(n)
                ),
            )
        if pick is not None:
            ctx.stats.picked = pick.to_dict()
    if ask is not None:
        with ctx.stats.waiting():  # the user's time at the prompt is not the crawl's
            ask(session, pick)
        if pick is not None:
            taken = {p.id for kind in pick.taken for p in kind.prototypes}
            chosen = {pid for pid, (_n, wanted) in session.labels().items() if wanted}
            ctx.stats.picked = {**pick.to_dict(), "accepted": chosen == taken}
    elif pick is not None and on_pick is not None:
        on_pick(pick)
    return pick
