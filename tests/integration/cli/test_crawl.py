"""``deepcrawl crawl`` and ``deepcrawl export`` as a user runs them, and the documented example."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from warcio.archiveiterator import ArchiveIterator

from deepcrawl.crawler.coordination import crawl_status
from deepcrawl.settings import load_settings
from deepcrawl.storage import Repository
from tests.integration.run_cli import ROOT, run_deepcrawl, run_python

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser


def test_crawl_not_picking_stops_after_setup_then_label_and_resume(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=40, seed=19)
    truth = server.truth()
    db = f"sqlite:///{tmp_path / 'crawl.db'}"
    url = server.url + "/"

    first = run_deepcrawl(tmp_path, "crawl", url, "--db", db, "--no-auto")
    assert first.returncode == 0, first.stderr
    assert first.stdout == ""  # progress and advice go to stderr only
    assert "deepcrawl label" in first.stderr
    assert "--resume" in first.stderr
    site = re.search(r"deepcrawl label (\d+)", first.stderr)
    assert site is not None
    assert _state(tmp_path, db, site[1]) == "needs labels"  # not "done": it waits for labels

    labelled = run_deepcrawl(
        tmp_path, "label", site[1], "--db", db, "--like", server.url + truth.detail_paths[0]
    )
    assert labelled.returncode == 0, labelled.stderr
    assert _state(tmp_path, db, site[1]) == "labelled"

    warc = tmp_path / "pages.warc.gz"
    done = run_deepcrawl(
        tmp_path, "crawl", url, "--db", db, "--resume", "--out", "-", "--warc", str(warc)
    )
    assert done.returncode == 0, done.stderr
    assert _state(tmp_path, db, site[1]) == "done"
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert records
    for field in ("url", "final_url", "status", "fetched_at", "label", "prototype",
                  "content_type", "title", "body"):  # fmt: skip
        assert field in records[0]
    assert {truth.page_kind(r["url"]) for r in records} == {"detail"}
    with warc.open("rb") as fh:
        archived = [
            r.rec_headers.get_header("WARC-Target-URI")
            for r in ArchiveIterator(fh)
            if r.rec_type == "response"
        ]
    assert sorted(archived) == sorted(r["final_url"] or r["url"] for r in records)

    exported = run_deepcrawl(tmp_path, "export", site[1], "--format", "csv", "--db", db)
    assert exported.returncode == 0, exported.stderr
    rows = list(csv.DictReader(io.StringIO(exported.stdout)))
    assert sorted(r["url"] for r in rows) == sorted(r["url"] for r in records)


def _state(tmp_path: Path, db: str, site: str) -> str:
    """The site's crawl state as ``deepcrawl status`` tells it (read here, in this process:
    the command itself is run by ``test_query_count.py``)."""
    settings = load_settings(storage={"url": db, "bodies_dir": tmp_path / "bodies"})
    with Repository.open(settings.storage.url, settings.storage, create=False) as repo:
        found = crawl_status(repo, repo.find_site(site), heartbeat_s=settings.crawl.heartbeat_s)
    return found.state


def test_crawl_logs_its_decisions_and_prints_plain_progress_off_a_terminal(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=40, seed=19)
    example = server.truth().detail_paths[0]
    out, log = tmp_path / "out", tmp_path / "crawl.log"
    db = f"sqlite:///{tmp_path / 'crawl.db'}"
    result = run_deepcrawl(
        tmp_path, "-v", "--log-file", str(log), "--set", "crawl.progress_every_s=3600",
        "crawl", server.url + "/", "--like", example, "--db", db, "--out", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # the decisions, at DEBUG in the file whatever the console's level
    logged = log.read_text()
    for decision in (
        "robots.txt read",
        "search form chosen: GET " + server.url + "/search",
        "query 'the'",  # the stop-word probe, and its outcome
        "prototypes learnt from",
        f"labelled relevant: --like {server.url}{example}",
        "site 1: crawling",
        "querying stops: ",
        "site 1: done; ",
    ):
        assert decision in logged, decision
    assert " DEBUG " in logged
    assert "search form chosen" in result.stderr  # -v: INFO on the console too
    # off a terminal: one plain line per phase, in order, no escape codes
    assert "\x1b" not in result.stderr
    phases = [m[1] for m in re.finditer(r"^([a-z. ]+): records \d+/", result.stderr, re.M)]
    assert phases[:4] == ["robots.txt", "finding form", "examples", "setup queries"]
    assert "crawling" in phases
    assert phases[-1] == "done"
    assert f"output: {out / 'pages.jsonl'}, {out / 'stats.json'}; everything stored in" in (
        result.stderr
    )
    stats = json.loads((out / "stats.json").read_text())
    assert stats["waiting_s"] == 0.0
    assert stats["pages_delivered"] == len((out / "pages.jsonl").read_text().splitlines())


def test_resume_without_a_stored_crawl_is_one_clear_error(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'empty.db'}"
    result = run_deepcrawl(tmp_path, "crawl", "http://127.0.0.1:9/", "--db", db, "--resume")
    assert result.returncode == 1
    assert "nothing to resume" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_documented_python_example_runs(tmp_path: Path) -> None:
    example = ROOT / "examples" / "python_api.py"  # the guide "Feed an extractor" includes it
    assert "examples/python_api.py" in (ROOT / "docs" / "guides" / "extractors.md").read_text()
    result = run_python(tmp_path, str(example))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "20 pages" in result.stdout
    assert "new page:" in result.stdout
    delivered = re.search(r"done (\d+) pages delivered in all", result.stdout)
    assert delivered is not None, result.stdout
    # of 40 records: a tiny site saturates the form before its last few records (see #7)
    assert int(delivered[1]) >= 32
