"""No crawl runs unbounded (issue 25, item 2): the trap fixture site, crawled with ``--like``.

The trap links every record under a fresh session id on every response — a ``;jsessionid=``
path parameter, ``PHPSESSID=`` and ``sid=`` query parameters, and ``visit=``, a name the crawl
has to learn — beside an endless calendar, a cross-origin redirect, an empty 200 and a page in
the wrong charset. Its search lists all 30 records. Before issue 25 a crawl of it never ended:
the same records delivered again under every new session id.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

from tests.integration.run_cli import run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser

RECORDS = 30
#: Requests (counted by the fixture server) the whole crawl may take.
MOST_REQUESTS = 200


def _crawl(server: FixtureServer, tmp_path: Path, **env: str) -> tuple[str, dict[str, object]]:
    """Crawl the trap with ``--like`` its first record; stderr and ``stats.json``."""
    server.reset_stats()
    out = tmp_path / "out"
    done = run_deepcrawl(
        tmp_path, "crawl", server.url + "/", "--like", server.truth().detail_paths[0],
        "--db", f"sqlite:///{tmp_path / 'crawl.db'}", "--out", str(out), env=env,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stderr, json.loads((out / "stats.json").read_text())


def _records(server: FixtureServer, out: Path) -> Counter[str | None]:
    """How many times each record was delivered (any spelling of its URL counts as it)."""
    truth = server.truth()
    delivered: Counter[str | None] = Counter()
    for line in (out / "pages.jsonl").read_text().splitlines():
        parts = urlsplit(json.loads(line)["url"])
        delivered[truth.record_of(parts.path + ("?" + parts.query if parts.query else ""))] += 1
    return delivered


def test_the_trap_crawl_stops_by_itself_and_delivers_each_record_once(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("trap", records=RECORDS, seed=0)
    _crawl(server, tmp_path)
    stats = server.stats()
    print(f"{stats['requests']} requests: {stats['by_kind']}")
    assert stats["requests"] < MOST_REQUESTS
    assert stats["by_kind"].get("offsite", 0) == 0, "the crawl followed the redirect elsewhere"
    delivered = _records(server, tmp_path / "out")
    assert delivered == Counter(dict.fromkeys(server.truth().detail_paths, 1))
    # no session parameter, listed or learnt, is part of a delivered record's URL
    lines = (tmp_path / "out" / "pages.jsonl").read_text().splitlines()
    urls = [json.loads(line)["url"] for line in lines]
    names = ("jsessionid", "phpsessid", "sid=", "visit=")
    assert not [url for url in urls if any(name in url.lower() for name in names)]


def test_a_crawl_blind_to_session_ids_stops_as_a_runaway(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    """With the session parameter no list holds not learnt, every result page brings some
    records under new URLs: the repeated content stops the querying and the link following,
    and the stop reason (``stats.json`` and the final line) says why."""
    server = fixture_server("trap", records=RECORDS, seed=0)
    blind = {
        "DEEPCRAWL_CRAWL__LEARN_SESSION_PARAMS": "false",
        "DEEPCRAWL_CRAWL__DROP_PARAMS": "[]",
    }
    stderr, figures = _crawl(server, tmp_path, **blind)
    reason = str(figures["stop_reason"])
    assert reason.startswith("the crawl ran away:"), reason
    assert "repeat the content of a page fetched before" in reason
    assert reason in stderr.strip().splitlines()[-2]  # the summary line, before the outputs'
    stats = server.stats()
    print(f"{stats['requests']} requests, {figures['pages_delivered']} pages delivered")
    assert stats["requests"] < MOST_REQUESTS
    assert len(_records(server, tmp_path / "out")) >= 0.8 * RECORDS
