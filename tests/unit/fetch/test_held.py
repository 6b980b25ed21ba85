"""Pages fetched once and given again: :class:`HeldPages`, ``robots_url``, ``PageLease.hold``."""

from __future__ import annotations

from typing import Any, cast

from deepcrawl.browser.base import Fetcher
from deepcrawl.browser.lease import PageLease
from deepcrawl.browser.scope import Scope
from deepcrawl.fetch.held import HeldPages
from deepcrawl.fetch.robots import RobotsPolicy, robots_url
from deepcrawl.page.fetched import FetchedPage
from deepcrawl.safety import SafetyRule
from deepcrawl.settings import Settings

ROBOTS = "User-agent: *\nDisallow: /private\n"


class Recorder(Fetcher):
    """Answers every URL with an empty page and records what was asked."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def fetch(self, url: str) -> FetchedPage:
        self.sent.append(url)
        return FetchedPage(url, url, 200, "text/plain", "User-agent: *\nDisallow: /\n")


async def test_held_pages_are_given_once_then_asked_for() -> None:
    inner = Recorder()
    robots = FetchedPage(
        "http://a.test/robots.txt", "http://a.test/robots.txt", 200, "text/plain", ROBOTS
    )
    held = HeldPages(inner, [robots])
    assert (await held.fetch("http://a.test/robots.txt")) is robots
    assert inner.sent == []
    assert held.held == 0
    await held.fetch("http://a.test/robots.txt")  # given already: it may have changed since
    await held.fetch("http://a.test/other")
    assert inner.sent == ["http://a.test/robots.txt", "http://a.test/other"]


async def test_robots_rules_read_from_a_held_answer_send_nothing() -> None:
    inner = Recorder()
    url = "http://Bücher.TEST:8080/search?q=1"
    answer = FetchedPage(robots_url(url), robots_url(url), 200, "text/plain", ROBOTS)
    assert answer.url == "http://xn--bcher-kva.test:8080/robots.txt"  # as the policy spells it
    rules = RobotsPolicy("deepcrawl")
    await rules.load(url, HeldPages(inner, [answer]))
    assert inner.sent == []
    assert rules.allowed("http://xn--bcher-kva.test:8080/search")
    assert not rules.allowed("http://xn--bcher-kva.test:8080/private/1")


def _lease() -> PageLease:
    fake = cast("Any", object())  # hold() touches neither the page nor its context
    return PageLease(
        page=fake,
        context=fake,
        settings=Settings(),
        scope=Scope(("a.test",), implicit=False),
        rule=SafetyRule(),
        click_rule=SafetyRule(),
    )


def test_a_lease_holds_only_the_html_answer_of_the_url_itself() -> None:
    url = "http://a.test/search/"
    page = FetchedPage(url, url + "#top", 200, "text/html", "<form></form>")
    lease = _lease()
    assert lease.hold(url, page)
    assert lease.documents[url] == (200, "text/html; charset=utf-8", b"<form></form>", False)
    cookie = FetchedPage(url, url, 200, "text/html", "<p>", headers={"set-cookie": "sid=1"})
    assert lease.hold(url, cookie)
    assert lease.documents[url][3]  # its cookies never reach the browser: a foreign session
    for other in (
        None,
        FetchedPage(url, "http://a.test/login", 200, "text/html", "<p>"),  # redirected
        FetchedPage(url, url, 404, "text/html", "<p>"),
        FetchedPage(url, url, 200, "application/json", "{}"),
    ):
        fresh = _lease()
        assert not fresh.hold(url, other)
        assert fresh.documents == {}
