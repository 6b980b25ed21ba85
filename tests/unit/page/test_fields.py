"""The record fields a kind of page shows (issue 48: records listed beside prose that outnumbers
them)."""

from __future__ import annotations

from deepcrawl.page.fields import label_values, page_fields
from deepcrawl.page.html import parse_html

FRAME = (
    "<html><body><header><nav>Menu: <a href='/'>Home</a></nav></header>"
    "<form><label>Search:</label> <input name=q></form><main>{body}</main>"
    "<footer><b>Powered by:</b> Zoo 1.0</footer></body></html>"
)


def _pairs(body: str) -> list[tuple[str, str]]:
    root = parse_html(FRAME.format(body=body))
    assert root is not None
    return list(label_values(root))


def test_a_definition_list_a_header_cell_and_a_colon_label_write_pairs() -> None:
    body = (
        "<dl><dt>Number</dt><dd>17</dd><dt>Category</dt><dd>maps</dd></dl>"
        "<table><tr><th>Reported by:</th><td>alice</td><th>Owned by:</th><td>bob</td></tr></table>"
        "<p><strong>Date of birth 2:</strong> 1901</p><p><span>Place:</span><em>Leeds</em></p>"
    )
    assert _pairs(body) == [
        ("number", "17"), ("category", "maps"), ("reported by", "alice"), ("owned by", "bob"),
        ("date of birth 0", "1901"), ("place", "Leeds"),
    ]  # fmt: skip


def test_pairs_in_forms_navigation_and_footers_and_long_colon_text_are_none() -> None:
    assert _pairs("<p><b>This is a sentence that ends in a colon:</b> and goes on</p>") == []
    assert _pairs("<p>Last changed 2021-03-04</p><p>Plain prose: with a colon inside.</p>") == []


def test_a_field_is_a_label_every_page_shows_with_values_of_its_own() -> None:
    record = "<dl><dt>Number</dt><dd>{n}</dd><dt>Licence</dt><dd>CC-BY</dd></dl><p>{n} words</p>"
    pages = [FRAME.format(body=record.format(n=n)) for n in (3, 9)]
    assert page_fields(pages) == {"number"}  # the licence is the template's, the same on both
    prose = [FRAME.format(body=f"<p>A change note, {n} lines.</p>") for n in (3, 9)]
    assert page_fields(prose) == frozenset()
    assert page_fields(pages[:1]) == frozenset()  # one page cannot tell value from template
    lone = FRAME.format(body="<dl><dt>Year</dt><dd>1901</dd></dl>")
    assert page_fields([pages[0], lone]) == frozenset()  # no label both pages show
