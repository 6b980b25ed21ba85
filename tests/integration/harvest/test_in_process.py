"""A harvest with no job-queue server: SQLite, every job in one process (the in-process runner).

Two fixture sites and one that cannot be reached, harvested by the library call the CLI makes,
with real Chromium: each reachable site's records go to ``OUT/<site>/pages.jsonl``, each once;
the unreachable site is recorded ``failed`` with its reason and holds up no other;
``harvest.json`` says all of it, each site's requests no more than its server answered.
``--resume`` on the finished harvest delivers nothing twice, and a new harvest refuses the
folder.
"""

from __future__ import annotations

import json
import socket
from collections import Counter
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

from deepcrawl.errors import ConfigError
from deepcrawl.harvest import HARVEST_FILE, read_sites, run_harvest
from deepcrawl.settings import load_settings

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


def _paths(pages: Path) -> list[str]:
    return [_path(json.loads(line)["url"]) for line in pages.read_text().splitlines()]


async def test_a_harvest_in_one_process_delivers_each_record_once_and_records_a_failure(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    books = fixture_server("books", records=25, seed=41)
    shop = fixture_server("shop", records=20, seed=42)
    dead = f"http://127.0.0.1:{_free_port()}/"
    sites_file = tmp_path / "sites.txt"
    sites_file.write_text(
        f"# two sites and one that is not there\n{books.url}/ --name books\n"
        f"{shop.url}/ --like {shop.truth().detail_paths[0]}\n{dead}\n"
    )
    settings = load_settings(
        storage={"url": f"sqlite:///{tmp_path / 'harvest.db'}", "bodies_dir": tmp_path / "b"},
        politeness={"requests_per_second": 0},
        browser={"render": "never"},
    )
    out = tmp_path / "out"
    seen: list[set[str]] = []
    status = await run_harvest(
        read_sites(sites_file), settings, out=out, progress=lambda s: seen.append(
            {site.state for site in s.sites})
    )  # fmt: skip

    # in the sites file's order; a site's folder is its --name, or its host and port
    names = [site.name for site in status.sites]
    _books, shop_name, dead_name = names
    assert shop_name == f"127.0.0.1-{urlsplit(shop.url).port}"
    assert [site.state for site in status.sites] == ["done", "done", "failed"]
    failed = next(site for site in status.sites if site.state == "failed")
    assert failed.reason is not None
    assert "cannot reach" in failed.reason
    assert any("running" in states_then for states_then in seen)
    on_disk = json.loads((out / HARVEST_FILE).read_text())
    assert on_disk["ended"]
    assert [s["state"] for s in on_disk["sites"]] == ["done", "done", "failed"]
    for name, server in (("books", books), (shop_name, shop)):
        delivered = _paths(out / name / "pages.jsonl")
        twice = {p: n for p, n in Counter(delivered).items() if n > 1}
        assert not twice, twice
        truth = server.truth()
        found = {truth.record_of(p) for p in delivered} & set(truth.detail_paths)
        assert len(found) >= 0.9 * len(truth.detail_paths), (name, len(found))
        row = next(s for s in status.sites if s.name == name)
        assert row.records == len(delivered)
        assert row.requests > len(delivered)
        # each request counted once, however many of the site's fetch jobs ran at once
        assert row.requests <= server.stats(log=False)["requests"], name

    # resumed once over: nothing is delivered again, the failed site is tried again
    before = {name: _paths(out / name / "pages.jsonl") for name in ("books", shop_name)}
    again = await run_harvest(read_sites(sites_file), settings, out=out, resume=True)
    assert {s.name: s.state for s in again.sites}[dead_name] == "failed"
    for name, paths in before.items():
        assert _paths(out / name / "pages.jsonl") == paths
    with pytest.raises(ConfigError, match="--resume"):
        await run_harvest(read_sites(sites_file), settings, out=out)
