"""Every way of querying a form declares the one :class:`QueryBackend` contract.

The assignments typed ``QueryBackend`` are checked by mypy (``mypy
tests/unit/search/test_backend.py``); the tests check the same at runtime, and that each
implementation's ``query`` takes exactly the contract's parameters.
"""

from __future__ import annotations

import inspect
import json
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import parse_qs, urlsplit

import pytest

from deepcrawl.browser.base import Fetcher
from deepcrawl.page.fetched import FetchedPage
from deepcrawl.search.backend import QueryBackend
from deepcrawl.search.data_api import DataSearch
from deepcrawl.search.filler import FormFiller
from deepcrawl.search.form_search import FormSearch
from deepcrawl.search.results import QueryResult
from deepcrawl.search.template import TemplateSearch, UrlTemplate

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from deepcrawl.search.results import ResultPage

BASE = "http://books.test"
#: The three ways of querying a form, and the search that picks among them.
BACKENDS: tuple[type[QueryBackend], ...] = (FormFiller, TemplateSearch, DataSearch, FormSearch)


class JsonSite(Fetcher):
    """A JSON search answering every keyword with one result."""

    def __init__(self) -> None:
        self.fetched: list[str] = []

    async def fetch(self, url: str) -> FetchedPage:
        self.fetched.append(url)
        word = parse_qs(urlsplit(url).query)["q"][0]
        body = json.dumps({"total": 1, "results": [{"url": f"/book/{word}", "title": word}]})
        return FetchedPage(url, url, 200, "application/json", body)


class Structural:
    """Declares nothing, and answers ``query`` as the contract says."""

    accepts_empty = False
    partitions: ClassVar[dict[str, list[str]]] = {}

    async def query(
        self,
        keyword: str,
        values: Mapping[str, str] | None = None,
        *,
        max_pages: int | None = None,
        more: Callable[[ResultPage, int], bool] | None = None,
        resume: tuple[str, int] | None = None,
    ) -> QueryResult:
        return QueryResult(keyword=keyword, values=dict(values or {}))


def _parameters(function: Callable[..., Any]) -> list[tuple[str, Any, Any, Any]]:
    return [
        (p.name, p.kind, p.default, p.annotation)
        for p in inspect.signature(function).parameters.values()
    ]


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda cls: cls.__name__)
def test_each_backend_declares_the_contract_and_takes_its_parameters(
    backend: type[QueryBackend],
) -> None:
    assert QueryBackend in backend.__mro__  # declared, not only structurally alike
    assert inspect.iscoroutinefunction(backend.query)
    assert _parameters(backend.query) == _parameters(QueryBackend.query)


async def test_the_http_backends_are_query_backends_and_serve_through_the_contract() -> None:
    site = JsonSite()
    template = UrlTemplate(f"{BASE}/api/search", (("q", ""), ("offset", "0")), "q")
    backends: list[QueryBackend] = [TemplateSearch(template, site), DataSearch(template, site)]
    assert all(isinstance(backend, QueryBackend) for backend in backends)
    # the empty query is the browser's to ask, where the form's own rules apply
    assert not any(backend.accepts_empty for backend in backends)
    data: QueryBackend = backends[1]
    result = await data.query("tea", {"cat": "poems"}, max_pages=1)
    # the data request serves the values it was seen with: recorded, not sent again
    assert result.values == {"cat": "poems"}
    assert site.fetched == [f"{BASE}/api/search?q=tea&offset=0"]
    assert result.result_urls == [f"{BASE}/book/tea"]


def test_the_contract_is_structural_too() -> None:
    fake: QueryBackend = Structural()
    assert isinstance(fake, QueryBackend)
    assert not isinstance(object(), QueryBackend)
