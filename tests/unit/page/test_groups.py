"""Logical forms inside one ``<form>``: saved pages of a page-wide form (the bed's webforms) and
small forms that must stay whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepcrawl.page.groups import regroup
from deepcrawl.page.static_forms import parse_forms

DATA = Path(__file__).parents[2] / "data" / "real" / "webforms"
URL = "http://127.0.0.1:8000/Default.aspx"


def _groups(name: str) -> list[tuple[str, list[str], list[str]]]:
    forms = parse_forms((DATA / name).read_bytes(), URL)
    return [
        (
            form.group,
            [f.name or "" for f in form.fields if f.type != "hidden"],
            [s.text for s in form.submits],
        )
        for form in forms
    ]


def test_a_page_wide_form_splits_into_its_buttons_groups() -> None:
    assert _groups("home.html") == [
        ('[id="ctl00_LogInButton"]', ["ctl00$UserName", "ctl00$Password"], ["Log in"]),
        ('[id="ctl00_Main_SearchButton"]', ["ctl00$Main$Query"], ["Search"]),
        ('[id="ctl00_SubscribeButton"]', ["ctl00$Email"], ["Subscribe"]),
    ]


def test_a_result_pages_pager_buttons_are_no_group_and_the_search_keeps_its_fields() -> None:
    groups = _groups("catalogue-harbour.html")
    assert [g[0] for g in groups] == [
        '[id="ctl00_LogInButton"]',
        '[id="ctl00_Main_SearchButton"]',
        '[id="ctl00_SubscribeButton"]',
    ]
    assert groups[1][1:] == (
        ["ctl00$Main$Words", "ctl00$Main$Place", "ctl00$Main$Order"],
        ["Search the catalogue"],
    )


def test_every_group_carries_the_pages_hidden_state_and_its_own_text() -> None:
    forms = parse_forms((DATA / "search-lighthouse.html").read_bytes(), URL)
    for form in forms:
        hidden = {f.name for f in form.fields if f.type == "hidden"}
        assert {"__VIEWSTATE", "__EVENTVALIDATION", "__EVENTTARGET"} <= hidden
        assert form.locator == 'form[id="ctl00_PageForm"]'
    search = forms[1]
    assert search.text == "Search for Search"
    assert "Subscribe" not in search.text
    assert "Log in" not in search.text


def test_whole_forms_stay_whole_when_asked() -> None:
    forms = parse_forms((DATA / "home.html").read_bytes(), URL, groups=False)
    assert len(forms) == 1
    assert forms[0].group == ""
    assert len(forms[0].submits) == 3


@pytest.mark.parametrize(
    "html",
    [
        # one button
        "<form><input name=q><button>Search</button></form>",
        # a second button owning no field ("feeling lucky")
        "<form><input name=q><input type=submit name=go value=Search>"
        "<input type=submit name=lucky value=Lucky></form>",
        # fields and a pager's buttons
        "<form><div><input name=q><input type=submit value=Search></div>"
        "<div><input type=submit name=p value=2><input type=submit name=p value=3></div></form>",
    ],
)
def test_a_form_with_one_group_of_fields_stays_whole(html: str) -> None:
    forms = parse_forms(html, URL, formless=False)
    assert len(forms) == 1
    assert forms[0].group == ""


def test_fields_outside_any_panel_go_to_the_nearest_following_button() -> None:
    html = (
        "<form><fieldset><input name=user><input type=password name=pw>"
        "<input type=submit name=login value='Log in'></fieldset>"
        "<input name=q><input type=submit name=search value=Search></form>"
    )
    forms = parse_forms(html, URL, formless=False)
    assert [[f.name for f in form.fields] for form in forms] == [["user", "pw"], ["q"]]


def test_live_forms_take_the_groups_of_their_static_parse() -> None:
    html = (DATA / "home.html").read_bytes()
    whole = parse_forms(html, URL, groups=False)
    grouped = regroup(whole, parse_forms(html, URL))
    assert [f.group for f in grouped] == [f.group for f in parse_forms(html, URL)]
    assert [len(f.fields) for f in grouped] == [len(f.fields) for f in parse_forms(html, URL)]
