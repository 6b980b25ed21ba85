"""Export of stored pages for extractors: JSON lines, CSV and WARC carry the same records."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from warcio.archiveiterator import ArchiveIterator

from deepcrawl.export import (
    EXPORT_FIELDS,
    Held,
    page_records,
    write_csv,
    write_jsonl,
    write_warc,
)
from deepcrawl.page.fetched import Exchange, FetchedPage
from deepcrawl.page.html import page_title
from deepcrawl.storage import Repository

BODY = "<html><head><title> A  record\n</title></head><body>é</body></html>"


def _repo_with_pages(tmp_path: Path) -> tuple[Repository, int]:
    repo = Repository.open(f"sqlite:///{tmp_path / 'x.db'}")
    site = repo.site("http://example.test/")
    for n in (1, 2):
        repo.save_page(
            site.id,
            FetchedPage(
                url=f"http://example.test/r/{n}",
                final_url=f"http://example.test/r/{n}",
                status=200,
                content_type="text/html",
                body=BODY,
            ),
            label="record",
            prototype_id="p1",
        )
    repo.save_failure(site.id, "http://example.test/r/3", "timeout")
    return repo, site.id


def test_title_extraction() -> None:
    assert page_title(BODY.encode()) == "A record"
    assert page_title(b"") == ""
    assert page_title(b"<html><body>no title") == ""
    assert page_title(b"\x00\x01garbage<<<") == ""
    # the head alone gives the title; a "</title>" in a script before it is no title
    tricky = b"<html><head><script>var t = '<title>no</title>';</script><TITLE> Real\n one</TITLE>"
    assert page_title(tricky + b"</head><body>" + b"<p>x</p>" * 100) == "Real one"
    assert page_title("<title>Caf\u00e9 menu</title><body>") == "Caf\u00e9 menu"


def test_jsonl_and_csv_carry_the_same_records(tmp_path: Path) -> None:
    repo, site_id = _repo_with_pages(tmp_path)
    with repo:
        records = list(page_records(repo, repo.pages(site_id)))
        assert [r["url"] for r in records] == ["http://example.test/r/1", "http://example.test/r/2"]
        out = io.StringIO()
        assert write_jsonl(records, out) == 2
        first = json.loads(out.getvalue().splitlines()[0])
        assert set(first) == set(EXPORT_FIELDS)
        assert first["title"] == "A record"
        assert first["label"] == "record"
        assert first["body"] == BODY
        assert first["fetched_at"].endswith("+00:00")
        table = io.StringIO()
        assert write_csv(records, table) == 2
        rows = list(csv.DictReader(io.StringIO(table.getvalue())))
        assert rows[1]["url"] == "http://example.test/r/2"
        assert rows[1]["body"] == BODY


def test_a_page_delivered_as_fetched_gives_the_record_read_back(tmp_path: Path) -> None:
    """The crawl delivers a page as it stores it, from the page in hand: the same record as
    read back from the store, headers and bytes no charset decoded included."""
    body = BODY.replace("é", "é \udcff")  # a byte that was no UTF-8, kept as it came
    headers = (("Content-Type", "text/html"), ("Set-Cookie", "a=1"), ("set-cookie", "b=2"))
    url = "http://example.test/r/9"
    page = FetchedPage(url=url, final_url=url, status=200, content_type="text/html", body=body)
    page.exchange = Exchange("GET", url, (), "HTTP/1.1", 200, "OK", headers, b"")
    with Repository.open(f"sqlite:///{tmp_path / 'x.db'}") as repo:
        site = repo.site("http://example.test/")
        row = repo.save_page(site.id, page, label="record", prototype_id="p1")
        held = next(page_records(repo, [row], fetched={row.id: Held(page)}))
        assert held == next(page_records(repo, [row]))
        assert held["headers"] == {"content-type": "text/html", "set-cookie": "a=1, b=2"}
        # the query its lease named, not read back from the frontier (where the page is not)
        leased = next(page_records(repo, [row], fetched={row.id: Held(page, "results of 'x'")}))
        assert leased["query"] == "x"
        assert held["query"] is None


def test_warc_keeps_pages_stored_without_their_exchange_as_resources(tmp_path: Path) -> None:
    """Pages stored before the exchange was kept: their stored bodies, not a made-up response."""
    repo, site_id = _repo_with_pages(tmp_path)
    with repo:
        out = io.BytesIO()
        assert write_warc(repo, repo.pages(site_id), out) == 2
    out.seek(0)
    records = [
        (
            r.rec_type,
            r.rec_headers.get_header("WARC-Target-URI"),
            r.rec_headers.get_header("Content-Type"),
            r.content_stream().read().decode(),
        )
        for r in ArchiveIterator(out)
    ]
    assert records[0][0] == "warcinfo"
    assert records[1:] == [
        ("resource", "http://example.test/r/1", "text/html", BODY),
        ("resource", "http://example.test/r/2", "text/html", BODY),
    ]


def test_csv_has_a_text_column_only_when_the_text_was_asked_for(tmp_path: Path) -> None:
    repo, site_id = _repo_with_pages(tmp_path)
    with repo:
        for text, header in ((False, EXPORT_FIELDS), (True, (*EXPORT_FIELDS, "text"))):
            table = io.StringIO()
            assert write_csv(page_records(repo, repo.pages(site_id), text=text), table) == 2
            rows = list(csv.DictReader(io.StringIO(table.getvalue())))
            assert tuple(rows[0]) == header
