"""Controls that turn a result page by submitting its form: saved pages of a postback pager and a
button pager (the bed's webforms), and script functions written other ways."""

from __future__ import annotations

from pathlib import Path

from deepcrawl.page.form_turns import form_turns, script_setters
from deepcrawl.page.html import parse_html
from deepcrawl.page.static_forms import parse_forms

DATA = Path(__file__).parents[2] / "data" / "real" / "webforms"
URL = "http://127.0.0.1:8000/Default.aspx"


def _turns(name: str) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    body = (DATA / name).read_bytes()
    root = parse_html(body)
    assert root is not None
    search = next(f for f in parse_forms(body, URL) if "Search" in f.group)
    return [(t.text, t.trigger) for t in form_turns(root, search)]


def test_postback_links_fill_the_fields_their_script_sets() -> None:
    turns = _turns("search-lighthouse.html")
    assert turns[0] == (
        "2",
        (("__EVENTTARGET", "ctl00$Main$Results"), ("__EVENTARGUMENT", "Page$2")),
    )
    assert [t[0] for t in turns[:4]] == ["2", "3", "4", "5"]


def test_the_result_forms_buttons_turn_the_page_the_searchs_own_and_disabled_ones_not() -> None:
    texts = [t[0] for t in _turns("catalogue-harbour.html")]
    assert "Search the catalogue" not in texts
    assert "1" not in texts  # the current page's button is disabled
    assert {"2", "3", "Next »"} <= set(texts)
    turn = dict(_turns("catalogue-harbour.html"))["Next »"]
    assert turn == (("ctl00$Main$NextButton", "Next »"),)


def test_script_functions_of_several_spellings() -> None:
    root = parse_html(
        "<script>"
        "function go(a, b) { var f = document.forms[0]; f['target'].value = a;"
        " document.getElementById('arg').value = b; f.submit(); }\n"
        "window.ns.show = function (x) { theForm.page.value = x; theForm.requestSubmit(); }\n"
        "function noSubmit(a) { theForm.q.value = a; }"
        "</script><a href=\"javascript:go('list', 'p3')\">3</a>"
        "<a href='javascript:ns.show(\"4\")'>4</a><a href='javascript:noSubmit(\"x\")'>x</a>"
    )
    assert root is not None
    assert script_setters(root) == {"go": ("target", "arg"), "show": ("page",)}
    assert [(t.text, t.trigger) for t in form_turns(root)] == [
        ("3", (("target", "list"), ("arg", "p3"))),
        ("4", (("page", "4"),)),
    ]
