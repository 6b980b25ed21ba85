"""A real :class:`QueryLoop` in a fake crawl, for the unit tests of the querying and its stops.

The loop and its keyword manager run for real; the crawl context around them holds only what
the loop touches: the settings, the start URL ``http://site/``, a rate limiter that never
waits, a state that stores nothing, stats at zero, and a change notice that goes nowhere. A
URL under ``http://site/search`` is a result page; any other URL is a record, its own id.
"""

from __future__ import annotations

import contextlib
from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

from deepcrawl.crawler.queries import QueryLoop
from deepcrawl.keywords import KeywordManager

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.settings import Settings


def fake_query_loop(settings: Settings, seeds: Sequence[str]) -> QueryLoop:
    """A query loop of ``settings`` whose manager has ``seeds`` and no frequent word: it runs
    out of words once the seeds are asked, unless a test gives it a manager of its own."""

    @contextlib.asynccontextmanager
    async def slot(_url: str) -> AsyncIterator[None]:
        yield

    ctx = SimpleNamespace(
        settings=settings,
        start_url="http://site/",
        limiter=SimpleNamespace(slot=slot),
        state=SimpleNamespace(save_query=lambda row, _links, form_id: row),
        stats=SimpleNamespace(
            queries=0, records_reached=0, records_estimated=None, stop_reason=None, requests=0
        ),
        changed=lambda: None,
    )
    loop = QueryLoop(
        cast("CrawlContext", ctx),
        None,
        record_id=lambda url: None if url.startswith("http://site/search") else url,
    )
    loop.manager = KeywordManager(settings.keywords, seeds=seeds, frequent=[])
    return loop
