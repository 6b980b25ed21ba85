"""The repository, on every backend: SQLite file and real PostgreSQL server."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import sqlalchemy as sa

from deepcrawl.errors import ConfigError, SchemaVersionError, StorageError
from deepcrawl.page.fetched import Exchange, FetchedPage, Link
from deepcrawl.page.form import Form, FormField
from deepcrawl.settings import StorageSettings
from deepcrawl.storage import SCHEMA_VERSION, PageWrite, PrototypeBase, QueryBase, Repository
from deepcrawl.storage.frontier import NewURL, SqlFrontier


def _page(url: str, body: str = "<html><title>t</title></html>") -> FetchedPage:
    return FetchedPage(
        url=url,
        final_url=url,
        status=200,
        content_type="text/html",
        body=body,
        links=[Link(url + "/a", "A", dom_path="html/body/a"), Link(url + "/b", "B", "probe")],
    )


def test_schema_created_and_versioned(db_url: str) -> None:
    with Repository.open(db_url) as repo:
        with repo.engine.connect() as conn:
            version = conn.execute(
                sa.text("SELECT value FROM deepcrawl_meta WHERE key = 'schema_version'")
            ).scalar_one()
        assert int(version) == SCHEMA_VERSION
    with Repository.open(db_url) as repo:  # reopening keeps the data and the version
        assert repo.sites() == []


def test_version_1_database_is_migrated(db_url: str) -> None:
    # what deepcrawl 1 left: the old ascending lease index, no host clocks, no worker table
    with Repository.open(db_url) as repo, repo.engine.begin() as conn:
        conn.execute(sa.text("DROP INDEX ix_frontier_lease"))
        conn.execute(
            sa.text("CREATE INDEX ix_frontier_ready ON frontier (site_id, state, priority, id)")
        )
        conn.execute(sa.text("DROP TABLE frontier_host"))
        conn.execute(sa.text("DROP TABLE crawl_worker"))
        conn.execute(sa.text("ALTER TABLE query DROP COLUMN field_values"))
        conn.execute(sa.text("UPDATE deepcrawl_meta SET value = '1' WHERE key = 'schema_version'"))
    with Repository.open(db_url) as repo:
        inspector = sa.inspect(repo.engine)
        indexes = {ix["name"] for ix in inspector.get_indexes("frontier")}
        assert "ix_frontier_lease" in indexes
        assert "ix_frontier_ready" not in indexes
        assert {"frontier_host", "crawl_worker"} <= set(inspector.get_table_names())
        with repo.engine.connect() as conn:
            version = conn.execute(
                sa.text("SELECT value FROM deepcrawl_meta WHERE key = 'schema_version'")
            ).scalar_one()
        assert int(version) == SCHEMA_VERSION == 12


def test_version_2_queries_gain_field_values(db_url: str) -> None:
    # what deepcrawl 2 left: queries without the field values they were sent with
    with Repository.open(db_url) as repo:
        site = repo.site("http://example.test/")
        repo.add_query(site.id, QueryBase(keyword="water"))
        with repo.engine.begin() as conn:
            conn.execute(sa.text("ALTER TABLE query DROP COLUMN field_values"))
            conn.execute(sa.text("UPDATE deepcrawl_meta SET value = '2'"))
    with Repository.open(db_url) as repo:
        site = repo.site("http://example.test/")
        [old] = repo.queries(site.id)
        assert old.keyword == "water"
        assert old.field_values == {}
        repo.add_query(site.id, QueryBase(keyword="fire", field_values={"cat": "history"}))
        assert [q.field_values for q in repo.queries(site.id)] == [{}, {"cat": "history"}]


def test_version_8_queries_gain_the_count_their_list_reported(db_url: str) -> None:
    with Repository.open(db_url) as repo:
        site = repo.site("http://example.test/")
        repo.add_query(site.id, QueryBase(keyword="water"))
        with repo.engine.begin() as conn:
            conn.execute(sa.text("ALTER TABLE query DROP COLUMN results_reported"))
            conn.execute(sa.text("UPDATE deepcrawl_meta SET value = '8'"))
    with Repository.open(db_url) as repo:
        site = repo.site("http://example.test/")
        repo.add_query(site.id, QueryBase(keyword="fire", results_reported=412))
        assert [q.results_reported for q in repo.queries(site.id)] == [None, 412]


def test_version_3_failures_gain_their_class_and_attempts(db_url: str) -> None:
    # what a version 3 database holds: failed pages without their error's class and attempts
    with Repository.open(db_url) as repo, repo.engine.begin() as conn:
        site = repo.site("http://example.test/")
        repo.save_failure(site.id, "http://example.test/gone", "HTTP status 404", status=404)
        conn.execute(sa.text("ALTER TABLE page DROP COLUMN error_class"))
        conn.execute(sa.text("ALTER TABLE page DROP COLUMN attempts"))
        conn.execute(sa.text("DROP TABLE query_end"))
        conn.execute(sa.text("UPDATE deepcrawl_meta SET value = '3' WHERE key = 'schema_version'"))
    with Repository.open(db_url) as repo:
        inspector = sa.inspect(repo.engine)
        assert {"error_class", "attempts"} <= {c["name"] for c in inspector.get_columns("page")}
        assert "query_end" in inspector.get_table_names()
        [old] = repo.failures(site.id)  # an old failure reads, its class and attempts unknown
        assert (old.error, old.error_class, old.attempts) == ("HTTP status 404", None, 0)
        new = repo.save_failure(
            site.id, "http://example.test/x", "boom", error_class="NetworkError"
        )
        assert (new.error_class, new.attempts) == ("NetworkError", 1)


def test_version_5_leases_gain_their_holder(db_url: str) -> None:
    # what a version 5 database holds: leases that do not say which process holds them
    with Repository.open(db_url) as repo, repo.engine.begin() as conn:
        site = repo.site("http://example.test/")
        conn.execute(sa.text("ALTER TABLE frontier DROP COLUMN holder"))
        conn.execute(sa.text("UPDATE deepcrawl_meta SET value = '5' WHERE key = 'schema_version'"))
    with Repository.open(db_url) as repo:
        columns = {c["name"] for c in sa.inspect(repo.engine).get_columns("frontier")}
        assert "holder" in columns
        frontier = SqlFrontier(repo.engine, site.id)
        frontier.add([NewURL("http://example.test/a")])
        assert [lease.url for lease in frontier.lease(1)] == ["http://example.test/a"]


def test_version_9_leases_of_processes_are_queued_again(db_url: str) -> None:
    # a version 9 database: a lease held by a process's crawl_worker row, no job's
    with Repository.open(db_url) as repo:
        site = repo.site("http://example.test/")
        frontier = SqlFrontier(repo.engine, site.id)
        frontier.add([NewURL("http://example.test/a")])
        frontier.lease(1)
        with repo.engine.begin() as conn:
            conn.execute(sa.text("UPDATE frontier SET holder = 3"))
            conn.execute(
                sa.text("UPDATE deepcrawl_meta SET value = '9' WHERE key = 'schema_version'")
            )
    with Repository.open(db_url) as repo:
        frontier = SqlFrontier(repo.engine, site.id)
        assert frontier.held() == {}
        assert [x.url for x in frontier.dispatchable(1)] == ["http://example.test/a"]


def test_newer_schema_is_refused(db_url: str) -> None:
    with Repository.open(db_url) as repo, repo.engine.begin() as conn:
        conn.execute(sa.text("UPDATE deepcrawl_meta SET value = '999'"))
    with pytest.raises(SchemaVersionError, match="newer"):
        Repository.open(db_url)


def test_site_is_created_once(db_url: str) -> None:
    with Repository.open(db_url) as repo:
        first = repo.site("http://example.test/start")
        again = repo.site("http://example.test/start")
        assert first.id == again.id
        assert first.host == "example.test"
        assert repo.find_site("example.test").id == first.id
        assert repo.find_site(str(first.id)).id == first.id
        with pytest.raises(ConfigError, match="no site 'nope'"):
            repo.find_site("nope")


def test_forms_round_trip_and_update(db_url: str) -> None:
    form = Form(
        page_url="http://example.test/",
        action="http://example.test/search",
        locator="form:nth-of-type(1)",
        fields=(FormField(tag="input", type="text", name="q", label="Search"),),
    )
    with Repository.open(db_url) as repo:
        site = repo.site("http://example.test/")
        stored = repo.save_form(site.id, form)
        assert Form.model_validate(stored.model) == form
        judged = repo.save_form(site.id, form, searchable=True, form_type="search", score=0.9)
        assert judged.id == stored.id
        [only] = repo.forms(site.id)
        assert only.searchable is True
        assert only.query_field is None


def test_queries_are_recorded_in_order(db_url: str) -> None:
    with Repository.open(db_url) as repo:
        site = repo.site("http://example.test/")
        form = repo.save_form(site.id, Form(page_url="http://example.test/", action="x"))
        for word in ("alpha", "beta"):
            repo.add_query(
                site.id,
                QueryBase(keyword=word, result_count=3, new_records=2, result_pages=1),
                form_id=form.id,
            )
        assert [q.keyword for q in repo.queries(site.id)] == ["alpha", "beta"]
        assert repo.queries(site.id)[0].form_id == form.id


def test_pages_links_and_bodies(db_url: str, tmp_path: Path) -> None:
    settings = StorageSettings(bodies_inline_max=100, bodies_dir=tmp_path / "bodies")
    big = "<html>" + "x" * 500 + "</html>"
    with Repository.open(db_url, settings) as repo:
        site = repo.site("http://example.test/")
        small = repo.save_page(site.id, _page("http://example.test/1"), kind="record")
        large = repo.save_page(site.id, _page("http://example.test/2", big))
        failed = repo.save_failure(site.id, "http://example.test/3", "timeout after 10 s")
        assert repo.body(small.id) == b"<html><title>t</title></html>"
        if repo.engine.dialect.name == "postgresql":  # shared by machines: every body inline
            assert large.body_path is None
            assert not (tmp_path / "bodies").exists()
        else:
            assert large.body_path is not None
            assert Path(large.body_path).parent.parent == tmp_path / "bodies"
        assert repo.body(large.id) == big.encode()
        assert repo.body(failed.id) is None
        assert [link.origin for link in repo.links(small.id)] == ["html", "probe"]
        assert repo.links(small.id)[0].dom_path == "html/body/a"
        assert [p.url for p in repo.pages(site.id)] == [
            "http://example.test/1",
            "http://example.test/2",
            "http://example.test/3",
        ]
        assert [p.url for p in repo.pages(site.id, kind="record")] == ["http://example.test/1"]
        stored = repo.page(site.id, "http://example.test/3")
        assert stored is not None
        assert stored.error == "timeout after 10 s"
        with pytest.raises(StorageError, match="save page http://example.test/1"):
            repo.save_page(site.id, _page("http://example.test/1"))


def test_a_batch_of_pages_is_stored_whole_or_not_at_all(db_url: str, tmp_path: Path) -> None:
    settings = StorageSettings(bodies_inline_max=100, bodies_dir=tmp_path / "bodies")
    big = "<html>" + "z" * 500 + "</html>"
    exchange = Exchange(
        method="GET",
        url="http://example.test/2",
        request_headers=(("Host", "example.test"),),
        protocol="HTTP/1.1",
        status=200,
        reason="OK",
        headers=(("Content-Type", "text/html"),),
        body=big.encode(),
    )
    with Repository.open(db_url, settings) as repo:
        site = repo.site("http://example.test/")
        rows = repo.save_pages(
            site.id,
            [
                PageWrite(_page("http://example.test/1"), kind="record", fingerprint="f1"),
                PageWrite(
                    dataclasses.replace(_page("http://example.test/2", big), exchange=exchange),
                    url="http://example.test/two",
                    kind="duplicate",
                    canonical_url="http://example.test/1",
                    with_links=False,
                ),
            ],
        )
        assert [(r.url, r.kind) for r in rows] == [
            ("http://example.test/1", "record"),
            ("http://example.test/two", "duplicate"),
        ]
        assert rows[0].fingerprint == "f1"
        assert rows[1].canonical_url == "http://example.test/1"
        assert repo.body(rows[1].id) == big.encode()
        assert len(repo.links(rows[0].id)) == 2
        assert repo.links(rows[1].id) == []  # not asked for
        stored = repo.exchange(rows[1].id)
        assert stored is not None
        assert stored.body == big.encode()
        # one page of the batch stored before: none of the batch is stored
        with pytest.raises(StorageError, match="save 2 pages"):
            repo.save_pages(
                site.id,
                [
                    PageWrite(_page("http://example.test/3")),
                    PageWrite(_page("http://example.test/1")),
                ],
            )
        assert repo.page(site.id, "http://example.test/3") is None
        assert repo.save_pages(site.id, []) == []


def test_contents_read_pages_with_their_bodies_and_links_in_batches(
    db_url: str, tmp_path: Path
) -> None:
    settings = StorageSettings(bodies_inline_max=100, bodies_dir=tmp_path / "bodies")
    big = "<html>" + "y" * 500 + "</html>"
    with Repository.open(db_url, settings) as repo:
        site = repo.site("http://example.test/")
        other = repo.site("http://other.test/")
        repo.save_page(other.id, _page("http://other.test/1"), kind="record")
        urls = [f"http://example.test/{i}" for i in range(1, 1203)]  # three batches of 500
        for i, url in enumerate(urls):
            repo.save_page(site.id, _page(url, big if i == 700 else f"<p>{i}</p>"), kind="record")
        repo.save_page(site.id, _page("http://example.test/list"), kind="results")
        repo.save_failure(site.id, "http://example.test/gone", "HTTP status 404", kind="record")
        contents = list(repo.contents(site.id, kind="record"))
        assert [c.page.url for c in contents] == [*urls, "http://example.test/gone"]
        assert contents[5].body == b"<p>5</p>"
        assert contents[700].body == big.encode()  # kept as a file on SQLite
        assert contents[-1].body is None
        assert contents[-1].links == []
        for content in (contents[0], contents[699], contents[1201]):
            assert [link.target_url for link in content.links] == [
                content.page.url + "/a",
                content.page.url + "/b",
            ]
            assert content.links == repo.links(content.page.id)


def test_prototypes_replace_and_labels_survive(db_url: str) -> None:
    with Repository.open(db_url) as repo:
        site = repo.site("http://example.test/")
        repo.save_prototypes(site.id, [PrototypeBase(key="a", regex="x", count=2)])
        repo.set_label(site.id, "a", name="record", relevant=True)
        repo.save_prototypes(
            site.id,
            [
                PrototypeBase(key="a", regex="x", count=5, examples=["http://example.test/1"]),
                PrototypeBase(key="b", regex="y", count=9),
            ],
        )
        assert [p.key for p in repo.prototypes(site.id)] == ["b", "a"]
        assert repo.prototypes(site.id)[1].examples == ["http://example.test/1"]
        label = repo.set_label(site.id, "a", name="book", relevant=False)
        assert [(lb.prototype_key, lb.name, lb.relevant) for lb in repo.labels(site.id)] == [
            ("a", "book", False)
        ]
        assert label.site_id == site.id


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("not a url", "invalid database URL"),
        ("nosuchdb://host/db", "unknown dialect"),
        ("postgresql://nobody@127.0.0.1:1/db", "cannot open database"),
    ],
)
def test_bad_database_urls_get_clear_errors(url: str, message: str) -> None:
    with pytest.raises(StorageError, match=message):
        Repository.open(url)


def test_password_is_masked_in_errors() -> None:
    with pytest.raises(StorageError) as info:
        Repository.open("postgresql://user:secret@127.0.0.1:1/db")
    assert "secret" not in str(info.value)


def test_exchanges_keep_the_wire_bytes_and_old_databases_get_their_table(
    db_url: str, tmp_path: Path
) -> None:
    settings = StorageSettings(bodies_inline_max=100, bodies_dir=tmp_path / "bodies")
    headers = (("Content-Type", "text/html; charset=windows-1252"), ("X-Odd", "a"), ("x-odd", "b"))
    request = (("Host", "example.test"), ("User-Agent", "deepcrawl"))

    def fetched(url: str, wire: bytes, text: str) -> FetchedPage:
        page = _page(url, text)
        page.exchange = Exchange("GET", url, request, "HTTP/1.1", 200, "OK", headers, wire)
        return page

    # a database made before the exchanges were kept
    with Repository.open(db_url, settings) as repo, repo.engine.begin() as conn:
        conn.execute(sa.text("DROP TABLE page_exchange"))
    with Repository.open(db_url, settings) as repo:
        site = repo.site("http://example.test/")
        same = repo.save_page(
            site.id, fetched("http://example.test/1", b"<p>abc</p>", "<p>abc</p>")
        )
        latin = "<p>café</p>"
        moved = fetched("http://example.test/2", latin.encode("cp1252"), latin)
        assert moved.exchange is not None
        hop = Exchange("GET", "http://example.test/old", request, "HTTP/1.1", 301,
                       "Moved Permanently", (("Location", "/2"),), b"\x00moved\xff")  # fmt: skip
        moved.exchange = dataclasses.replace(moved.exchange, redirects=(hop,))
        other = repo.save_page(site.id, moved)
        big = ("<p>" + "é" * 300 + "</p>").encode("latin-1")
        large = repo.save_page(
            site.id, fetched("http://example.test/3", big, big.decode("latin-1"))
        )
        old = repo.save_page(site.id, _page("http://example.test/4"))

        def wire(page_id: int, *, with_body: bool = True) -> Exchange:
            exchange = repo.exchange(page_id, with_body=with_body)
            assert exchange is not None
            return exchange

        first = wire(same.id)
        assert (first.status, first.reason, first.protocol) == (200, "OK", "HTTP/1.1")
        assert first.headers == headers  # order, spelling and repeats as received
        assert first.request_headers == request
        assert first.body == b"<p>abc</p>"
        assert wire(other.id).body == latin.encode("cp1252")
        assert wire(other.id).redirects == (hop,)  # the redirect, its bytes included
        assert wire(large.id).body == big
        assert wire(large.id, with_body=False).body == b""
        assert repo.exchange(old.id) is None
        with repo.engine.connect() as conn:
            stored = dict(
                conn.execute(sa.text("SELECT page_id, body_is_page FROM page_exchange")).all()
            )
        assert stored[same.id]  # the same bytes are stored once
        assert not stored[other.id]
