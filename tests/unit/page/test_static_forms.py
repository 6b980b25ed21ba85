"""The static form parser: the model it builds, and robustness to whatever HTML it is given."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepcrawl.page import Form, parse_forms
from deepcrawl.page.html import page_text

PAGE = "http://site.test/dir/page.html"

SEARCH = """<html><head><title>x</title></head><body>
<h2>Find a book</h2>
<form id="s" action="/search" method="get" class="site-search big">
  <label for="q">Keywords</label><input id="q" name="q" placeholder="Title, author" required>
  <label>Genre <select name="cat"><option value="">All</option>
    <option value="f" selected>Fiction</option><option>Poetry</option></select></label>
  <input type="hidden" name="lang" value="en">
  <input type="checkbox" name="avail" checked>
  <input type="radio" name="fmt" value="pb"><input type="radio" name="fmt" value="hb">
  <textarea name="notes">hello</textarea>
  <button type="reset">Clear</button>
  <button>Search</button>
  <input type="image" src="/go.png" alt="Go">
</form></body></html>"""


def _only(html: str, **kwargs: bool) -> Form:
    forms = parse_forms(html, PAGE, **kwargs)
    assert len(forms) == 1
    return forms[0]


def test_form_attributes_and_fields() -> None:
    form = _only(SEARCH)
    assert form.action == "http://site.test/search"
    assert form.method == "GET"
    assert form.id == "s"
    assert form.classes == ("site-search", "big")
    assert form.locator == 'form[id="s"]'
    assert [f.name for f in form.fields] == [
        "q", "cat", "lang", "avail", "fmt", "fmt", "notes", None,
    ]  # fmt: skip
    q = form.field("q")
    assert q is not None
    assert (q.type, q.label, q.placeholder, q.required) == (
        "text",
        "Keywords",
        "Title, author",
        True,
    )
    cat = form.field("cat")
    assert cat is not None
    assert cat.type == "select"
    assert cat.label == "Genre"  # the wrapping label's own text, not the option texts
    assert [o.value for o in cat.options] == ["", "f", "Poetry"]
    assert cat.value == "f"
    hidden = form.field("lang")
    assert hidden is not None
    assert not hidden.visible
    avail = form.field("avail")
    assert avail is not None
    assert avail.checked
    notes = form.field("notes")
    assert notes is not None
    assert (notes.tag, notes.value) == ("textarea", "hello")
    assert form.fields[-1].tag == "button"
    assert form.fields[-1].type == "reset"
    assert [(s.kind, s.text) for s in form.submits] == [("button", "Search"), ("image", "Go")]
    assert [f.name for f in form.text_fields] == ["q", "notes"]
    assert "Find a book" in form.context
    assert "Keywords" in form.text
    assert "Fiction" not in form.text


def test_action_resolution_and_method() -> None:
    html = (
        "<base href='http://other.test/base/'>"
        "<form action='x?y=1' method='PoSt'><input name=a></form>"
        "<form method='dialog'><input name=b></form>"
        "<form action='#frag'><input name=c></form>"
    )
    forms = parse_forms(html, PAGE)
    assert [f.action for f in forms] == ["http://other.test/base/x?y=1", PAGE, PAGE]
    assert [f.method for f in forms] == ["POST", "GET", "GET"]


def test_controls_outside_the_form_by_form_attribute() -> None:
    html = "<form id='f' action='/s'><input name='a'></form><input name='b' form='f'>"
    form = parse_forms(html, PAGE, formless=False)[0]
    assert [f.name for f in form.fields] == ["a", "b"]


def test_formless_group_is_reported_after_the_forms() -> None:
    html = (
        "<form action='/login'><input name='u'></form>"
        "<div id='box'><input type='search' name='q'><button type='button'>Go</button></div>"
    )
    forms = parse_forms(html, PAGE)
    assert [f.formless for f in forms] == [False, True]
    assert forms[1].action == PAGE
    assert [f.name for f in forms[1].fields if f.tag == "input"] == ["q"]
    assert parse_forms(html, PAGE, formless=False) == forms[:1]


@pytest.mark.parametrize(
    "html",
    ["", "   ", b"", "<html><body><p>No form here</p></body></html>", "\x00\x01\x02", "<<<>>>"],
)
def test_no_form_gives_an_empty_list(html: str | bytes) -> None:
    assert parse_forms(html, PAGE) == []


def test_broken_markup_is_recovered() -> None:
    html = (
        "<html><body><div><form action=/search><p><input name=q <select name=s>"
        "<option>a<option>b</select><b><i>unclosed <button>Go</form></div>"
        "<form><input name=x></table></td></form><input name='late'"
    )
    forms = parse_forms(html, PAGE)
    assert forms
    assert forms[0].action == "http://site.test/search"
    assert all(isinstance(f, Form) for f in forms)


def test_encodings_and_declarations() -> None:
    declared = '<?xml version="1.0" encoding="ISO-8859-1"?><form><input name="é" value="ü"></form>'
    assert parse_forms(declared, PAGE)[0].fields[0].name == "é"
    assert parse_forms(b"<form><input name='q'></form>", PAGE)[0].fields[0].name == "q"
    assert parse_forms(b"<form><input name='\xff\xfe'></form>", PAGE)


def test_a_form_with_500_fields_is_parsed_fast() -> None:
    inputs = "".join(
        f"<label for='f{i}'>L{i}</label><input id='f{i}' name='f{i}'>" for i in range(500)
    )
    html = (
        f"<form action='/big'>{inputs}<select name='s'>{'<option>o</option>' * 500}</select></form>"
    )
    start = time.perf_counter()
    form = _only(html)
    assert time.perf_counter() - start < 1.0
    assert len(form.fields) == 501
    assert form.fields[499].label == "L499"
    assert len(form.text) <= 2000


def test_many_pages_per_second() -> None:
    html = SEARCH * 3
    start = time.perf_counter()
    for _ in range(200):
        parse_forms(html, PAGE)
    assert time.perf_counter() - start < 2.0


_TAGS = st.sampled_from(
    ["<form>", "</form>", "<input name=q>", "<select>", "<option>", "</select>", "<label>",
     "<button>", "<textarea>", "<div style='display:none'>", "</div>", "<!--", "-->",
     "<base href=x>", "<input form=f>", "<form id=f action='::bad::'>", "<table>", "<td>",
     "\x00", "é", "<", "<form action='http://[bad'>", "<base href='http://[x'>"]
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(_TAGS, st.text(max_size=8)), max_size=40))
def test_parse_forms_never_fails(parts: list[str]) -> None:
    html = "".join(parts)
    for form in parse_forms(html, PAGE):
        assert form.page_url == PAGE
        assert form.method in {"GET", "POST"}
    parse_forms(html.encode("utf-8", "surrogatepass"), PAGE)


def test_page_text_for_domain_examples() -> None:
    html = (
        "<html><head><title>Rare books</title><script>var x = 'no';</script></head>"
        "<body><h1>Antique maps</h1><style>p {}</style><p>First editions</p></body></html>"
    )
    assert page_text(html) == "Rare books Antique maps First editions"
    assert page_text("") == ""
    assert len(page_text("<p>" + "word " * 10000 + "</p>", limit=100)) <= 100


def test_deeply_nested_form_is_found() -> None:
    html = "<div>" * 1500 + "<label>Find <span>" * 40 + "<form><input name='q'></form>"
    (form,) = parse_forms(html, PAGE)
    assert form.fields[0].name == "q"


def test_hidden_subtrees_are_not_form_text() -> None:
    html = (
        "<form>Shown <div style='display: none'>secret <b>deep</b></div> tail"
        "<input type=submit value=Go><button>Find <i>it</i></button><script>x=1</script></form>"
    )
    assert parse_forms(html, PAGE)[0].text == "Shown tail Go Find it"
