"""WARC files as a crawl appends to them: continued across runs, a torn tail cut off, encodings
the HTTP client undid renamed."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import pytest
from warcio.archiveiterator import ArchiveIterator

from deepcrawl.errors import StorageError
from deepcrawl.page.fetched import Exchange
from deepcrawl.storage import PageRead
from deepcrawl.warc import WarcFile

if TYPE_CHECKING:
    from pathlib import Path

BODY = b"<html><title>t</title>caf\xe9</html>"


def _page(url: str, via: str = "http") -> tuple[PageRead, Exchange]:
    page = PageRead(
        id=1, site_id=1, url=url, final_url=url, status=200, content_type="text/html", via=via,
        fetched_at=datetime(2026, 11, 23, 12, 0, tzinfo=UTC),
    )  # fmt: skip
    headers = (
        ("Content-Type", "text/html; charset=latin-1"),
        ("Content-Encoding", "gzip"),
        ("Content-Length", "17"),
        ("Transfer-Encoding", "chunked"),
        ("Set-Cookie", "a=1"),
        ("Set-Cookie", "b=2"),
    )
    exchange = Exchange("GET", url, (("Host", "e.test"),), "HTTP/1.1", 200, "OK", headers, BODY)
    return page, exchange


def _types_and_uris(raw: bytes) -> list[tuple[str, str | None]]:
    return [
        (r.rec_type, r.rec_headers.get_header("WARC-Target-URI"))
        for r in ArchiveIterator(io.BytesIO(raw))
    ]


@pytest.mark.parametrize("name", ["pages.warc", "pages.warc.gz"])
def test_a_warc_is_continued_not_rewritten(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    first, first_exchange = _page("http://e.test/1")
    with WarcFile(path) as warc:
        assert warc.write_page(first, BODY, first_exchange)
        assert not warc.write_page(first, BODY, first_exchange)  # once per file
    assert path.read_bytes().startswith(b"\x1f\x8b") == name.endswith(".gz")
    second, second_exchange = _page("http://e.test/2", via="browser")
    with WarcFile(path) as warc:  # a resumed crawl
        assert warc.has("http://e.test/1")
        assert not warc.write_page(first, BODY, first_exchange)
        assert warc.write_page(second, b"<html>rendered</html>", second_exchange)
    assert _types_and_uris(path.read_bytes()) == [
        ("warcinfo", None),
        ("response", "http://e.test/1"),
        ("request", "http://e.test/1"),
        ("warcinfo", None),
        ("response", "http://e.test/2"),
        ("request", "http://e.test/2"),
        ("conversion", "http://e.test/2"),
    ]


def test_a_torn_last_record_is_cut_off(tmp_path: Path) -> None:
    path = tmp_path / "pages.warc"
    page, exchange = _page("http://e.test/1")
    with WarcFile(path) as warc:
        warc.write_page(page, BODY, exchange)
    whole = path.read_bytes()
    path.write_bytes(whole + whole[: len(whole) // 2])  # a second copy, torn mid-record
    with WarcFile(path) as warc:
        other, other_exchange = _page("http://e.test/2")
        warc.write_page(other, BODY, other_exchange)
    assert path.read_bytes().startswith(whole)
    assert _types_and_uris(path.read_bytes())[-3:] == [
        ("warcinfo", None),
        ("response", "http://e.test/2"),
        ("request", "http://e.test/2"),
    ]


def test_a_file_that_is_no_warc_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.warc"
    path.write_text("my notes\n")
    with pytest.raises(StorageError, match="not a WARC file"):
        WarcFile(path)
    assert path.read_text() == "my notes\n"


def test_headers_of_encodings_the_client_undid_are_renamed() -> None:
    page, exchange = _page("http://e.test/1")
    out = io.BytesIO()
    with WarcFile(out) as warc:
        warc.write_page(page, BODY, exchange)
    response = next(
        r for r in ArchiveIterator(io.BytesIO(out.getvalue())) if r.rec_type == "response"
    )
    assert response.http_headers.headers == [
        ("Content-Type", "text/html; charset=latin-1"),
        ("X-Archive-Orig-Content-Encoding", "gzip"),
        ("X-Archive-Orig-Content-Length", "17"),
        ("X-Archive-Orig-Transfer-Encoding", "chunked"),
        ("Set-Cookie", "a=1"),
        ("Set-Cookie", "b=2"),
    ]
    assert response.content_stream().read() == BODY  # read as stored: not decoded twice
