"""Property tests of the normal form: idempotent, order-blind, meaning-preserving."""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote, urlsplit

from hypothesis import given, settings
from hypothesis import strategies as st
from w3lib.url import safe_url_string

from deepcrawl.errors import InvalidURLError
from deepcrawl.urls import browser_url, normalise_url, parse_normalised, split_segment

_SEGMENT_CHARS = st.sampled_from(list("abcXYZ019-._~!$&'()*+,;=:@%é/"))
_segment = st.text(_SEGMENT_CHARS, max_size=8).map(
    # keep escapes well-formed: a '%' is followed by two hex digits
    lambda s: s.replace("%", "%2f")
)
_word = st.text(st.sampled_from(list("abcXYZ019-._~%é+")), max_size=6).map(
    lambda s: s.replace("%", "%7E")
)
_params = st.lists(st.tuples(_word, _word), max_size=5)
_host = st.sampled_from(["example.com", "EXAMPLE.com", "a.b.c", "127.0.0.1", "[::1]"])
_scheme = st.sampled_from(["http", "https", "HTTP", "Https"])
_port = st.sampled_from(["", ":80", ":443", ":8080"])


@st.composite
def urls(draw: st.DrawFn) -> tuple[str, list[tuple[str, str]]]:
    path = "/".join(draw(st.lists(_segment, max_size=5)))
    params = draw(_params)
    query = "&".join(f"{k}={v}" for k, v in params)
    fragment = draw(st.sampled_from(["", "#", "#top"]))
    url = f"{draw(_scheme)}://{draw(_host)}{draw(_port)}/{path}"
    return url + (f"?{query}" if params else "") + fragment, params


@settings(max_examples=300, deadline=None)
@given(urls())
def test_normalisation_is_idempotent(case: tuple[str, list[tuple[str, str]]]) -> None:
    once = normalise_url(case[0])
    assert normalise_url(once) == once


@settings(max_examples=200, deadline=None)
@given(urls(), st.randoms())
def test_parameter_order_never_matters(
    case: tuple[str, list[tuple[str, str]]], rnd: object
) -> None:
    url, params = case
    base = url.split("?")[0].split("#")[0]
    shuffled = list(params)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    a = normalise_url(base + "?" + "&".join(f"{k}={v}" for k, v in params))
    b = normalise_url(base + "?" + "&".join(f"{k}={v}" for k, v in shuffled))
    assert a == b


@settings(max_examples=300, deadline=None)
@given(urls())
def test_round_trip_keeps_meaning(case: tuple[str, list[tuple[str, str]]]) -> None:
    url = case[0]
    normal = normalise_url(url)
    before, after = urlsplit(url), urlsplit(normal)
    # same host and scheme, case aside; fragment gone
    assert after.scheme == before.scheme.lower()
    assert after.hostname == before.hostname
    assert after.fragment == ""
    # the same parameters, as a multiset, with the same decoded keys and values
    assert sorted(parse_qsl(after.query, keep_blank_values=True)) == sorted(
        parse_qsl(before.query, keep_blank_values=True)
    )
    # tokens reassemble the normal form exactly
    tokens = parse_normalised(normal)
    assert tokens.to_url() == normal
    for segment in tokens.segments:
        assert "".join(split_segment(segment)) == segment
    # decoded path has no dot segments left and keeps the non-dot segments in order
    segments = [unquote(s) for s in after.path.split("/")[1:]]
    assert "." not in segments
    assert ".." not in segments


_RAW_CHARS = st.sampled_from(list("azAZ09-._~:@!$&()*+,;=/?%"))
_raw_rest = st.text(_RAW_CHARS, max_size=24).map(lambda s: s.replace("%", "%7e"))


@settings(max_examples=300, deadline=None)
@given(_scheme, _raw_rest)
def test_the_field_library_leaves_a_url_of_raw_characters_alone(scheme: str, rest: str) -> None:
    """The normaliser skips w3lib for such URLs: that is right only while w3lib would change
    nothing in their path and query (an empty query it drops, as the normal form does)."""
    url = f"{scheme.lower()}://example.com/{rest}"
    safe = urlsplit(safe_url_string(url))
    assert (safe.path, safe.query) == (urlsplit(url).path, urlsplit(url).query)


_ANY_PIECE = st.sampled_from(
    [
        *"aZ09-._~:@!$&'()*+,;=/?%é日 \"<>[]|\\^`{}#\t\x01",
        "%2e",
        "%2E%2e",
        "..",
        "%20",
        "%3A",
        "%e9",
    ]
)
_ANY_HOST = st.sampled_from(
    ["example.com", "EXAMPLE.com:80", "bücher.de", "b%C3%BCcher.de", "BÜCHER.de:8080",
     "xn--bcher-kva.de", "straße.de", "[::0:1]", "127.0.0.1:0080"]
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(_scheme, _ANY_HOST, st.lists(_ANY_PIECE, max_size=30).map("".join))
def test_the_normal_form_of_the_browsers_spelling_is_the_same(
    scheme: str, host: str, rest: str
) -> None:
    """A URL and its spellings by w3lib and by :func:`browser_url` (as a browser serialises a
    link) are one URL; the normal form is idempotent whatever characters the URL holds."""
    url = f"{scheme}://{host}/{rest}"
    try:
        normal = normalise_url(url)
    except InvalidURLError:
        return  # a control character: refused however spelt
    assert normalise_url(normal) == normal
    assert normalise_url(browser_url(url)) == normal
    if host.isascii():  # w3lib's own IDNA is IDNA 2003 (straße → strasse): not the browsers'
        assert normalise_url(safe_url_string(url)) == normal
