"""A form submission built as a browser builds it, from a saved page-wide form."""

from __future__ import annotations

from pathlib import Path

from deepcrawl.page.static_forms import parse_forms
from deepcrawl.page.submission import submission_of

DATA = Path(__file__).parents[2] / "data" / "real" / "webforms"
URL = "http://127.0.0.1:8000/Catalogue.aspx"


def test_the_search_group_sends_its_fields_the_state_and_its_button_only() -> None:
    forms = parse_forms((DATA / "catalogue.html").read_bytes(), URL)
    login, search, _newsletter = forms
    sent = submission_of(
        search,
        {"ctl00$Main$Words": "harbour", "ctl00$Main$Place": "Nowhere"},
        button=search.submits[0],
    )
    fields = dict(sent.fields)
    assert fields["ctl00$Main$Words"] == "harbour"
    assert fields["ctl00$Main$Place"] == ""  # not an option: the select keeps its value
    assert fields["ctl00$Main$SearchButton"] == "Search the catalogue"
    assert "__VIEWSTATE" in fields
    assert "__EVENTVALIDATION" in fields
    assert not {"ctl00$UserName", "ctl00$Password", "ctl00$Email"} & fields.keys()
    assert sent.trigger == (("ctl00$Main$SearchButton", "Search the catalogue"),)
    assert sent.action == URL
    # a log-in never sends a password it was not given, nor does any replay
    assert "ctl00$Password" not in dict(submission_of(login, button=login.submits[0]).fields)


def test_a_trigger_sets_the_fields_a_pager_scripts_fill() -> None:
    search = parse_forms((DATA / "search-lighthouse.html").read_bytes(), URL)[1]
    trigger = (("__EVENTTARGET", "ctl00$Main$Results"), ("__EVENTARGUMENT", "Page$2"))
    sent = submission_of(search, trigger=trigger, text="2")
    fields = dict(sent.fields)
    assert fields["__EVENTTARGET"] == "ctl00$Main$Results"
    assert fields["__EVENTARGUMENT"] == "Page$2"
    assert fields["ctl00$Main$Query"] == "lighthouse"  # as the page shows it
    assert "ctl00$Main$SearchButton" not in fields  # no button pressed
    assert sent.words() == "2 __EVENTTARGET ctl00$Main$Results __EVENTARGUMENT Page$2"
