"""``deepcrawl prototypes --from-file URLS --like U`` checks the example's prototype by the pages'
layout, as the crawl does, against the served "stacks" site over real HTTP (and Chromium, where
the crawl's adaptive fetcher samples a kind both ways).

The stacks site has eight sections (``/news/<n>``, ``/blog/<n>`` …) of one page template beside
its book pages (``/book/<id>``): from URLs alone, ten same-shape kinds; by their pages, the
sections are one kind and the books another.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from typer.testing import CliRunner

from deepcrawl.cli import app

if TYPE_CHECKING:
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

    from tests.conftest import ServerFactory

SECTIONS = ("news", "exhibitions", "careers", "press", "help", "partners", "blog", "visit")
runner = CliRunner()


def _list(server: FixtureServer, tmp_path: Path) -> Path:
    """A URL list of the site's sample pages: sections, books (no ``?ref=`` twins, so that the
    books' URLs have the sections' shape), their print and export views, categories …"""
    samples = server.truth().sample_paths()
    urls = [server.url + p for paths in samples.values() for p in paths if "ref=" not in p]
    path = tmp_path / "urls.txt"
    path.write_text("".join(f"{url}\n" for url in urls), encoding="utf-8")
    return path


def test_like_widens_to_the_look_alike_sections_and_not_to_the_books(
    fixture_server: ServerFactory, tmp_path: Path
) -> None:
    server = fixture_server("stacks", records=120, seed=0)
    truth = server.truth()
    urls = _list(server, tmp_path)
    like = server.url + truth.sample_paths()["news"][0]
    server.reset_stats()
    args = ["prototypes", "--from-file", str(urls), "--like", like, "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["evidence"]["used"] == "layout"
    assert {truth.page_kind(url) for url in out["members"]} == set(SECTIONS)
    assert len(out["members"]) == sum(len(truth.sample_paths()[s]) for s in SECTIONS)
    siblings = {s["regex"].split("/")[3]: s["added"] for s in out["evidence"]["siblings"]}
    assert siblings == {**{s: True for s in SECTIONS if s != "news"}, "book": False}
    assert len(out["widened"]) == len(SECTIONS) - 1
    # politely: robots.txt first, GET only, the example and two pages of each sibling at most
    log = server.stats()["log"]
    assert log[0]["path"] == "/robots.txt"
    assert {entry["method"] for entry in log} == {"GET"}
    pages = [e for e in log if e["kind"] not in {"robots", "asset"}]
    assert len(pages) == out["evidence"]["fetched"] <= 1 + 4 + 2 * len(siblings)
    assert {truth.page_kind(server.url + e["path"]) for e in pages} <= {*SECTIONS, "detail"}

    offline = runner.invoke(app, [*args, "--offline"])
    assert offline.exit_code == 0, offline.output
    alone = json.loads(offline.stdout)
    assert alone["evidence"] == {"used": "urls", "reason": "--offline"}
    assert {truth.page_kind(url) for url in alone["members"]} == {"news"}
