"""``--form`` and ``--field`` on the archive fixture: two search forms on one page, the
catalogue's with a required postcode and a collection select (real Chromium, real SQLite)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from deepcrawl_fixtures import build_site

from tests.integration.run_cli import run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser

RECORDS = 60
POSTCODE = "AB1 2CD"


@pytest.fixture
def archive(fixture_server: Callable[..., FixtureServer]) -> FixtureServer:
    server = fixture_server("archive", records=RECORDS)
    server.reset_stats()
    return server


def _collection(name: str) -> list[str]:
    """Detail paths of one collection's records (the catalogue search returns every record)."""
    site = build_site("archive", records=RECORDS)
    return [site.detail_path(r) for r in site.corpus.records if r.category == name]


def test_forms_numbers_the_forms_names_the_critics_choice_and_checks_the_fields(
    archive: FixtureServer, tmp_path: Path
) -> None:
    shown = run_deepcrawl(
        tmp_path, "forms", archive.url + "/", "--form", "#catalogue", "--field", "cat=History"
    )
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert "1. ACCEPT" in out
    assert "2. ACCEPT" in out
    assert "critic's choice: 1 (score" in out  # the site search scores best
    assert "postcode (text, required)" in out
    assert "--form #catalogue: form 2" in out
    assert "--field values fit: cat=history" in out  # the option named by its text
    assert "required, no value: postcode" in out

    wrong = run_deepcrawl(
        tmp_path, "forms", archive.url + "/", "--no-browser", "--form", "2", "--field", "cat=x"
    )
    assert wrong.returncode == 1
    assert "--field cat=x: the select 'cat' has no option 'x'" in wrong.stderr
    assert "'history' History" in wrong.stderr  # the options that exist are listed


def test_crawl_queries_the_picked_form_with_the_fixed_values_and_resumes_with_them(
    archive: FixtureServer, tmp_path: Path
) -> None:
    history = _collection("history")
    db = tmp_path / "crawl.db"
    url = archive.url + "/"
    crawled = run_deepcrawl(
        tmp_path, "crawl", url, "--db", f"sqlite:///{db}", "--out", str(tmp_path / "out"),
        "--form", "#catalogue", "--field", f"postcode={POSTCODE}", "--field", "cat=History",
        "--like", history[0],
    )  # fmt: skip
    assert crawled.returncode == 0, crawled.stderr
    lines = (tmp_path / "out" / "pages.jsonl").read_text().splitlines()
    delivered = {json.loads(line)["url"] for line in lines}
    assert delivered == {archive.url + path for path in history}  # that collection, all of it
    stats = archive.stats(log=False)
    assert stats["by_kind"].get("site_results", 0) == 0  # the critic's choice was never used
    assert 400 not in stats["by_status"]  # no query went without its postcode

    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT field_values, outcome, submitted_url FROM query").fetchall()
    wanted = {"postcode": POSTCODE, "cat": "history"}
    assert rows
    assert all(json.loads(values) == wanted for values, _o, _u in rows)
    # browser and URL template alike sent them
    sent = [u for _v, outcome, u in rows if outcome != "error"]
    assert sent
    assert all("postcode=AB1+2CD" in u and "cat=history" in u for u in sent)

    resumed = run_deepcrawl(tmp_path, "crawl", url, "--db", f"sqlite:///{db}", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    with sqlite3.connect(db) as conn:
        values = {v for (v,) in conn.execute("SELECT DISTINCT field_values FROM query")}
    assert [json.loads(v) for v in values] == [wanted]  # the stored values, not the defaults

    other = run_deepcrawl(tmp_path, "crawl", url, "--db", f"sqlite:///{db}", "--field", "cat=art")
    assert other.returncode == 1
    assert "stored crawl sent its queries with --field postcode=AB1 2CD --field cat=history" in (
        other.stderr
    )


def test_without_the_required_field_no_query_is_sent(
    archive: FixtureServer, tmp_path: Path
) -> None:
    run = run_deepcrawl(
        tmp_path, "crawl", archive.url + "/", "--db", f"sqlite:///{tmp_path / 'c.db'}",
        "--form", "2", "--like", _collection("history")[0],
    )  # fmt: skip
    assert run.returncode == 1
    assert "required field(s) the keywords do not go into: postcode (text, required)" in (
        run.stderr
    )
    assert "--field postcode=VALUE" in run.stderr
    assert archive.stats(log=False)["by_kind"].get("results", 0) == 0


def test_values_the_server_refuses_fail_every_query_with_its_message(
    archive: FixtureServer, tmp_path: Path
) -> None:
    run = run_deepcrawl(
        tmp_path, "crawl", archive.url + "/", "--db", f"sqlite:///{tmp_path / 'c.db'}",
        "--form", "2", "--field", "postcode=nowhere", "--like", _collection("art")[0],
    )  # fmt: skip
    assert run.returncode == 0, run.stderr  # the crawl stops for labels, saying why
    assert (
        "setup queries failed (HTTP status 400: Error: “nowhere” is not a valid postcode.); "
        "they were sent with --field postcode=nowhere"
    ) in run.stderr
    assert archive.stats(log=False)["by_status"].get(400, 0) >= 5
