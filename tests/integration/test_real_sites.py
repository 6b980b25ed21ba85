"""The real-site test bed end to end on two cheap applications: MkDocs + Material and Datasette.

Each is installed (its own virtualenv from PyPI, generated data of a fixed seed), served behind
the counting proxy, and crawled with ``deepcrawl crawl START --like EXAMPLE`` through the proxy
as a user would, with a page budget that keeps the test short. The figures asserted are the
server's, floors a little below what the current crawler measures; the issue's targets (record
recall ≥ 0.98, harvest ≥ 0.8, on a crawl that stops by itself) are measured by
``deepcrawl bench --suite real``, not here.
"""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from deepcrawl_fixtures.real import REAL_APPS, serve
from deepcrawl_fixtures.real.apps.mkdocs import MkDocs
from deepcrawl_fixtures.real.score import score
from run_cli import run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Iterator

    from deepcrawl_fixtures.real import Running

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGES = 15
"""The crawl stops after delivering this many pages: a few minutes, not the bench's fifteen."""


@pytest.fixture(scope="module")
def site() -> Iterator[Running]:
    with serve(MkDocs()) as running:
        yield running


@pytest.fixture(scope="module", params=["mkdocs", "datasette"])
def any_site(request: pytest.FixtureRequest) -> Iterator[Running]:
    with serve(REAL_APPS[request.param]()) as running:
        yield running


def _get(site: Running, path: str) -> int:
    conn = http.client.HTTPConnection(site.url.removeprefix("http://"), timeout=30)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def test_truth_and_record_of_read_the_built_site(site: Running) -> None:
    app = site.app
    truth = app.truth()
    assert REAL_APPS["mkdocs"] is MkDocs
    assert len(truth.records) == 240
    assert app.like_path in truth.records
    for form in (app.like_path, app.like_path.rstrip("/"), app.like_path + "index.html",
                 app.like_path + "?ref=nav#top"):  # fmt: skip
        assert app.record_of(form) == app.like_path
    for other in ("/", "/404.html", "/search/search_index.json", "/assets/x.js", "/nope/"):
        assert app.record_of(other) is None


def test_the_proxy_counts_what_the_site_serves(site: Running) -> None:
    site.reset()
    assert _get(site, site.app.like_path) == 200
    assert _get(site, "/no/such/page/") == 404
    assert _get(site, "/assets/images/favicon.png") == 200
    log = site.requests()
    assert [(e["path"], e["status"], e["asset"]) for e in log] == [
        (site.app.like_path, 200, False),
        ("/no/such/page/", 404, False),
        ("/assets/images/favicon.png", 200, True),
    ]
    assert log[0]["type"] == "text/html"


@pytest.mark.timeout(600)
def test_deepcrawl_through_the_proxy(any_site: Running, tmp_path: Path) -> None:
    site = any_site
    app = site.app
    site.reset()
    done = run_deepcrawl(
        tmp_path,
        *("crawl", site.url + app.start_path),
        *("--like", site.url + app.like_path, "--max-pages", str(PAGES)),
        *("--out", str(tmp_path / "out"), "--db", f"sqlite:///{tmp_path / 'crawl.db'}"),
        # a real application is crawled at the default politeness rate, as a user would
        env={"DEEPCRAWL_POLITENESS__REQUESTS_PER_SECOND": None},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    pages = (tmp_path / "out" / "pages.jsonl").read_text().splitlines()
    delivered = [json.loads(line)["url"] for line in pages]
    result = score(app, site.requests(), delivered)
    # Floors a little below what the crawler reached when this test was written (15 records
    # delivered, all wanted; harvest 0.31 = 21 wanted pages in 68 document requests). The
    # targets of issue 14, recall ≥ 0.98 and harvest ≥ 0.8 on a crawl that stops by itself,
    # are measured by `deepcrawl bench --suite real`.
    assert result.precision == 1.0  # only content pages are delivered
    assert result.records_delivered >= 12
    assert result.harvest >= 0.25
    assert result.other_submissions == 0  # no form but the search was ever submitted
    assert result.assets > 0  # the browser's sub-requests pass through the proxy too
