"""The hostile fixture site: no command ever requests a logout, delete, close, session or cart URL.

Every page of the site links to such endpoints (by path, by query, by link text alone), holds
harmless-looking elements whose handlers ``fetch`` account endpoints with a GET, and a popup
opener to a logout URL (:mod:`deepcrawl_fixtures.sites.hostile`). The server's own request log
is the witness: after each command, not one request of kind ``hostile``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.integration.run_cli import run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser


def _deepcrawl(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"DEEPCRAWL_LINKS__NAVIGATE_MAX_REQUESTS": "60"}  # enough to browse every category
    return run_deepcrawl(tmp_path, *args, env=env, timeout=300)


def _hostile_requests(server: FixtureServer) -> list[str]:
    stats = server.stats()
    return [f"{e['method']} {e['path']}" for e in stats["log"] if e["kind"] == "hostile"]


@pytest.fixture
def hostile(fixture_server: Callable[..., FixtureServer]) -> FixtureServer:
    server = fixture_server("hostile", records=40, seed=3)
    server.reset_stats()
    return server


def test_render_probe_clicks_nothing_hostile(hostile: FixtureServer, tmp_path: Path) -> None:
    done = _deepcrawl(tmp_path, "render", hostile.url + "/", "--probe", "--json")
    assert done.returncode == 0, done.stderr
    page = json.loads(done.stdout)
    links = {link["url"] for link in page["links"]}
    assert hostile.url + "/bestsellers" in links  # probing ran: the click-handler link is found
    assert not any(path in url for url in links for path in ("/sign-out", "/api/"))
    assert _hostile_requests(hostile) == []
    assert hostile.stats()["by_kind"].get("browse", 0) == 0  # found, not followed


def test_discover_from_a_hub_follows_no_hostile_link(
    hostile: FixtureServer, tmp_path: Path
) -> None:
    done = _deepcrawl(tmp_path, "discover", hostile.url + "/hub", "--json", "--max-requests", "40")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert any(form["page"] == hostile.url + "/" for form in found["forms"])
    assert _hostile_requests(hostile) == []


@pytest.mark.parametrize("navigate", [False, True], ids=["crawl", "crawl-navigate"])
def test_crawl_requests_nothing_hostile(
    hostile: FixtureServer, tmp_path: Path, navigate: bool
) -> None:
    db = f"sqlite:///{tmp_path / 'crawl.db'}"
    args = ["crawl", hostile.url + "/", "--like", "/book/1", "--db", db, "--out", "out"]
    done = _deepcrawl(tmp_path, *args, "--max-queries", "8", *(["--navigate"] if navigate else []))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "pages.jsonl").read_text().count("\n") >= 5
    if navigate:
        assert hostile.stats()["by_kind"].get("category", 0) > 0  # the strategy browsed
    assert _hostile_requests(hostile) == []
