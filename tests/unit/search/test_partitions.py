"""Which fields of a search form narrow its lists: the critic's category and sort fields, less
what the safety rule refuses and what the user fixed."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

from deepcrawl.browser.scope import Scope
from deepcrawl.forms.critic import CriticVerdict
from deepcrawl.page.static_forms import parse_forms
from deepcrawl.search.form_search import FormSearch
from deepcrawl.settings import Settings

if TYPE_CHECKING:
    from deepcrawl.browser.pool import BrowserPool

PAGE = "http://register.test/"
FORM = """<form action="/search" method="get">
  <input type="search" name="q">
  <select name="region"><option value="">All regions</option>
    <option value="tuscany">Tuscany</option><option value="umbria">Umbria</option></select>
  <select name="then"><option value="keep">Keep</option>
    <option value="purge">Delete the listing</option></select>
  <select name="unsubscribe"><option value="weekly">Weekly</option></select>
  <select name="sort"><option value="id">Key</option><option value="-listed">Newest</option>
  </select>
  <select name="lang"><option value="en">English</option><option value="fr">French</option>
  </select>
  <button type="submit">Search</button>
</form>"""


def _search(**forms: object) -> FormSearch:
    form = parse_forms(FORM, PAGE)[0]
    verdict = CriticVerdict(
        type="search",
        searchable=True,
        score=0.9,
        query_field="q",
        category_fields=("region", "then", "unsubscribe", "lang"),
        sort_fields=("sort",),
    )
    settings = Settings().with_overrides(forms=forms) if forms else Settings()
    pool = SimpleNamespace(scope=Scope(("register.test",), implicit=False))
    return FormSearch(cast("BrowserPool", pool), form, verdict, settings)


def test_category_and_sort_fields_narrow_lists_but_no_refused_field_or_value() -> None:
    assert _search().partitions == {
        "region": ["tuscany", "umbria"],  # the "all" value is no narrowing
        "then": ["keep"],  # "Delete the listing" reads as an action
        "lang": ["en", "fr"],
        "sort": ["id", "-listed"],
    }  # "unsubscribe" is refused by its name


def test_a_field_the_user_fixed_narrows_nothing() -> None:
    assert "lang" not in _search(fields={"lang": "en"}).partitions
