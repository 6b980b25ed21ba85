"""What a site sees at the start of ``deepcrawl crawl``: robots.txt first, the start page once.

The input check reads robots.txt and the start page before the crawl starts; the crawl takes
both answers rather than ask again (its robots.txt rules, the form finder's render), and the
form filler submits from the page the form finder left. Counted on the fixture server's log,
over the setup phase (no labels and ``--no-auto``: the crawl stops once its setup queries are
stored), for a GET
search form (books) and a POST one (shop).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.integration.run_cli import run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("name", ["books", "shop"])
def test_robots_txt_comes_first_and_the_start_page_is_fetched_once(
    name: str, fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server(name, records=40, seed=5)
    server.reset_stats()
    done = run_deepcrawl(tmp_path, "crawl", server.url + "/", "--db", "sqlite:///c.db", "--no-auto")
    assert done.returncode == 0, done.stderr
    assert "Setup done" in done.stderr
    log = [(entry["method"], entry["path"]) for entry in server.stats()["log"]]
    assert log[:2] == [("GET", "/robots.txt"), ("GET", "/")]
    assert log.count(("GET", "/robots.txt")) == 1
    assert log.count(("GET", "/")) == 1  # the check's look served the form finder and filler
    assert len(log) > 2  # the setup queries went out
