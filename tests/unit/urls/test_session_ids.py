"""Session ids are no part of a URL's normal form (issue 25): path parameters and query items."""

from __future__ import annotations

import pytest

from deepcrawl.urls import URLNormaliser, normalise_url


@pytest.mark.parametrize(
    ("url", "normal"),
    [
        ("http://h.test/book/7;jsessionid=0A1B2C3D4E5F6A7B", "http://h.test/book/7"),
        ("http://h.test/book/7;JSESSIONID=0a1b2c3d4e5f?ref=x", "http://h.test/book/7?ref=x"),
        ("http://h.test/search;jsessionid=ABCDEF123456/more", "http://h.test/search/more"),
        ("http://h.test/a;v=2;jsessionid=ABCDEF123456", "http://h.test/a;v=2"),
        ("http://h.test/item?id=7&PHPSESSID=9f8e7d6c5b4a3928", "http://h.test/item?id=7"),
        ("http://h.test/item?sid=abcdef0123456789", "http://h.test/item"),
        ("http://h.test/item?SessionID=abcdef0123456789&x=1", "http://h.test/item?x=1"),
        ("http://h.test/item?session%5Fid=abcdef0123456789", "http://h.test/item"),
        # not a session id: a number, too short, no value, another name
        ("http://h.test/article?sid=1234567890", "http://h.test/article?sid=1234567890"),
        ("http://h.test/article?sid=ab12", "http://h.test/article?sid=ab12"),
        ("http://h.test/article?sid", "http://h.test/article?sid"),
        ("http://h.test/a;jsessionid=AB", "http://h.test/a;jsessionid=AB"),
        ("http://h.test/a?visit=abcdef0123456789", "http://h.test/a?visit=abcdef0123456789"),
    ],
)
def test_session_ids_leave_the_normal_form(url: str, normal: str) -> None:
    assert normalise_url(url) == normal


def test_the_names_are_the_normalisers_to_choose() -> None:
    normalise = URLNormaliser(session_params=("visit",), session_value_min_length=4)
    assert (
        normalise("http://h.test/a?visit=abcd&sid=abcdef0123") == "http://h.test/a?sid=abcdef0123"
    )
    assert URLNormaliser(session_params=())("http://h.test/a;jsessionid=ABCDEF123456") == (
        "http://h.test/a;jsessionid=ABCDEF123456"
    )
