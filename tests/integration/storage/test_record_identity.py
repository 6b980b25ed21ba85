"""A record's identity in storage (issue 26, item 4): pages keep their canonical URL and main
text's fingerprint, a record stored before is found by either, and learnt parameters say
whether they go whatever their value; a version 7 database gains all of it."""

from __future__ import annotations

import sqlalchemy as sa

from deepcrawl.page.fetched import FetchedPage
from deepcrawl.storage import SCHEMA_VERSION, Repository
from deepcrawl.storage import tables as t
from deepcrawl.storage.state import CrawlState, stored_record_stmt

SITE = "http://example.test"


def _page(url: str) -> FetchedPage:
    return FetchedPage(url, url, 200, "text/html", "<p>text</p>")


def test_a_record_stored_before_is_found_by_its_canonical_url_or_its_text(db_url: str) -> None:
    with Repository.open(db_url) as repo:
        site = repo.site(f"{SITE}/")
        state = CrawlState(repo, site.id)
        repo.save_page(site.id, _page(f"{SITE}/a"), kind="record", fingerprint="f" * 32)
        repo.save_page(site.id, _page(f"{SITE}/b?hl=x"), kind="record", canonical_url=f"{SITE}/b")
        repo.save_page(site.id, _page(f"{SITE}/c"), kind="results", fingerprint="c" * 32)
        assert state.stored_record(f"{SITE}/a", None) == f"{SITE}/a"
        assert state.stored_record(f"{SITE}/b", None) == f"{SITE}/b?hl=x"
        assert state.stored_record(None, "f" * 32) == f"{SITE}/a"
        assert state.stored_record(None, "c" * 32) is None  # no record
        assert state.stored_record(f"{SITE}/d", None) is None
        assert state.stored_record(None, None) is None
        assert repo.page(site.id, f"{SITE}/b?hl=x").canonical_url == f"{SITE}/b"  # type: ignore[union-attr]


def test_a_process_owning_the_pages_answers_the_probes_as_the_database_does(
    db_url: str,
) -> None:
    urls = [f"{SITE}/{name}" for name in ("a", "b", "b?hl=x", "c", "d", "e", "gone", "x")]
    fingerprints = ["f" * 32, "c" * 32, "e" * 32, "0" * 32]

    def answers(state: CrawlState) -> list[str | None]:
        return [state.stored_key(url) for url in urls] + [
            state.stored_record(url, fp) for url in (*urls, None) for fp in (*fingerprints, None)
        ]

    with Repository.open(db_url) as repo:
        site = repo.site(f"{SITE}/")
        other = repo.site("http://other.test/")
        repo.save_page(site.id, _page(f"{SITE}/a"), kind="record", fingerprint="f" * 32)
        repo.save_page(site.id, _page(f"{SITE}/b?hl=x"), kind="record", canonical_url=f"{SITE}/b")
        asking, owning = CrawlState(repo, site.id), CrawlState(repo, site.id)
        owning.own_pages()  # read from here on, kept whole as pages are stored
        owning.own_pages()  # idempotent
        repo.save_page(site.id, _page(f"{SITE}/c"), kind="results", fingerprint="c" * 32)
        repo.save_page(
            site.id, _page(f"{SITE}/d"), kind="duplicate", canonical_url=f"{SITE}/a"
        )  # not a record: names nothing
        repo.save_page(
            site.id, _page(f"{SITE}/e?s=1"), kind="record", canonical_url=f"{SITE}/e",
            fingerprint="e" * 32,
        )  # fmt: skip
        repo.save_failure(site.id, f"{SITE}/gone", "HTTP status 404", kind="record")
        repo.save_page(other.id, _page(f"{SITE}/x"), kind="record", fingerprint="0" * 32)
        assert answers(owning) == answers(asking)
        assert owning.stored_key(f"{SITE}/gone") == f"{SITE}/gone"  # a failure is stored too
        assert owning.stored_key(f"{SITE}/e") == f"{SITE}/e?s=1"
        assert owning.stored_record(None, "e" * 32) == f"{SITE}/e?s=1"
        assert owning.stored_key(f"{SITE}/x") is None  # another site's page


def test_learnt_parameters_keep_their_kind(db_url: str) -> None:
    with Repository.open(db_url) as repo:
        state = CrawlState(repo, repo.site(f"{SITE}/").id)
        state.add_session_params({"visit"})
        state.add_session_params({"s[]"}, anyway=True)
        state.add_session_params({"visit"}, anyway=True)  # known: left alone
        assert state.session_params() == {"visit"}
        assert state.session_params(anyway=True) == {"s[]"}


def test_a_version_7_database_gains_the_identity_columns(db_url: str) -> None:
    with Repository.open(db_url) as repo, repo.engine.begin() as conn:
        site = repo.site(f"{SITE}/")
        for name in ("canonical_url", "fingerprint"):
            conn.execute(sa.text(f"DROP INDEX ix_page_{name}"))
            conn.execute(sa.text(f"ALTER TABLE page DROP COLUMN {name}"))
        conn.execute(sa.text("ALTER TABLE session_param DROP COLUMN anyway"))
        conn.execute(sa.text("UPDATE deepcrawl_meta SET value = '7' WHERE key = 'schema_version'"))
    with Repository.open(db_url) as repo:
        inspector = sa.inspect(repo.engine)
        assert {"canonical_url", "fingerprint"} <= {
            c["name"] for c in inspector.get_columns("page")
        }
        assert "anyway" in {c["name"] for c in inspector.get_columns("session_param")}
        assert SCHEMA_VERSION == 12
        state = CrawlState(repo, site.id)
        repo.save_page(site.id, _page(f"{SITE}/a"), kind="record", canonical_url=f"{SITE}/A")
        assert state.stored_record(f"{SITE}/A", None) == f"{SITE}/a"


def test_the_stored_record_lookup_probes_indexes_only(db_url: str) -> None:
    # Asked for every page fetched: a walk of the site's pages per call made a crawl
    # quadratic in its pages (issue 27). Each of its three tests must be an index probe.
    with Repository.open(db_url) as repo:
        site = repo.site(f"{SITE}/")
        with repo.engine.begin() as conn:
            conn.execute(
                sa.insert(t.Page),
                [
                    {"site_id": site.id, "url": f"{SITE}/r/{i}", "kind": "record", "body": b"x",
                     "fingerprint": f"{i:032d}"}
                    for i in range(5000)
                ],
            )  # fmt: skip
        stmt = stored_record_stmt(by_url=True, by_fingerprint=True).params(
            site_id=site.id, url=f"{SITE}/r/7", fingerprint="f" * 32
        )
        literal = {"literal_binds": True}
        sql = str(stmt.compile(dialect=repo.engine.dialect, compile_kwargs=literal))
        with repo.engine.connect() as conn:
            if repo.engine.dialect.name == "postgresql":
                conn.execute(sa.text("ANALYZE page"))
                plan = " ".join(r[0] for r in conn.execute(sa.text("EXPLAIN " + sql)))
                scans = "Seq Scan" in plan
            else:
                rows = conn.execute(sa.text("EXPLAIN QUERY PLAN " + sql))
                plan = " ".join(str(r[-1]) for r in rows)
                # a probe by the site alone walks every page of it
                scans = "(site_id=?)" in plan or "SCAN page" in plan
        assert not scans, plan
        assert CrawlState(repo, site.id).stored_record(f"{SITE}/r/7", None) == f"{SITE}/r/7"
