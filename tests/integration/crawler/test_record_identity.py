"""One URL per record (issue 26, item 4): the echo fixture site, whose result links carry the
submitted words (``/book/17?hl=word``) and whose record pages name their canonical URL.

Crawled with ``--like`` as a new user would, each record is fetched and delivered once: the
parameter that echoes the query is learnt from the result lists before any record is fetched.
With that learning held back (in process: ``ECHO_LEARN_LINKS`` out of reach), the record pages'
canonical links say which URLs show a record stored before, and teach the crawl to drop the
parameter from the links it judges later.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

from deepcrawl.crawler import CallbackSink, Crawl
from deepcrawl.records import session_params
from deepcrawl.settings import load_settings
from tests.integration.run_cli import run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser

RECORDS = 60


def _crawl(
    server: FixtureServer, tmp_path: Path, like: str = "", **env: str
) -> tuple[str, dict[str, object]]:
    """Crawl the echo site with ``--like`` its first record (or ``like``); stderr and
    ``stats.json``."""
    server.reset_stats()
    done = run_deepcrawl(
        tmp_path, "crawl", server.url + "/", "--like", like or server.truth().detail_paths[0],
        "--db", f"sqlite:///{tmp_path / 'crawl.db'}", "--out", str(tmp_path / "out"), env=env,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stderr, json.loads((tmp_path / "out" / "stats.json").read_text())


def _lines(tmp_path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (tmp_path / "out" / "pages.jsonl").open()]


def _delivered(server: FixtureServer, lines: list[dict[str, object]]) -> Counter[str | None]:
    """How many times each record was delivered (any spelling of its URL counts as it)."""
    truth = server.truth()
    found: Counter[str | None] = Counter()
    for line in lines:
        parts = urlsplit(str(line["url"]))
        found[truth.record_of(parts.path + ("?" + parts.query if parts.query else ""))] += 1
    return found


def _learnt(tmp_path: Path) -> set[tuple[str, int]]:
    with sqlite3.connect(f"file:{tmp_path / 'crawl.db'}?mode=ro", uri=True) as db:
        return set(db.execute("SELECT name, anyway FROM session_param"))


def test_the_query_echo_is_learnt_and_each_record_delivered_once(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("echo", records=RECORDS, seed=0)
    stderr, figures = _crawl(server, tmp_path)
    lines = _lines(tmp_path)
    truth = server.truth()
    delivered = _delivered(server, lines)
    assert delivered == Counter(dict.fromkeys(truth.detail_paths, 1))
    assert ("hl", 1) in _learnt(tmp_path)
    assert not [line for line in lines if "hl=" in str(line["url"])]
    assert all(line["canonical_url"] == line["url"] for line in lines)
    stats = server.stats()
    print(f"{stats['requests']} requests: {stats['by_kind']}")
    assert stats["by_kind"].get("detail", 0) <= RECORDS * 1.1  # each record fetched once
    # the figures speak of the records held, each once, and the final line says what the
    # crawl believes of them
    assert figures["records_reached"] == RECORDS
    assert RECORDS <= float(str(figures["records_estimated"])) < 1.25 * RECORDS
    last = stderr.strip().splitlines()[-2]
    assert "it believes it holds every record" in last or f"{RECORDS} held" in last, last
    # the progress line says nothing of records before the crawl knows which links are records
    # (the setup's lists count every link), and ends on the size the final line reports
    shown = dict(re.findall(r"^([a-z ]+): records (\d+/\S+)", stderr, flags=re.MULTILINE))
    before = ("setup queries", "labelling", "layout check")
    assert {shown.get(phase, "0/?") for phase in before} == {"0/?"}, shown
    assert shown["done"] == f"{RECORDS}/~{float(str(figures['records_estimated'])):.0f}", shown


async def test_canonical_links_tell_a_record_stored_before_and_teach_the_parameter(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = fixture_server("echo", records=RECORDS, seed=0)
    # the example as a result list links it: the crawl wants the links with the query's words
    like = f"{server.truth().detail_paths[0]}?hl=anything"
    # the echo's learning held back (no result list is evidence enough): the canonical links
    # alone are left to teach the parameter
    monkeypatch.setattr(session_params, "ECHO_LEARN_LINKS", 10**6)
    settings = load_settings(
        storage={"url": f"sqlite:///{tmp_path / 'crawl.db'}", "bodies_dir": tmp_path / "bodies"},
        politeness={"requests_per_second": 0.0, "concurrency_per_host": 4},
    )
    lines: list[dict[str, object]] = []
    async with Crawl(server.url + "/", settings=settings, like=[like]) as crawl:
        report = await crawl.run(CallbackSink(lines.append))
    assert report.status == "done"
    delivered = _delivered(server, lines)
    assert delivered == Counter(dict.fromkeys(server.truth().detail_paths, 1))
    assert ("hl", 1) in _learnt(tmp_path)  # learnt from the canonical links
    # each delivered page names its record's one URL, without the query's words
    base = server.url
    assert {str(line["canonical_url"]).removeprefix(base) for line in lines} == set(
        server.truth().detail_paths
    )
    assert report.stats.duplicates <= RECORDS
    assert report.stats.records_reached == RECORDS
