"""A fetched page's parsed body: parsed once for every reader, never for other media, let go
on demand."""

from __future__ import annotations

import dataclasses

from deepcrawl.page.fetched import FetchedPage
from deepcrawl.page.html import page_title
from deepcrawl.querying import main_text

HTML = "<html><head><title> A  record </title></head><body><nav><a href='/'>Home</a></nav>"
HTML += "<main><h1>Kestrel</h1><p>A small falcon.</p></main></body></html>"


def _page(body: str = HTML, content_type: str = "text/html") -> FetchedPage:
    url = "http://example.test/r/1"
    return FetchedPage(url=url, final_url=url, status=200, content_type=content_type, body=body)


def test_the_body_is_parsed_once_and_read_without_change() -> None:
    page = _page()
    root = page.root()
    assert root is not None
    assert page.root() is root
    # its readers take from the one tree what they took from the body, and leave it whole
    assert main_text(root) == main_text(page.body) == main_text(root)
    assert page_title(root) == page_title(page.body) == "A record"
    assert root.find(".//nav") is not None


def test_no_tree_for_other_media_or_an_empty_body() -> None:
    assert _page('{"a": 1}', "application/json").root() is None
    assert _page("").root() is None


def test_a_tree_let_go_is_parsed_again_and_a_copy_parses_its_own() -> None:
    page = _page()
    first = page.root()
    page.forget_tree()
    again = page.root()
    assert again is not None
    assert again is not first
    copy = dataclasses.replace(page, body=HTML.replace("Kestrel", "Merlin"))
    assert "Merlin" in main_text(copy.root())
