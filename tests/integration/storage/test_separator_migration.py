"""Schema 12: stored URL keys whose parameters ``;`` separates are sorted as ``&``-separated
ones are, so the rows of one record written in two orders meet (issue 48)."""

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


def test_a_version_11_database_is_rekeyed_with_semicolon_parameters_in_order(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    with Repository.open(db_url) as repo, repo.engine.begin() as conn:
        site = repo.site(f"{SITE}/").id
        for url, state in [
            (f"{SITE}/?p=repo;a=commit;h=0af3", "done"),  # keys as the site wrote them
            (f"{SITE}/?a=commit;h=0af3;p=repo", "queued"),  # the same record, sorted
            (f"{SITE}/?p=repo;a=tree;h=0af3", "queued"),  # another view: kept apart
        ]:
            conn.execute(sa.insert(FRONTIER).values(site_id=site, url=url, host="h", state=state))
        conn.execute(sa.text("UPDATE deepcrawl_meta SET value = '11' WHERE key = 'schema_version'"))
    with caplog.at_level(logging.WARNING, logger="deepcrawl.storage"):
        repo = Repository.open(db_url)
    with repo, repo.engine.connect() as conn:
        assert "';' read as a parameter separator (schema 11 -> 12)" in caplog.text
        frontier = dict(conn.execute(sa.select(FRONTIER.c.url, FRONTIER.c.state)).all())
        assert frontier == {
            f"{SITE}/?a=commit;h=0af3;p=repo": "done",
            f"{SITE}/?a=tree;h=0af3;p=repo": "queued",
        }
        version = conn.execute(
            sa.text("SELECT value FROM deepcrawl_meta WHERE key = 'schema_version'")
        ).scalar_one()
        assert int(version) == SCHEMA_VERSION == 12
