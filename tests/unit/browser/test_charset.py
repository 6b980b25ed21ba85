"""How the plain-HTTP fetcher reads a page's bytes: the encoding declared in the header or in a
``<meta>`` only, a byte-order mark, or none at all (w3lib's ``html_to_unicode``).

Pages in windows-1252 and Shift_JIS, served by a local server in a thread, fetched for real.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pytest

from deepcrawl.browser import HttpFetcher
from deepcrawl.browser.http import decode_body
from deepcrawl.browser.testing import LocalSite, Reply
from deepcrawl.settings import Settings
from deepcrawl.urls import normalise_url

FRENCH = "Café crème à 5 € — œuvre"
JAPANESE = "日本語のページ、東京都の図書館"
#: Long enough for detection to tell Shift_JIS from its neighbours.
JAPANESE_PROSE = (
    "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所で"
    "ニャーニャー泣いていた事だけは記憶している。吾輩はここで始めて人間というものを見た。"
)


def _page(text: str, meta: str = "") -> str:
    return (
        f"<html><head>{meta}<title>{text}</title></head>"
        f"<body><p>{text}</p><a href='/{text[:2]}?q={text[:2]}'>{text}</a></body></html>"
    )


def _meta(charset: str) -> str:
    return f'<meta http-equiv="Content-Type" content="text/html; charset={charset}">'


CASES: dict[str, Reply] = {
    "/cp1252-meta": Reply(
        _page(FRENCH, '<meta charset="windows-1252">').encode("cp1252"), content_type="text/html"
    ),
    "/cp1252-header": Reply(
        _page(FRENCH).encode("cp1252"), content_type="text/html; charset=windows-1252"
    ),
    "/sjis-meta": Reply(
        _page(JAPANESE, _meta("Shift_JIS")).encode("shift_jis"), content_type="text/html"
    ),
    "/sjis-header": Reply(
        _page(JAPANESE).encode("shift_jis"), content_type="text/html; charset=Shift_JIS"
    ),
    # the header outranks the page's own declaration
    "/header-beats-meta": Reply(
        _page(JAPANESE, '<meta charset="windows-1252">').encode("shift_jis"),
        content_type="text/html; charset=shift_jis",
    ),
    # a byte-order mark outranks everything (the HTML Standard, as browsers do)
    "/bom": Reply(
        b"\xef\xbb\xbf" + _page(FRENCH).encode("utf-8"),
        content_type="text/html; charset=windows-1252",
    ),
    # nothing declared: detected
    "/sjis-undeclared": Reply(_page(JAPANESE_PROSE).encode("shift_jis"), content_type="text/html"),
    "/utf8-undeclared": Reply(_page(FRENCH).encode("utf-8"), content_type="text/html"),
}


#: What each page says, and the encoding a browser reads it in.
EXPECTED = {
    "/cp1252-meta": (FRENCH, "cp1252"),
    "/cp1252-header": (FRENCH, "cp1252"),
    "/sjis-meta": (JAPANESE, "shift_jis"),
    "/sjis-header": (JAPANESE, "shift_jis"),
    "/header-beats-meta": (JAPANESE, "shift_jis"),
    "/bom": (FRENCH, "utf-8"),
    "/sjis-undeclared": (JAPANESE_PROSE, "shift_jis"),
    "/utf8-undeclared": (FRENCH, "utf-8"),
}


@pytest.fixture(scope="module")
def site() -> Iterator[LocalSite]:
    with LocalSite(dict(CASES)) as served:  # type: ignore[arg-type]
        yield served


@pytest.mark.parametrize("path", list(EXPECTED))
async def test_the_page_text_is_read_in_its_encoding(site: LocalSite, path: str) -> None:
    text, encoding = EXPECTED[path]
    async with HttpFetcher(Settings()) as fetcher:
        page = await fetcher.fetch(site.url + path)
    assert f"<p>{text}</p>" in page.body
    assert "\ufffd" not in page.body
    link = page.links[0]
    assert link.text == text
    # as a browser resolves it: the path in UTF-8, the query in the page's encoding
    head = text[:2]
    query = quote(head, encoding=encoding)
    assert normalise_url(link.url) == f"{site.url}/{quote(head)}?q={query}"


def test_decode_body_names_the_encoding_it_used() -> None:
    assert decode_body("é".encode("cp1252"), "text/html; charset=windows-1252") == (
        "é",
        "cp1252",
    )
    assert decode_body(b"<meta charset=shift_jis>" + "日本".encode("shift_jis"), None) == (
        "<meta charset=shift_jis>日本",
        "cp932",  # what the HTML Standard reads "Shift_JIS" as
    )
    assert decode_body(b"plain ascii", None) == ("plain ascii", "utf-8")
