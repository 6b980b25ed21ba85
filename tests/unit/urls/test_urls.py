"""URL normalisation and tokenising (deepcrawl.urls): examples from RFC 3986, the URL Standard
and the paper."""

from __future__ import annotations

import re

import pytest

from deepcrawl.errors import InvalidURLError
from deepcrawl.urls import (
    URLNormaliser,
    ascii_host,
    browser_url,
    drop_query_keys,
    normalise_url,
    normalise_urls,
    parse_normalised,
    split_segment,
    tokenise,
    with_query_encoding,
)


@pytest.mark.parametrize(
    ("url", "base", "expected"),
    [
        # the paper's three spellings of one Amazon link
        ("http://www.amazon.com/ref=logo", None, "http://www.amazon.com/ref=logo"),
        ("/ref=logo", "http://www.amazon.com/gp/x", "http://www.amazon.com/ref=logo"),
        ("./ref=logo", "http://www.amazon.com/", "http://www.amazon.com/ref=logo"),
        # case, default port, empty path
        ("HTTP://WWW.Example.COM:80", None, "http://www.example.com/"),
        ("https://example.com:443/a", None, "https://example.com/a"),
        ("https://example.com:8443/a", None, "https://example.com:8443/a"),
        ("http://example.com:/a", None, "http://example.com/a"),
        # percent-encoding: unreserved decoded, others upper-cased, raw non-ASCII encoded
        ("http://a.com/%7euser/%41%2f?q=caf%c3%a9", None, "http://a.com/~user/A%2F?q=caf%C3%A9"),
        ("http://a.com/café", None, "http://a.com/caf%C3%A9"),
        ('http://a.com/a"b<c>', None, "http://a.com/a%22b%3Cc%3E"),
        # dot segments (RFC 3986 §5.4 examples, resolved)
        ("../../../g", "http://a/b/c/d;p?q", "http://a/g"),
        ("./g/.", "http://a/b/c/d;p?q", "http://a/b/c/g/"),
        ("g/../h", "http://a/b/c/d;p?q", "http://a/b/c/h"),
        ("http://a/b/c/./../../g", None, "http://a/g"),
        ("http://a/a/b/c/./../../g", None, "http://a/a/g"),
        ("http://a.com/a/%2E%2E/b", None, "http://a.com/b"),
        ("//other.org/x", "https://a.com/", "https://other.org/x"),
        ("?q=2", "http://a.com/p?q=1", "http://a.com/p?q=2"),
        # fragments dropped, query sorted, repeated keys kept, empty pieces dropped
        ("http://a.com/p?z=1&a=2&a=1#top", None, "http://a.com/p?a=1&a=2&z=1"),
        ("http://a.com/p?&&b&a=", None, "http://a.com/p?a=&b"),
        ("http://a.com/p?", None, "http://a.com/p"),
        ("http://a.com/p#", None, "http://a.com/p"),
        ("  http://a.com/p \n", None, "http://a.com/p"),
        ("http://[::1]:80/x", None, "http://[::1]/x"),
        ("http://User@A.com/", None, "http://User@a.com/"),
        # internationalised hosts: IDNA (UTS 46, non-transitional, as Chromium), however spelt
        ("http://bücher.de/straße", None, "http://xn--bcher-kva.de/stra%C3%9Fe"),
        ("http://BÜCHER.de/", None, "http://xn--bcher-kva.de/"),
        ("http://b%C3%BCcher.de/stra%C3%9Fe", None, "http://xn--bcher-kva.de/stra%C3%9Fe"),
        ("http://xn--bcher-kva.de/", None, "http://xn--bcher-kva.de/"),
        ("http://straße.de/", None, "http://xn--strae-oqa.de/"),
        ("http://bücher。de:8080/", None, "http://xn--bcher-kva.de:8080/"),
        ("//bücher.de/x", "https://a.com/", "https://xn--bcher-kva.de/x"),
        # unicode paths and queries: UTF-8 escapes, whatever mix of raw and encoded
        ("http://a.com/straße?q=Köln", None, "http://a.com/stra%C3%9Fe?q=K%C3%B6ln"),
        ("http://a.com/ä%C3%A4%c3%a4", None, "http://a.com/%C3%A4%C3%A4%C3%A4"),
        ("http://a.com/日本?語=語", None, "http://a.com/%E6%97%A5%E6%9C%AC?%E8%AA%9E=%E8%AA%9E"),
        # mixed encodings: a Latin-1 escape stays what it is (its bytes are not UTF-8)
        (
            "http://a.com/caf%e9/café?q=%E9&r=é",
            None,
            "http://a.com/caf%E9/caf%C3%A9?q=%E9&r=%C3%A9",
        ),
        # already encoded: never encoded twice
        ("http://a.com/a%20b/%25/%C3%A9", None, "http://a.com/a%20b/%25/%C3%A9"),
        ("http://a.com/a%2520b", None, "http://a.com/a%2520b"),
        # spaces: encoded as browsers do (%20 in a path, + in a query); stripped at the ends
        ("http://a.com/my file.pdf", None, "http://a.com/my%20file.pdf"),
        ("http://a.com/s?q=two words&x=a%20b", None, "http://a.com/s?q=two+words&x=a+b"),
        (" \thttp://a.com/a\n/b ", None, "http://a.com/a/b"),
        # a % that starts no escape is itself encoded
        ("http://a.com/100%/a%zz", None, "http://a.com/100%25/a%25zz"),
        # reserved characters kept; in a query their escapes decoded unless they delimit
        ("http://a.com/a:b@c;d=e,f/!$*()", None, "http://a.com/a:b@c;d=e,f/!$*()"),
        ("http://a.com/a%3Ab%2Fc", None, "http://a.com/a%3Ab%2Fc"),
        ("http://a.com/w?t=Talk%3aX&p=%2Fa%2Fb", None, "http://a.com/w?p=/a/b&t=Talk:X"),
        ("http://a.com/w?q=a%26b%3Dc%2B%23%27", None, "http://a.com/w?q=a%26b%3Dc%2B%23%27"),
        # characters that may not appear raw: encoded (' only in a query)
        ("http://a.com/it's?q=it's", None, "http://a.com/it's?q=it%27s"),
        ("http://a.com/[a]|b{c}^", None, "http://a.com/%5Ba%5D%7Cb%7Bc%7D%5E"),
        ("http://a.com\\a\\b?c=\\", None, "http://a.com/a/b?c=%5C"),
        # ports: the default dropped, leading zeros too, others kept
        ("https://a.com:0443/", None, "https://a.com/"),
        ("http://a.com:443/", None, "http://a.com:443/"),
        ("http://[::0:1]:8080/", None, "http://[::1]:8080/"),
        # .. segments, raw or encoded, never above the root
        ("http://a.com/a/b/../../../c", None, "http://a.com/c"),
        ("http://a.com/a/%2e%2E/b/./c/..", None, "http://a.com/b/"),
        ("../x?y=1", "http://a.com/a/b/c", "http://a.com/a/x?y=1"),
    ],
)
def test_normal_form(url: str, base: str | None, expected: str) -> None:
    assert normalise_url(url, base) == expected


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://a.com/a\x00b", "control"),
        ("http://a.com/a\x7fb", "control"),
        ("http://bad host/", "bad host"),
        ("http://a%2Fb.com/", "bad host"),
        ("http://b%FCcher.de/", "no UTF-8"),
        ("http://😀.de/", "not a valid domain name"),
        ("http://[::1::2]/", "bad IPv6"),
        ("mailto:someone@example.com", "scheme 'mailto'"),
        ("javascript:void(0)", "scheme 'javascript'"),
        ("ftp://a.com/file", "scheme 'ftp'"),
        ("/relative/path", "no base"),
        ("http:///path", "no host"),
        ("http://a.com:99999/", "bad port"),
        ("http://a.com:8o/", "bad port"),
        ("http://[::1/", "unclosed"),
    ],
)
def test_invalid_urls_raise_with_the_url_kept(url: str, reason: str) -> None:
    with pytest.raises(InvalidURLError, match=reason) as info:
        normalise_url(url)
    assert info.value.url == url


def test_relative_reference_with_bad_scheme_and_base_is_refused() -> None:
    with pytest.raises(InvalidURLError, match="javascript"):
        normalise_url("javascript:alert(1)", "http://a.com/")


def test_overlong_urls_are_refused() -> None:
    short = URLNormaliser(max_length=40)
    assert short("http://a.com/" + "x" * 27) == "http://a.com/" + "x" * 27
    with pytest.raises(InvalidURLError, match="longer than 40"):
        short("http://a.com/" + "x" * 28)


def test_a_normaliser_can_allow_other_schemes() -> None:
    ftp = URLNormaliser(schemes=("http", "https", "ftp"))
    assert ftp("FTP://A.com:21/x") == "ftp://a.com/x"
    with pytest.raises(InvalidURLError, match="scheme"):
        normalise_url("FTP://A.com:21/x")


def test_normalise_urls_yields_errors_in_place() -> None:
    out = list(
        normalise_urls(["http://a.com/x", "http://a.com/a\x01b", "/z"], base="http://b.com/")
    )
    assert out[0] == "http://a.com/x"
    assert isinstance(out[1], InvalidURLError)
    assert out[2] == "http://b.com/z"


def test_drop_query_keys_keeps_the_other_items_as_they_are() -> None:
    url = normalise_url("http://a.com/p?utm_source=x&id=5&q=a/b&view&Ref=1&ref%5F=2")
    drop = re.compile(r"utm_.*|ref_?", re.IGNORECASE).fullmatch
    assert drop_query_keys(url, drop) == "http://a.com/p?id=5&q=a/b&view"
    assert drop_query_keys("http://a.com/p?utm_a=1", drop) == "http://a.com/p"
    assert drop_query_keys("http://a.com/p", drop) == "http://a.com/p"


def test_ascii_host_is_punycode_or_refused() -> None:
    assert ascii_host("Bücher.Example") == "xn--bcher-kva.example"
    assert ascii_host("Example.COM") == "example.com"
    with pytest.raises(ValueError, match="not a valid domain name"):
        ascii_host("a\u200db.de")


def test_split_segment_at_separators_and_digit_letter_boundaries() -> None:
    assert split_segment("book-17.html") == ("book", "-", "17", ".", "html")
    assert split_segment("abc123def_4") == ("abc", "123", "def", "_", "4")
    assert split_segment("caf%C3%A9-2") == ("caf%C3%A9", "-", "2")
    assert split_segment("") == ()


def test_tokenise_splits_parts() -> None:
    tokens = tokenise("HTTP://Shop.example.com:8080/p/Book-17/?utm=x&id=5&id=4#f")
    assert tokens.scheme == "http"
    assert tokens.host == "shop.example.com:8080"
    assert tokens.origin == "http://shop.example.com:8080"
    assert tokens.segments == ("p", "Book-17", "")
    assert tokens.query == (("id", "4"), ("id", "5"), ("utm", "x"))
    assert tokens.query_keys == frozenset({"id", "utm"})
    assert tokens.segment_tokens()[1] == ("Book", "-", "17")
    assert tokens.path == "/p/Book-17/"
    assert tokens.to_url() == "http://shop.example.com:8080/p/Book-17/?id=4&id=5&utm=x"


def test_bare_query_keys_keep_their_difference_from_empty_values() -> None:
    tokens = parse_normalised(normalise_url("http://a.com/?b&a="))
    assert tokens.query == (("a", ""), ("b", None))
    assert tokens.to_url() == "http://a.com/?a=&b"


def test_parse_normalised_refuses_non_urls() -> None:
    with pytest.raises(InvalidURLError):
        parse_normalised("not a url")


def test_a_query_is_encoded_in_its_pages_encoding() -> None:
    url = "http://a.com/日本?q=日本&e=€#f"
    assert (
        with_query_encoding(url, "shift_jis") == "http://a.com/日本?q=%93%FA%96{&e=%26%238364%3B#f"
    )
    assert (
        with_query_encoding(url, "cp1252")
        == "http://a.com/日本?q=%26%2326085%3B%26%2326412%3B&e=%80#f"
    )
    assert with_query_encoding(url, "UTF8") == url
    assert with_query_encoding("http://a.com/日本", "shift_jis") == "http://a.com/日本"
    assert with_query_encoding("http://a.com/#日本?", "shift_jis") == "http://a.com/#日本?"
    assert normalise_url(with_query_encoding(url, "shift_jis")) == (
        "http://a.com/%E6%97%A5%E6%9C%AC?e=%26%238364%3B&q=%93%FA%96%7B"
    )


def test_browser_url_serialises_a_link_as_chromium_does() -> None:
    assert browser_url("http://Bücher.de:8080/straße/x?q=a b#frag") == (
        "http://xn--bcher-kva.de:8080/stra%C3%9Fe/x?q=a%20b#frag"
    )
    assert browser_url("http://a.com/A%7e?b=1&a=2") == "http://a.com/A%7e?b=1&a=2"  # as given
    assert browser_url("http://😀.de/x y") == "http://😀.de/x y"  # no host: left as it is
