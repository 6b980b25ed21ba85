"""Query-field detection: which field takes the keywords, which are worth enumerating."""

from __future__ import annotations

import pytest

from deepcrawl.forms import find_query_fields
from deepcrawl.page import parse_forms

PAGE = "http://site.test/"


def _roles(html: str) -> tuple[str | None, list[str | None], list[str | None], list[str | None]]:
    roles = find_query_fields(parse_forms(html, PAGE)[0])
    return (
        roles.query.name if roles.query else None,
        [f.name for f in roles.categories],
        [f.name for f in roles.sorts],
        [f.name for f in roles.fixed],
    )


@pytest.mark.parametrize(
    ("html", "query"),
    [
        ("<form><input name='q'></form>", "q"),
        ("<form><input name='email'><input type='search' name='x'></form>", "x"),
        ("<form><input name='zip'><input name='keywords'></form>", "keywords"),
        ("<form><input name='a' placeholder='Search products'><input name='b'></form>", "a"),
        ("<form><input name='min_price'><input name='max_price'><input name='t'></form>", "t"),
        ("<form><textarea name='body'></textarea><select name='s'></select></form>", None),
    ],
)
def test_query_field(html: str, query: str | None) -> None:
    assert _roles(html)[0] == query


def test_roles_of_the_other_fields() -> None:
    query, categories, sorts, fixed = _roles(
        "<form><input type='hidden' name='token' value='x'><input name='q'>"
        "<select name='cat'><option>All</option><option>Fiction</option></select>"
        "<select name='sort'><option>Relevance</option><option>Date</option></select>"
        "<select name='per_page'><option>10</option><option>50</option></select>"
        "<select name='one'><option>Only</option></select>"
        "<input type='radio' name='fmt' value='a'><input type='radio' name='fmt' value='b'>"
        "<input type='checkbox' name='instock'></form>"
    )
    assert query == "q"
    assert categories == ["cat", "fmt"]
    assert sorts == ["sort"]
    assert fixed == ["token", "per_page", "one", "instock"]
