"""The next page a feed's response names in its headers (``Link: rel=next``, ``X-Next-Page``)."""

from __future__ import annotations

from deepcrawl.search.pagination import header_next

URL = "http://h.example/search/more?q=tea"


def test_a_link_header_names_the_next_page_among_its_relations() -> None:
    link = (
        '<http://h.example/search/more?q=tea&page=1>; rel="first", '
        '</search/more?q=tea&page=3>; rel="prev next"'
    )
    assert header_next({"link": link}, URL) == "http://h.example/search/more?q=tea&page=3"
    assert header_next({"link": '<?page=9>; rel="last"'}, URL) == ""


def test_a_next_page_header_holds_a_url_or_a_page_number() -> None:
    assert (
        header_next({"x-next-page": "/search/more?q=tea;page=2"}, URL)
        == "http://h.example/search/more?q=tea;page=2"
    )
    assert header_next({"x-next-page": "2"}, URL) == "http://h.example/search/more?q=tea&page=2"
    paged = "http://h.example/find?words=tea;pg=2"
    assert header_next({"x-next-page": "3"}, paged) == "http://h.example/find?words=tea;pg=3"


def test_no_header_names_no_page() -> None:
    assert header_next({}, URL) == ""
    assert header_next({"x-next-page": ""}, URL) == ""
