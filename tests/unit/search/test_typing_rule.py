"""Which search boxes are typed into rather than submitted, on saved pages of real applications."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepcrawl.page.form import Form
from deepcrawl.page.static_forms import parse_forms
from deepcrawl.search.controls import may_search_as_typed

DATA = Path(__file__).parents[2] / "data" / "real"


def _forms(name: str, url: str) -> list[Form]:
    return parse_forms((DATA / name).read_text(encoding="utf-8"), url)


def test_a_widget_whose_form_action_is_a_script_is_typed_into() -> None:
    # Pagefind's Default UI: action "javascript:void(0);", a "Clear" <button> (a submit button to
    # the browser), results and a "Load more results" button rendered inside the form
    (form,) = _forms("pagefind/search-harbour.html", "http://site.test/search/")
    assert form.action.startswith("javascript:")
    assert [c.text for c in form.submits if c.kind == "button"] == ["Clear"]
    assert may_search_as_typed(form)


def test_a_box_whose_only_button_clears_it_is_typed_into() -> None:
    html = '<form><input name="q"><button type="button">x</button><button>Clear</button></form>'
    (form,) = parse_forms(html, "http://site.test/")
    assert may_search_as_typed(form)


@pytest.mark.parametrize(
    ("name", "url"),
    [
        ("wagtail/search.html", "http://site.test/search/"),
        ("htdig/stock-search.html", "http://site.test/search.html"),
        ("webforms/home.html", "http://site.test/Default.aspx"),
    ],
)
def test_forms_a_server_answers_are_submitted(name: str, url: str) -> None:
    forms = _forms(name, url)
    assert forms
    assert not any(may_search_as_typed(form) for form in forms if not form.formless)


def test_an_icon_button_without_text_submits() -> None:
    html = '<form><input name="q"><button><svg></svg></button></form>'
    (form,) = parse_forms(html, "http://site.test/")
    assert not may_search_as_typed(form)
