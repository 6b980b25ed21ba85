"""DOM leaves, DOM offsets (the apprentice's Figure 3 numbering) and ACHE's around text."""

from __future__ import annotations

from deepcrawl.links.context import page_links, words
from deepcrawl.page.dom import dom_leaves
from deepcrawl.page.html import parse_html

# Figure-3-style markup: a list of links, one anchor with nested emphasis (several leaves at
# offset 0), an empty leaf (<br>) that takes a number without text, text before and after.
FIGURE3 = """<html><body><ul>
  <li>Intro text</li>
  <li><a href="/a"><em>Folk</em> <b>dance</b></a> lessons</li>
  <li><br></li>
  <li>more <a href="/b">Hockey</a></li>
</ul></body></html>"""


def _offsets(url: str, d_max: int = 5) -> dict[str, int]:
    link = next(c for c in page_links(FIGURE3, "http://site.test/", d_max=d_max) if c.url == url)
    return {f.rsplit("@", 1)[0]: int(f.rsplit("@", 1)[1]) for f in link.offsets}


def test_leaves_are_numbered_left_to_right_empty_leaves_included() -> None:
    root = parse_html(FIGURE3, comments=True)
    assert root is not None
    leaves, anchors = dom_leaves(root)
    assert [leaf.text for leaf in leaves] == [
        "Intro text",
        "Folk",
        "dance",
        "lessons",
        "",  # the <br>: a leaf without text still takes a number
        "more",
        "Hockey",
    ]
    # l(a) and r(a) of each anchor: the first spans the two leaves of its subtree.
    assert [(first, last) for _, first, last in anchors] == [(1, 2), (6, 6)]
    assert [leaf.anchor for leaf in leaves] == [None, 0, 0, None, None, None, 1]


def test_dom_offsets_follow_the_papers_definition() -> None:
    # Leaf m left of l(a) is at m - l(a); inside [l(a), r(a)] at 0; right of r(a) at m - r(a).
    assert _offsets("http://site.test/a") == {
        "intro": -1,
        "text": -1,
        "folk": 0,
        "dance": 0,
        "lessons": 1,
        "more": 3,
        "hockey": 4,
    }
    # "intro text" is at -6: outside the default window |d| <= 5.
    assert _offsets("http://site.test/b") == {
        "folk": -5,
        "dance": -4,
        "lessons": -3,
        "more": -1,
        "hockey": 0,
    }


def test_offsets_outside_the_window_are_dropped() -> None:
    assert _offsets("http://site.test/b", d_max=3) == {"lessons": -3, "more": -1, "hockey": 0}


def test_anchor_and_around_text_in_textual_order() -> None:
    links = page_links(FIGURE3, "http://site.test/", around_terms=2)
    first, second = links
    assert first.anchor == "folk dance"
    assert first.around == ("intro", "text", "lessons", "more")
    assert second.around == ("lessons", "more")
    assert second.source == "http://site.test/"


def test_links_resolve_against_base_and_skip_other_schemes() -> None:
    html = (
        "<html><head><base href='http://other.test/dir/'></head><body>"
        "<a href='page#frag'>p</a><a href='mailto:x@y'>m</a><a href='javascript:void(0)'>j</a>"
        "</body></html>"
    )
    assert [c.url for c in page_links(html, "http://site.test/")] == ["http://other.test/dir/page"]


def test_scripts_comments_and_blank_text_are_not_leaves() -> None:
    root = parse_html(
        "<html><body><p>a<!-- c --> b<script>var x;</script>\n  </p></body></html>", comments=True
    )
    assert root is not None
    leaves, _ = dom_leaves(root)
    assert [leaf.text for leaf in leaves] == ["a", "b"]


def test_empty_and_unparsable_pages_give_nothing() -> None:
    assert page_links("", "http://site.test/") == []
    assert page_links("   ", "http://site.test/") == []
    assert words("Jobsearch, used-cars 2024!") == ["jobsearch", "used", "cars", "2024"]
