"""``deepcrawl label SITE --web`` in real Chromium: label by clicking, export, resume the crawl.

A person who has never seen the site opens the page after the setup phase, picks the kind whose
examples read like records, exports the labels, and resumes the crawl with that file on a copy of
the database taken before labelling: the crawl delivers the records, as ``--like`` would.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest
import yaml

from tests.integration.label_web.served import label_page
from tests.integration.run_cli import run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl_fixtures import FixtureServer
    from playwright.async_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]


# books: one kind of page beside the records; news: result pages that link to records only, a
# second kind marked with the keyboard. The shop's crawl adds nothing the page would show
# differently, and its setup is the longest (tests/integration/crawler/test_sites.py crawls it).
@pytest.mark.parametrize("name", ["books", "news"])
async def test_label_on_the_web_page_then_resume_with_the_exported_labels(
    name: str,
    fixture_server: Callable[..., FixtureServer],
    chromium_browser: Browser,
    tmp_path: Path,
) -> None:
    server = fixture_server(name, records=40, seed=19)
    truth = server.truth()
    url = server.url + "/"
    db_file = tmp_path / "crawl.db"
    setup = run_deepcrawl(tmp_path, "crawl", url, "--db", f"sqlite:///{db_file}", "--no-auto")
    assert setup.returncode == 0, setup.stderr
    assert "--web" in setup.stderr  # the advice offers the page
    unlabelled = tmp_path / "unlabelled.db"
    for suffix in ("", "-wal"):  # the database as the setup left it, before any label
        if Path(f"{db_file}{suffix}").exists():
            shutil.copy(f"{db_file}{suffix}", f"{unlabelled}{suffix}")

    with label_page(tmp_path, f"sqlite:///{db_file}") as served:
        page_url = served + "/"
        # changes sent by another site's page are refused
        forged = httpx.post(page_url + "like", data={"url": url}, headers={"Origin": "http://evil"})
        assert forged.status_code == 403

        page = await chromium_browser.new_page(accept_downloads=True)
        await page.goto(page_url)
        cards = page.locator("article.kind")
        others = await cards.count() - 1  # news sites: result pages that link to records only
        # as a person: the kind whose examples are titled like records, and marked as such
        record = cards.filter(has_text="looks like the records")
        assert await record.count() == 1
        examples = await record.locator("ul.examples a").evaluate_all("els => els.map(e => e.href)")
        assert examples
        assert all(truth.is_detail(e) for e in examples)
        assert await record.locator("strong.text").count() >= 1  # link texts shown
        # a thumbnail of a record page; none for kinds no results area linked to (menus)
        thumbnail = record.locator("img.thumbnail")
        await thumbnail.wait_for()
        await page.wait_for_function(
            "el => el.complete && el.naturalWidth > 0", arg=await thumbnail.element_handle()
        )
        assert await page.locator("img.thumbnail").count() == 1
        await record.get_by_role("button", name="Wanted", exact=True).click()
        await page.locator("article.kind.wanted").wait_for()
        assert "wanted" in (await record.locator(".mark.verdict").inner_text())
        if others:  # keyboard: the focus moved on to the next kind; "n" marks it not wanted
            await page.keyboard.press("n")
            await page.locator("article.kind.unwanted").wait_for()

        await page.screenshot(path=str(tmp_path / "label-web.png"), full_page=True)
        cached = list((tmp_path / "bodies" / "thumbnails").rglob("*.png"))
        assert len(cached) == 1  # taken once, kept in the store
        async with page.expect_download() as download_info:
            await page.locator("#export").click()
        labels_file = tmp_path / "labels.yaml"
        await (await download_info.value).save_as(labels_file)
        await page.close()

    entries = yaml.safe_load(labels_file.read_text(encoding="utf-8"))
    wanted = [e["prototype"] for e in entries if e["relevant"]]
    assert len(wanted) == 1
    assert len(entries) == 1 + min(others, 1)
    # the same prototype --like a record's URL gives
    liked = run_deepcrawl(tmp_path, "prototypes", "1", "--db", f"sqlite:///{unlabelled}",
                       "--like", server.url + truth.detail_paths[0], "--json")  # fmt: skip
    assert liked.returncode == 0, liked.stderr
    assert json.loads(liked.stdout)["prototype"]["id"] == wanted[0]

    done = run_deepcrawl(tmp_path, "crawl", url, "--db", f"sqlite:///{unlabelled}", "--resume",
                      "--labels", str(labels_file), "--out", "-")  # fmt: skip
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert records
    assert {truth.page_kind(r["url"]) for r in records} == {"detail"}
    found = {truth.record_of(r["url"]) for r in records}
    assert len(found) == len(records)  # each record once
