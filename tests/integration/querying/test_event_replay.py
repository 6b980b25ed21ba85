"""A stored crawl's querying events, folded into a fresh ledger, give the live ledger, field by
field, on every fixture site: a resumed crawl knows what the interrupted one knew."""

from __future__ import annotations

from collections import deque
from enum import Enum
from typing import TYPE_CHECKING, Any

import pytest
from deepcrawl_fixtures import SITES

from deepcrawl.crawler import CallbackSink, Crawl
from deepcrawl.crawler.queries import NORMAL
from deepcrawl.querying import Ledger, event_from_dict
from deepcrawl.storage import EventStore, Repository
from tests.integration.crawler.test_sites import crawl_settings

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

    ServerFactory = Callable[..., FixtureServer]

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: The sites whose records are behind another form than the one the critic scores best.
FORMS = {"archive": {"form": "#catalogue", "fields": {"postcode": "AB1 2CD"}}}


def facts(value: Any) -> Any:
    """``value`` as plain comparable data: objects by their attributes, recursively."""
    if isinstance(value, str | int | float | bool | Enum) or value is None:
        return value
    if isinstance(value, dict):
        return {facts(k): facts(v) for k, v in value.items()}
    if isinstance(value, list | tuple | deque):
        return [facts(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((facts(v) for v in value), key=repr)
    slots = [s for cls in type(value).__mro__ for s in getattr(cls, "__slots__", ())]
    fields = {**{s: getattr(value, s) for s in slots if hasattr(value, s)}, **vars_of(value)}
    return {type(value).__name__: {k: facts(v) for k, v in sorted(fields.items())}}


def vars_of(value: object) -> dict[str, Any]:
    try:
        return dict(vars(value))
    except TypeError:  # a slotted object
        return {}


# the zoo is measured by its own suite (tests/integration/crawler/test_zoo.py); closed forbids
# its search in robots.txt, so no query is asked and no event folded
# (its crawl: tests/integration/crawler/test_robots_forbid_search.py)
@pytest.mark.parametrize("name", sorted(set(SITES) - {"zoo", "closed"}))
async def test_the_stored_events_fold_into_the_live_ledger(
    name: str, fixture_server: ServerFactory, tmp_path: Path
) -> None:
    server = fixture_server(name, records=60, seed=11)
    like = [server.truth().detail_paths[0]]
    settings = crawl_settings(tmp_path, forms=FORMS.get(name, {}))
    async with Crawl(server.url + "/", settings=settings, like=like) as crawl:
        report = await crawl.run(CallbackSink(lambda _record: None))
    assert report.status == "done"
    loop = crawl.querying
    assert loop is not None
    assert loop.ledger.history, "the crawl queried nothing"
    with Repository.open(settings.storage.url) as repo:
        stored = EventStore(repo.engine, report.site_id).read(NORMAL)
        events = [event_from_dict(data) for data in stored]
    folded = Ledger(loop.settings, reads_on=True).replayed(events)
    for ledger in (loop.ledger, folded):
        ledger.coverage()  # the estimates, which the capture keeps once asked
    live = {k: facts(v) for k, v in vars(loop.ledger).items() if k != "settings"}
    again = {k: facts(v) for k, v in vars(folded).items() if k != "settings"}
    assert again.keys() == live.keys()
    for key in live:
        assert again[key] == live[key], f"{name}: the ledger's {key} differs once folded again"
