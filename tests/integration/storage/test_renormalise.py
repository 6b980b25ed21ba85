"""Schema 3: a database written with the old URL normal form is re-keyed when opened, on SQLite
and PostgreSQL, and its records keep their identity.

The old database is made here, row by row, as the old normal form wrote it: IDN hosts
percent-encoded (``b%C3%BCcher``), query escapes of ``/`` and ``:`` kept (record keys went
through ``urlencode``), ``'`` raw in a query.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import sqlalchemy as sa

from deepcrawl.storage import SCHEMA_VERSION, Repository
from deepcrawl.storage import tables as t
from deepcrawl.urls import normalise_url

if TYPE_CHECKING:
    import pytest

OLD = "http://b%C3%BCcher.localhost:8000"
NEW = "http://xn--bcher-kva.localhost:8000"
FRONTIER = t.FrontierEntry.__table__  # type: ignore[attr-defined]
PAGE = t.Page.__table__  # type: ignore[attr-defined]
LINK = t.Link.__table__  # type: ignore[attr-defined]
DELIVERY = t.Delivery.__table__  # type: ignore[attr-defined]
PROTOTYPE = t.Prototype.__table__  # type: ignore[attr-defined]
LABEL = t.Label.__table__  # type: ignore[attr-defined]


def _old_database(db_url: str) -> int:
    """A schema-2 database holding one site's rows in the old normal form; the site's id."""
    with Repository.open(db_url) as repo:
        site = repo.site(f"{NEW}/").id
        with repo.engine.begin() as conn:

            def frontier(url: str, state: str, priority: float) -> None:
                conn.execute(
                    sa.insert(FRONTIER).values(
                        site_id=site, url=url, host="x", state=state, priority=priority
                    )
                )

            def page(url: str, status: int, kind: str = "record", error: str | None = None) -> int:
                return int(
                    conn.execute(
                        sa.insert(PAGE).values(
                            site_id=site,
                            url=url,
                            final_url=url,
                            status=status,
                            kind=kind,
                            error=error,
                            body=b"<html></html>" if status == 200 else None,
                        )
                    ).inserted_primary_key[0]
                )

            frontier(f"{OLD}/buch/stra%C3%9Fe", "done", 0.5)  # the IDN host: re-written
            frontier(f"{NEW}/w?t=Talk%3AX", "queued", 0.9)  # meets the next: merged
            frontier(f"{NEW}/w?t=Talk:X", "done", 0.1)
            frontier(f"{NEW}/ok", "queued", 0.3)  # already in normal form
            frontier("http://%FF.localhost/", "failed", 0.0)  # no longer a URL: kept
            stored = page(f"{OLD}/buch/stra%C3%9Fe", 200)
            conn.execute(sa.insert(DELIVERY).values(site_id=site, page_id=stored))
            good = page(f"{NEW}/r?q=a%2Fb&x='y'", 200)  # delivered, with its links
            conn.execute(sa.insert(DELIVERY).values(site_id=site, page_id=good))
            conn.execute(sa.insert(LINK).values(source_page_id=good, target_url=f"{NEW}/a"))
            failed = page(f"{NEW}/r?q=a/b&x='y'", 0, "record", "boom")  # the same record, failed
            conn.execute(sa.insert(LINK).values(source_page_id=failed, target_url=f"{NEW}/b"))
            page(f"{OLD}/search?q=x#query-1", 200, "results")  # no normal form: untouched
            conn.execute(
                sa.insert(PROTOTYPE).values(
                    site_id=site,
                    key="p1",
                    regex=OLD.replace(".", r"\.") + "/buch/[^/]+",
                    examples=[f"{OLD}/buch/stra%C3%9Fe", f"{NEW}/buch/stra%C3%9Fe"],
                    count=2,
                )
            )
            conn.execute(
                sa.insert(LABEL).values(
                    site_id=site, prototype_key="p1", name="book", relevant=True
                )
            )
            conn.execute(
                sa.text("UPDATE deepcrawl_meta SET value = '4' WHERE key = 'schema_version'")
            )
    return site


def test_old_normal_form_is_rekeyed_on_open(db_url: str, caplog: pytest.LogCaptureFixture) -> None:
    site = _old_database(db_url)
    with caplog.at_level(logging.WARNING, logger="deepcrawl.storage"):
        repo = Repository.open(db_url)
    with repo:
        message = " ".join(r.getMessage() for r in caplog.records)
        assert "re-written in the new URL normal form (schema 4 -> 5)" in message
        assert "frontier: 1 re-written, 1 merged, 1 kept as they were" in message
        assert "page: 2 re-written, 1 merged, 0 kept as they were" in message
        with repo.engine.connect() as conn:
            version = conn.execute(
                sa.text("SELECT value FROM deepcrawl_meta WHERE key = 'schema_version'")
            ).scalar_one()
            assert int(version) == SCHEMA_VERSION
            queue = {
                r.url: (r.state, r.priority, r.host)
                for r in conn.execute(sa.select(FRONTIER).where(FRONTIER.c.site_id == site))
            }
        # each record under the key today's normal form gives its links, however they are spelt
        book = normalise_url("http://bücher.localhost:8000/buch/straße")
        talk = normalise_url("http://bücher.localhost:8000/w?t=Talk%3aX")
        record = normalise_url("http://bücher.localhost:8000/r?x='y'&q=a/b")
        assert (book, talk, record) == (
            f"{NEW}/buch/stra%C3%9Fe",
            f"{NEW}/w?t=Talk:X",
            f"{NEW}/r?q=a/b&x=%27y%27",
        )
        assert queue == {
            book: ("done", 0.5, "xn--bcher-kva.localhost"),
            talk: ("done", 0.9, "x"),  # the row that got further, the higher priority
            f"{NEW}/ok": ("queued", 0.3, "x"),
            "http://%FF.localhost/": ("failed", 0.0, "x"),
        }
        pages = {p.url: p for p in repo.pages(site)}
        assert set(pages) == {book, record, f"{OLD}/search?q=x#query-1"}
        assert pages[record].status == 200  # the successful fetch was kept
        assert [link.target_url for link in repo.links(pages[record].id)] == [f"{NEW}/a"]
        with repo.engine.connect() as conn:
            delivered = set(conn.execute(sa.select(DELIVERY.c.page_id)).scalars())
        assert delivered == {pages[book].id, pages[record].id}  # nothing delivered twice
        assert repo.page(site, book) is not None
        (prototype,) = repo.prototypes(site)
        assert prototype.key == "p1"
        assert prototype.regex == NEW.replace(".", r"\.") + "/buch/[^/]+"
        assert prototype.examples == [book]
        assert [label.prototype_key for label in repo.labels(site)] == ["p1"]
    with caplog.at_level(logging.WARNING, logger="deepcrawl.storage"):
        caplog.clear()
        Repository.open(db_url).close()  # opened again: nothing left to migrate
    assert not caplog.records
