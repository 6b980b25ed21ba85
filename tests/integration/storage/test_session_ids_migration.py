"""Schema 7: stored URL keys lose their session ids, and the rows of one record meet (issue 25)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import sqlalchemy as sa

from deepcrawl.storage import SCHEMA_VERSION, Repository
from deepcrawl.storage import tables as t

if TYPE_CHECKING:
    import pytest

SITE = "http://127.0.0.1:8000"
FRONTIER = t.FrontierEntry.__table__  # type: ignore[attr-defined]
PAGE = t.Page.__table__  # type: ignore[attr-defined]
DELIVERY = t.Delivery.__table__  # type: ignore[attr-defined]


def test_a_version_6_database_is_rekeyed_without_session_ids(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    with Repository.open(db_url) as repo, repo.engine.begin() as conn:
        site = repo.site(f"{SITE}/").id
        for url, state in [
            (f"{SITE}/book/7;jsessionid=0A1B2C3D4E5F6A7B", "done"),
            (f"{SITE}/book/7?PHPSESSID=9f8e7d6c5b4a39281", "queued"),
            (f"{SITE}/book/8?sid=17", "queued"),  # an id, not a session: kept
        ]:
            conn.execute(sa.insert(FRONTIER).values(site_id=site, url=url, host="h", state=state))
        stored = conn.execute(
            sa.insert(PAGE).values(
                site_id=site, url=f"{SITE}/book/7;jsessionid=0A1B2C3D4E5F6A7B",
                final_url=f"{SITE}/book/7", status=200, kind="record", body=b"<html></html>",
            )
        ).inserted_primary_key[0]  # fmt: skip
        conn.execute(sa.insert(DELIVERY).values(site_id=site, page_id=stored))
        conn.execute(sa.text("UPDATE deepcrawl_meta SET value = '6' WHERE key = 'schema_version'"))
    with caplog.at_level(logging.WARNING, logger="deepcrawl.storage"):
        repo = Repository.open(db_url)
    with repo, repo.engine.connect() as conn:
        assert "without session ids (schema 6 -> 7)" in caplog.text
        frontier = dict(conn.execute(sa.select(FRONTIER.c.url, FRONTIER.c.state)).all())
        assert frontier == {f"{SITE}/book/7": "done", f"{SITE}/book/8?sid=17": "queued"}
        [(url, delivered)] = conn.execute(
            sa.select(PAGE.c.url, sa.func.count(DELIVERY.c.id))
            .join(DELIVERY, DELIVERY.c.page_id == PAGE.c.id, isouter=True)
            .group_by(PAGE.c.url)
        ).all()
        assert (url, delivered) == (f"{SITE}/book/7", 1)
        version = conn.execute(
            sa.text("SELECT value FROM deepcrawl_meta WHERE key = 'schema_version'")
        ).scalar_one()
        assert int(version) == SCHEMA_VERSION == 12
