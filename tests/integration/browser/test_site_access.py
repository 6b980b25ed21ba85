"""Site access end to end: gated fixture sites crawled with cookies, a login session, a header,
through a proxy; what the server received from the browser and from plain HTTP compared.

Every crawl is the real command (a subprocess, real Chromium, real SQLite) on a small "books"
site behind a gate (:mod:`deepcrawl_fixtures.gate`).
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from deepcrawl_fixtures import FixtureServer
from deepcrawl_fixtures.forward_proxy import ForwardProxy
from deepcrawl_fixtures.gate import (
    KEY_HEADER,
    KEY_VALUE,
    LOGIN_PATH,
    PASSWORD,
    SESSION_COOKIE,
    SESSION_VALUE,
    USER,
)

from deepcrawl.browser import BrowserPool
from deepcrawl.browser.login import record_login
from deepcrawl.browser.testing import LocalSite, Reply
from deepcrawl.settings import Settings, load_settings
from tests.integration.run_cli import run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.async_api import Page

pytestmark = pytest.mark.browser

RECORDS = 30
AGENT = "access-test/1.0 (+mailto:crawler@example.org)"


@pytest.fixture(scope="module")
def cookie_site() -> Iterator[FixtureServer]:
    """Members only: the search form and the records need the session cookie."""
    with FixtureServer(
        "books", records=RECORDS, seed=3, gate="cookie", record_headers=True
    ) as server:
        yield server


@pytest.fixture(scope="module")
def header_site() -> Iterator[FixtureServer]:
    """Keyed: every page needs the key header."""
    with FixtureServer(
        "books", records=RECORDS, seed=3, gate="header", record_headers=True
    ) as server:
        yield server


def _crawl(
    server: FixtureServer, tmp_path: Path, name: str, *access: str
) -> subprocess.CompletedProcess[str]:
    """A short crawl: one labelled example, three pages delivered to ``tmp_path/name``."""
    example = server.truth().detail_paths[0]
    db = f"sqlite:///{tmp_path / (name + '.db')}"
    return run_deepcrawl(
        tmp_path, "crawl", server.url + "/", "--db", db, "--like", example,
        "--max-pages", "3", "--out", str(tmp_path / name), *access,
    )  # fmt: skip


def _delivered(tmp_path: Path, name: str) -> list[dict[str, Any]]:
    lines = (tmp_path / name / "pages.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def _from_browser(entry: dict[str, Any]) -> bool:
    """A request Chromium made: its client hints, which httpx never sends (a request carrying
    the access's headers is sent by the browser's request client, without ``Sec-Fetch-*``:
    :mod:`deepcrawl.browser.credentials`)."""
    return "sec-ch-ua" in entry["headers"]


def _netscape(path: Path, *lines: str) -> Path:
    path.write_text("# Netscape HTTP Cookie File\n" + "".join(line + "\n" for line in lines))
    return path


def test_the_members_only_site_is_crawled_with_a_cookie_file_and_not_without(
    cookie_site: FixtureServer, tmp_path: Path
) -> None:
    cookie_site.reset_stats()
    refused = _crawl(cookie_site, tmp_path, "without")
    assert refused.returncode == 1
    assert "no search form" in refused.stderr
    stats = cookie_site.stats()
    assert stats["by_kind"].get("results", 0) == 0
    assert stats["by_kind"].get("detail", 0) == 0
    # the gate's login form was seen, never submitted: only the user logs in
    assert stats["by_kind"].get("login", 0) >= 1
    assert not any(entry["method"] == "POST" for entry in stats["log"])

    cookies = _netscape(
        tmp_path / "cookies.txt",
        f"127.0.0.1\tFALSE\t/\tFALSE\t0\t{SESSION_COOKIE}\t{SESSION_VALUE}",
    )
    cookie_site.reset_stats()
    let_in = _crawl(cookie_site, tmp_path, "with", "--cookies", str(cookies))
    assert let_in.returncode == 0, let_in.stderr
    pages = _delivered(tmp_path, "with")
    truth = cookie_site.truth()
    assert len(pages) == 3
    assert all(truth.record_of(page["url"]) is not None for page in pages)


def test_the_browser_and_plain_http_send_the_same_agent_headers_and_cookies(
    cookie_site: FixtureServer, tmp_path: Path
) -> None:
    cookies = tmp_path / "cookies.json"  # a browser extension's export
    cookies.write_text(
        json.dumps(
            [
                {"domain": "127.0.0.1", "hostOnly": True, "name": SESSION_COOKIE,
                 "value": SESSION_VALUE, "path": "/", "session": True, "sameSite": "lax"},
                {"domain": "127.0.0.1", "hostOnly": True, "name": "theme", "value": "dark",
                 "path": "/", "expirationDate": 4102444800, "sameSite": "no_restriction",
                 "secure": False},
            ]
        )
    )  # fmt: skip
    cookie_site.reset_stats()
    done = _crawl(
        cookie_site, tmp_path, "same", "--cookies", str(cookies),
        "--header", "X-Trace: t-1", "--header", "Accept-Language: de", "--user-agent", AGENT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    log = [entry for entry in cookie_site.stats()["log"] if entry["kind"] != "asset"]
    browser = [e for e in log if _from_browser(e)]
    plain = [e for e in log if not _from_browser(e)]
    assert browser, "the browser took part"
    assert plain, "plain HTTP took part"
    for entry in log:
        headers = entry["headers"]
        assert headers["user-agent"] == AGENT, entry
        assert headers["x-trace"] == "t-1", entry
        assert headers["accept-language"] == "de", entry
        sent = dict(part.split("=", 1) for part in headers["cookie"].split("; "))
        assert sent.get(SESSION_COOKIE) == SESSION_VALUE, entry
        assert sent.get("theme") == "dark", entry


async def _log_in(page: Page) -> None:
    """What the user does in the window ``deepcrawl login`` opens."""
    await page.fill("input[name=username]", USER)
    await page.fill("input[name=password]", PASSWORD)
    async with page.expect_navigation():
        await page.click("button[type=submit]")


def test_a_login_session_saved_by_the_login_command_lets_the_crawl_in(
    cookie_site: FixtureServer, tmp_path: Path
) -> None:
    state = tmp_path / "state.json"
    settings = load_settings()
    session = asyncio.run(
        record_login(cookie_site.url + LOGIN_PATH, state, settings, headed=False, done=_log_in)
    )
    assert session.cookies == 1
    assert stat.S_IMODE(state.stat().st_mode) == 0o600  # a session is a credential
    saved = json.loads(state.read_text())
    assert saved["cookies"][0]["name"] == SESSION_COOKIE

    done = _crawl(cookie_site, tmp_path, "session", "--storage-state", str(state))
    assert done.returncode == 0, done.stderr
    assert len(_delivered(tmp_path, "session")) == 3


def test_the_login_command_without_a_display_runs_headless_and_says_so(
    cookie_site: FixtureServer, tmp_path: Path
) -> None:
    env = {"DISPLAY": "", "WAYLAND_DISPLAY": ""}
    result = run_deepcrawl(
        tmp_path, "login", cookie_site.url + LOGIN_PATH, "--out", "s.json", env=env
    )
    assert result.returncode == 0, result.stderr
    assert "No display here" in result.stderr
    assert json.loads((tmp_path / "s.json").read_text())["cookies"] == []  # nobody logged in

    forced = run_deepcrawl(
        tmp_path, "login", cookie_site.url + LOGIN_PATH, "--headed", "--out", "t.json", env=env
    )
    assert forced.returncode == 1
    assert forced.stderr.startswith("error: --headed needs a display"), forced.stderr
    assert not (tmp_path / "t.json").exists()


def test_the_keyed_site_is_crawled_with_the_header_and_refused_without(
    header_site: FixtureServer, tmp_path: Path
) -> None:
    header_site.reset_stats()
    refused = _crawl(header_site, tmp_path, "without")
    assert refused.returncode == 1
    assert "403" in refused.stderr
    assert header_site.stats()["by_kind"].get("results", 0) == 0

    done = _crawl(header_site, tmp_path, "with", "--header", f"{KEY_HEADER}: {KEY_VALUE}")
    assert done.returncode == 0, done.stderr
    assert len(_delivered(tmp_path, "with")) == 3


def test_both_fetchers_go_through_the_proxy_and_neither_through_the_environments(
    header_site: FixtureServer, tmp_path: Path
) -> None:
    key = f"{KEY_HEADER}: {KEY_VALUE}"
    with ForwardProxy() as proxy:
        header_site.reset_stats()
        done = _crawl(header_site, tmp_path, "proxied", "--header", key, "--proxy", proxy.url)
        assert done.returncode == 0, done.stderr
        received = header_site.stats()["log"]
        proxied = {(r.method, r.target) for r in proxy.log}
        assert any(_from_browser(e) for e in received)
        assert any(not _from_browser(e) for e in received)  # httpx's
        tunnel = ("CONNECT", header_site.url.removeprefix("http://"))
        for entry in received:  # every request the site answered came through the proxy:
            if "sec-fetch-mode" in entry["headers"] or not _from_browser(entry):
                # Chromium's network stack and httpx send absolute-form requests through it
                assert (entry["method"], header_site.url + entry["path"]) in proxied, entry
            else:  # the browser's request client (the key header's requests) tunnels
                assert tunnel in proxied, entry

        seen = len(proxy.log)
        env = {"HTTP_PROXY": proxy.url, "http_proxy": proxy.url, "ALL_PROXY": proxy.url}
        for render in ("always", "never"):
            page = run_deepcrawl(
                tmp_path, "render", header_site.url + "/", "--render", render,
                "--header", key, "--json", env=env,
            )  # fmt: skip
            assert page.returncode == 0, page.stderr
            assert json.loads(page.stdout)["status"] == 200
        assert len(proxy.log) == seen  # the environment's proxy is ignored by both


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (("--header", "X-Key"), "error: header 'X-Key': expected 'Name: value'"),
        (("--cookies", "missing.txt"), "error: cookie file missing.txt: cannot read it"),
        (("--proxy", "ftp://p:21"), "error: proxy 'ftp://p:21': the scheme must be one of"),
    ],
)
def test_bad_access_input_ends_the_crawl_with_one_line_naming_it(
    header_site: FixtureServer, tmp_path: Path, flags: tuple[str, ...], message: str
) -> None:
    header_site.reset_stats()
    result = run_deepcrawl(tmp_path, "crawl", header_site.url + "/", *flags)
    assert result.returncode == 1
    assert result.stderr.startswith(message), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert header_site.stats()["requests"] == 0  # checked before anything is sent


@pytest.mark.parametrize("how", ["enter", "close"])
def test_the_login_session_is_saved_when_the_user_presses_enter_or_closes_the_page(
    cookie_site: FixtureServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    from deepcrawl.cli.login import _until_user_is_done

    if how == "enter":
        monkeypatch.setattr(sys, "stdin", io.StringIO("\n"))
    else:  # nobody types: the input stays open and empty
        read, write = os.pipe()
        monkeypatch.setattr(sys, "stdin", os.fdopen(read))

    async def user(page: Page) -> None:
        await _log_in(page)
        if how == "close":
            asyncio.get_running_loop().call_later(0.2, asyncio.ensure_future, page.close())
        await _until_user_is_done(page)

    settings = load_settings()
    state = tmp_path / "state.json"
    session = asyncio.run(
        asyncio.wait_for(
            record_login(cookie_site.url + LOGIN_PATH, state, settings, headed=False, done=user),
            timeout=60,
        )
    )
    assert session.cookies == 1
    if how == "close":
        os.close(write)


async def test_cookies_the_site_sets_outlive_the_recycling_of_browser_contexts(
    tmp_path: Path,
) -> None:
    routes = {
        "/set": Reply("<p>set</p>", headers=(("Set-Cookie", "renewed=2; Path=/"),)),
        "/show": Reply("<p>show</p>"),
    }
    cookies = _netscape(tmp_path / "cookies.txt", "127.0.0.1\tFALSE\t/\tFALSE\t0\tgiven\t1")
    settings = Settings().with_overrides(access={"cookies": cookies})
    with LocalSite(routes) as site:
        async with BrowserPool(settings, {"127.0.0.1"}, recycle_after=1) as pool:
            async with pool.page() as lease:
                await lease.page.goto(site.url + "/set")
            async with pool.page() as lease:  # a new context: the first was recycled
                await lease.page.goto(site.url + "/show")
                seen = await lease.page.evaluate("document.cookie")
        assert pool.stats.contexts == 2
    assert sorted(seen.split("; ")) == ["given=1", "renewed=2"]
