"""Credentials go to the origin they were given for, on every fetch path (issue 25, item 1).

Two servers on two ports: the site (origin A, ``127.0.0.1``) and another origin (B,
``localhost``) that A redirects to or whose script every page of A loads — a CDN the user
allowed (``browser.allow_hosts``), so that the browser may reach it. Each command is given a
cookie file (a host-only cookie of ``127.0.0.1``), ``Authorization`` and a key header. On A's
side every request carries all three; on B's side none arrives: the headers are the start
URL's origin's alone, and the cookie goes where RFC 6265 sends it (another host: nowhere).

One test per fetch path: ``render`` (both fetchers, a redirect), ``crawl``, ``forms``,
``query``, ``discover`` (the browser's sub-requests), ``label --web``'s thumbnails, and a
``worker`` joining a crawl on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest
from deepcrawl_fixtures import FixtureServer

from deepcrawl.browser.testing import LocalSite, Reply
from deepcrawl.crawler import CallbackSink, Crawl
from deepcrawl.harvest import shared_fetching
from deepcrawl.label_web.thumbnails import Thumbnails
from deepcrawl.settings import load_settings
from deepcrawl.storage import Repository
from tests.integration.run_cli import cli_env, run_deepcrawl, spawn_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

pytestmark = pytest.mark.browser

TOKEN = "Bearer t-5f2c0d"
KEY_HEADER, KEY = "X-Api-Key", "k-91d3e7"
COOKIE = "sid=c-77a0b4"
#: What each of the three looks like in a request's headers (names in lower case).
CREDENTIALS = {
    "authorization": lambda h: h.get("authorization") == TOKEN,
    "key header": lambda h: h.get(KEY_HEADER.lower()) == KEY,
    "cookie": lambda h: COOKIE in h.get("cookie", "").split("; "),
}
ALL = set(CREDENTIALS)


def carried(headers: dict[str, str]) -> set[str]:
    """Which of the credentials a request carried."""
    return {name for name, present in CREDENTIALS.items() if present(headers)}


@pytest.fixture(scope="module")
def other_origin() -> Iterator[LocalSite]:
    """Origin B: a script every page of the site loads, and the page A's record redirects to."""
    with LocalSite(
        {
            "/widget.js": Reply("window.widget = 1;", content_type="text/javascript"),
            "/rec/7": Reply("<!doctype html><title>record 7</title><p>moved here</p>"),
        }
    ) as site:
        yield site


def b_url(site: LocalSite) -> str:
    """B's base URL: another host than A's (``localhost``, the loopback address too)."""
    return f"http://localhost:{site.port}"


@pytest.fixture
def b(other_origin: LocalSite) -> LocalSite:
    other_origin.log.clear()
    other_origin.headers.clear()
    return other_origin


@pytest.fixture(scope="module")
def books(other_origin: LocalSite) -> Iterator[FixtureServer]:
    """Origin A: the books site, every page of which loads B's script."""
    with FixtureServer(
        "books", records=120, seed=41, record_headers=True,
        third_party=b_url(other_origin) + "/widget.js",
    ) as server:  # fmt: skip
        yield server


@pytest.fixture
def a(books: FixtureServer) -> FixtureServer:
    books.reset_stats()
    return books


def credentials(tmp_path: Path) -> list[str]:
    """The access flags every command gets: a cookie file of A's host, two headers."""
    name, value = COOKIE.split("=")
    cookies = tmp_path / "cookies.txt"
    cookies.write_text(f"127.0.0.1\tFALSE\t/\tFALSE\t0\t{name}\t{value}\n")
    return [
        "--cookies", str(cookies),
        "--header", f"Authorization: {TOKEN}", "--header", f"{KEY_HEADER}: {KEY}",
    ]  # fmt: skip


def allowed(site: LocalSite) -> dict[str, str]:
    """The environment that lets the browser load B's script (a CDN the user allowed)."""
    return {"DEEPCRAWL_BROWSER__ALLOW_HOSTS": json.dumps([f"localhost:{site.port}"])}


def assert_b_got_nothing(site: LocalSite, agent: str | None = None) -> None:
    """B was asked (the test means something) and no request carried a credential."""
    seen = [(path, headers) for (_, path), headers in zip(site.log, site.headers, strict=True)
            if agent is None or headers.get("user-agent") == agent]  # fmt: skip
    assert seen, "nothing reached the other origin"
    leaked = [(path, carried(headers)) for path, headers in seen if carried(headers)]
    assert not leaked, leaked


def assert_a_got_everything(server: FixtureServer, agent: str | None = None) -> None:
    """Every request of the site (of ``agent``) carried the three credentials."""
    log = [e for e in server.stats()["log"]
           if agent is None or e["headers"].get("user-agent") == agent]  # fmt: skip
    assert log, "nothing reached the site"
    short = [(e["path"], ALL - carried(e["headers"])) for e in log if carried(e["headers"]) != ALL]
    assert not short, short


def run(tmp_path: Path, b: LocalSite, *args: str) -> subprocess.CompletedProcess[str]:
    return run_deepcrawl(tmp_path, *args, *credentials(tmp_path), env=allowed(b), timeout=180)


@pytest.mark.parametrize("render", ["always", "never"])
def test_render_keeps_credentials_from_a_redirect_to_another_origin(
    b: LocalSite, tmp_path: Path, render: str
) -> None:
    moved = b_url(b) + "/rec/7"
    with LocalSite({"/rec/7": Reply("", status=302, headers=(("Location", moved),))}) as a_site:
        result = run(tmp_path, b, "render", a_site.url + "/rec/7", "--render", render, "--json")
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["final_url"] == moved
        assert [carried(h) for h in a_site.headers] == [ALL]
    assert_b_got_nothing(b)


def test_crawl_keeps_credentials_from_another_origins_script(
    a: FixtureServer, b: LocalSite, tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'crawl.db'}"
    result = run(
        tmp_path, b, "crawl", a.url + "/", "--like", a.truth().detail_paths[0],
        "--max-pages", "3", "--db", db, "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert_a_got_everything(a)
    assert_b_got_nothing(b)


def test_forms_keeps_credentials_from_another_origins_script(
    a: FixtureServer, b: LocalSite, tmp_path: Path
) -> None:
    result = run(tmp_path, b, "forms", a.url + "/", "--json")
    assert result.returncode == 0, result.stderr
    assert_a_got_everything(a)
    assert_b_got_nothing(b)


def test_query_keeps_credentials_from_another_origins_script(
    a: FixtureServer, b: LocalSite, tmp_path: Path
) -> None:
    result = run(tmp_path, b, "query", a.url + "/", "time", "--max-pages", "1", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["result_links"], "the query found nothing"
    assert_a_got_everything(a)
    assert_b_got_nothing(b)


def test_discover_keeps_credentials_from_another_origins_script(
    a: FixtureServer, b: LocalSite, tmp_path: Path
) -> None:
    result = run(tmp_path, b, "discover", a.url + "/", "--browser", "--max-requests", "3")
    assert result.returncode == 0, result.stderr
    assert_a_got_everything(a)
    assert_b_got_nothing(b)


async def test_label_thumbnails_keep_credentials_from_another_origins_script(
    a: FixtureServer, b: LocalSite, tmp_path: Path
) -> None:
    credentials(tmp_path)  # writes the cookie file
    settings = load_settings(
        storage={"url": f"sqlite:///{tmp_path / 'db.sqlite'}", "bodies_dir": tmp_path / "bodies"},
        access={
            "cookies": tmp_path / "cookies.txt",
            "headers": {"Authorization": TOKEN, KEY_HEADER: KEY},
        },
        browser={"allow_hosts": [f"localhost:{b.port}"]},
    )  # what 'deepcrawl label SITE --web --cookies … --header …' gives its thumbnails
    with Repository.open(settings.storage.url, settings.storage) as repo:
        site_id = repo.site(a.url + "/").id
        thumbnails = Thumbnails(repo, site_id, a.url + "/", settings)
        try:
            png = await thumbnails.png(a.url + a.truth().detail_paths[0])
        finally:
            await thumbnails.aclose()
    assert png is not None
    assert_a_got_everything(a)
    assert_b_got_nothing(b)


@pytest.mark.postgres
async def test_a_worker_keeps_credentials_from_another_origins_script(
    make_db: Callable[[str], str],
    b: LocalSite,
    tmp_path: Path,
) -> None:
    # The crawl runs here, with no fetch worker of its own (shared_fetching(concurrency=0)):
    # the worker process fetches every page, however early or late the crawl's jobs come and
    # however loaded the machine (a crawl fetching beside it could leave it nothing).
    a = FixtureServer(
        "books", records=40, seed=43, record_headers=True, third_party=b_url(b) + "/widget.js"
    )
    db = make_db("postgres")
    crawl_agent, worker_agent = "crawl-process/1", "worker-process/1"
    # the crawl has no credentials of its own: what B may get is the worker's doing
    settings = load_settings(
        storage={"url": db, "bodies_dir": tmp_path / "bodies"},
        politeness={"requests_per_second": 0.0},
        http={"user_agent": crawl_agent},
        browser={"allow_hosts": (f"localhost:{b.port}",)},
    )
    env = {**cli_env(tmp_path, **allowed(b)), "DEEPCRAWL_BROWSER__RENDER": "always"}
    records: list[dict[str, Any]] = []
    with a, (tmp_path / "worker.err").open("w+") as worker_err:
        # a new interpreter: this process runs an event loop, a browser and threads meanwhile
        worker = spawn_deepcrawl(
            ["worker", "--db", db, "--user-agent", worker_agent, *credentials(tmp_path)],
            fork=False, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=worker_err,
        )  # fmt: skip
        try:
            async with (
                shared_fetching(settings, concurrency=0) as dispatch,
                Crawl(a.url + "/", settings=settings, like=[a.truth().detail_paths[0]],
                      dispatch=dispatch) as crawl,
            ):  # fmt: skip
                report = await asyncio.wait_for(crawl.run(CallbackSink(records.append)), 240)
            assert report.status == "done"
            assert worker.poll() is None, "the worker ended before the crawl"
            worker.send_signal(signal.SIGINT)  # it would wait for more jobs
            assert await asyncio.to_thread(worker.wait, 60) == 128 + signal.SIGINT
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
            worker_err.seek(0)
            print(worker_err.read()[-3000:])
        assert_a_got_everything(a, worker_agent)
        # every record the crawl's setup did not fetch came through the worker: no one else
        # fetched for the crawl
        by_agent: dict[str, set[str]] = {crawl_agent: set(), worker_agent: set()}
        for entry in a.stats()["log"]:
            by_agent.setdefault(entry["headers"].get("user-agent", ""), set()).add(entry["path"])
        delivered = {urlsplit(r["url"]).path for r in records}
        assert delivered - by_agent[crawl_agent], "the worker fetched no record"
        assert delivered - by_agent[crawl_agent] <= by_agent[worker_agent]
    assert_b_got_nothing(b, worker_agent)
