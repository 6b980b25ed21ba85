"""The plain-HTTP paths to a search's results are tried on its first few queries with results,
not its first alone: a script's data request may go out after the page looked settled."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from deepcrawl.search import form_search
from deepcrawl.search.form_search import FormSearch
from deepcrawl.search.results import QueryResult, ResultLink
from deepcrawl.search.template import TemplateCheck

from .test_partitions import _search

if TYPE_CHECKING:
    import pytest

    from deepcrawl.search.data_api import DataSearch


def _result(keyword: str, **fields: Any) -> QueryResult:
    links = [ResultLink(url=f"http://register.test/r/{keyword}{i}") for i in range(3)]
    return QueryResult(keyword=keyword, links=links, pages=1, submitted=["x"], **fields)


def _fake(search: FormSearch, found_at: int | None) -> list[str]:
    """The browser answers every query; the data path is found on trial ``found_at``."""
    calls: list[str] = []

    async def browser(keyword: str, *_a: object, **_k: object) -> QueryResult:
        calls.append(f"browser {keyword}")
        return _result(keyword)

    async def nothing(result: QueryResult) -> None:
        return None

    class Data:
        async def query(self, keyword: str, *_a: object, **_k: object) -> QueryResult:
            calls.append(f"data {keyword}")
            return _result(keyword, via="http")

    async def data(result: QueryResult) -> None:
        calls.append(f"trial {result.keyword}")
        if sum(call.startswith("trial") for call in calls) == found_at:
            search.data = cast("DataSearch", Data())

    search.filler.query = browser  # type: ignore[method-assign]
    search._try_template = nothing  # type: ignore[method-assign]
    search._try_replay = nothing  # type: ignore[method-assign]
    search._try_data = data  # type: ignore[method-assign]
    return calls


async def test_the_plain_paths_are_tried_on_the_first_queries_until_one_is_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(form_search, "PLAIN_TRIALS", 3)
    missed = _search()
    calls = _fake(missed, None)
    for word in ("ash", "elm", "oak", "yew"):
        await missed.query(word, max_pages=1)
    assert [c for c in calls if c.startswith("trial")] == ["trial ash", "trial elm", "trial oak"]
    found = _search()
    calls = _fake(found, 2)
    for word in ("ash", "elm", "oak"):
        await found.query(word, max_pages=1)
    assert calls == ["browser ash", "trial ash", "browser elm", "trial elm", "data oak"]
    # plain HTTP refused (a one-time token spent): a later trial would be refused too
    refused = _search()
    calls = _fake(refused, None)

    async def refusing(result: QueryResult) -> None:
        calls.append(f"template {result.keyword}")
        refused.check = TemplateCheck(False, frozenset(), frozenset(), "u", "HTTP status 403")

    refused._try_template = refusing  # type: ignore[method-assign]
    for word in ("ash", "elm"):
        await refused.query(word, max_pages=1)
    assert [c for c in calls if c.startswith("template")] == ["template ash"]
