"""Credentials in URLs: split off a URL (:func:`split_userinfo`) and masked in text
(:func:`redact`)."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deepcrawl.userinfo import Credentials, redact, split_userinfo


@pytest.mark.parametrize(
    ("url", "bare", "credentials"),
    [
        ("http://alice:S3cretPw@host/", "http://host/", Credentials("alice", "S3cretPw")),
        # an IPv6 host keeps its brackets, the port, path, query and fragment stay as given
        (
            "http://alice:pw@[2001:db8::1]:8080/p?q=1#f",
            "http://[2001:db8::1]:8080/p?q=1#f",
            Credentials("alice", "pw"),
        ),
        ("http://u:p@[::1]/", "http://[::1]/", Credentials("u", "p")),
        ("https://bob:x@Example.ORG:8443/a", "https://Example.ORG:8443/a", Credentials("bob", "x")),
        # percent-encoded: decoded, ':' and '@' of the password included
        (
            "http://al%20ice:p%40ss%3Aw%2Fd@h/",
            "http://h/",
            Credentials("al ice", "p@ss:w/d"),
        ),
        ("http://j%C3%BCrgen:%E2%82%AC@h/", "http://h/", Credentials("jürgen", "€")),
        # a user with no password, an empty one, no user
        ("http://alice@h/", "http://h/", Credentials("alice", "")),
        ("http://alice:@h/", "http://h/", Credentials("alice", "")),
        ("http://:pw@h/", "http://h/", Credentials("", "pw")),
        # a raw '@' in the password: the userinfo ends at the authority's last '@'
        ("http://a:b@c@h:81/", "http://h:81/", Credentials("a", "b@c")),
        # a raw ':' after the first is the password's
        ("http://a:b:c@h", "http://h", Credentials("a", "b:c")),
        ("  http://a:b@h/  ", "http://h/", Credentials("a", "b")),
    ],
)
def test_the_userinfo_is_split_off_the_url(url: str, bare: str, credentials: Credentials) -> None:
    assert split_userinfo(url) == (bare, credentials)


@pytest.mark.parametrize(
    "url",
    [
        "http://host/",
        "http://host:8080/a@b?c=d@e#f@g",  # '@' in the path, query and fragment only
        "/book/1",
        "mailto:alice@example.org",
        "alice:pw@host",  # no scheme://
        "",
    ],
)
def test_a_url_without_userinfo_comes_back_as_it_is(url: str) -> None:
    assert split_userinfo(url) == (url, None)


def test_an_empty_userinfo_leaves_no_at_sign_and_no_credentials() -> None:
    assert split_userinfo("http://@host/x") == ("http://host/x", None)


def test_the_basic_authorization_is_rfc_7617s_and_the_password_never_in_a_repr() -> None:
    # RFC 7617 §2's example
    assert Credentials("Aladdin", "open sesame").authorization() == (
        "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
    )
    assert Credentials("alice", "").authorization() == "Basic YWxpY2U6"  # "alice:"
    assert "S3cretPw" not in repr(Credentials("alice", "S3cretPw"))
    assert "alice" in repr(Credentials("alice", "S3cretPw"))


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("http://alice:S3cretPw@host/", "http://alice:***@host/"),
        (
            "postgresql+psycopg://me:secret@db.example:5432/crawl",
            "postgresql+psycopg://me:***@db.example:5432/crawl",
        ),
        (
            "cannot reach http://a:p%40ss@[::1]:81/x: refused",
            "cannot reach http://a:***@[::1]:81/x: refused",
        ),
        ("http://a:b@c@h/ and https://d:e@f/", "http://a:***@h/ and https://d:***@f/"),
        ("'http://a:b@h', 'x'", "'http://a:***@h', 'x'"),
        ("http://a:***@h/", "http://a:***@h/"),  # masked once is masked
        # nothing to mask: no password, no URL, an '@' past the authority
        ("http://alice@host/", "http://alice@host/"),
        ("write to alice:pw@example.org", "write to alice:pw@example.org"),
        ("http://host:8080/a:b@c", "http://host:8080/a:b@c"),
        ("http://host:8080 and bob:x@y", "http://host:8080 and bob:x@y"),
        ("sqlite:///crawl.db", "sqlite:///crawl.db"),
    ],
)
def test_redact_masks_the_password_of_every_url_in_a_text(text: str, shown: str) -> None:
    assert redact(text) == shown


_PART = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)


@given(user=_PART, password=_PART, port=st.none() | st.integers(1, 65535))
def test_any_encoded_user_and_password_round_trip_and_are_masked(
    user: str, password: str, port: int | None
) -> None:
    shown_port = "" if port is None else f":{port}"
    userinfo = f"{quote(user, safe='')}:{quote(password, safe='')}"
    url = f"https://{userinfo}@[2001:db8::7]{shown_port}/p?q=1"
    bare, credentials = split_userinfo(url)
    assert bare == f"https://[2001:db8::7]{shown_port}/p?q=1"
    assert credentials == Credentials(user, password)
    # the standard library reads the same user and password, and the same host
    parts = urlsplit(url)
    assert (parts.username, parts.password, parts.port) == (
        quote(user, safe=""),
        quote(password, safe=""),
        port,
    )
    masked = redact(f"fetching {url} failed")
    assert (
        masked
        == f"fetching https://{quote(user, safe='')}:***@[2001:db8::7]{shown_port}/p?q=1 failed"
    )
