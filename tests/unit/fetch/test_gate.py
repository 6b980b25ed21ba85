"""The crawl's one door: its order of decisions, its count, its rate slots, and the browser's side.

Fakes only: a fetcher that records what reaches it, a clock that moves by what is slept.
"""

from __future__ import annotations

import asyncio

import pytest

from deepcrawl.browser import RequestGate, SafetyGate
from deepcrawl.browser.base import Fetcher
from deepcrawl.errors import BlockedError
from deepcrawl.fetch.gate import Count, Gate
from deepcrawl.fetch.polite import same_host
from deepcrawl.fetch.politeness import HostLimiter
from deepcrawl.fetch.robots import RobotsPolicy
from deepcrawl.page.fetched import FetchedPage
from deepcrawl.settings import PolitenessSettings

HOST = "http://a.test"
ROBOTS = "User-agent: *\nDisallow: /private\n"


class FakeClock:
    """Moves by what a sleeper asks."""

    def __init__(self) -> None:
        self.t = 100.0
        self.slept: list[float] = []

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds
        await asyncio.sleep(0)


class Recorder(Fetcher):
    """Answers every URL with a page (robots.txt with ``ROBOTS``); records what reached it."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def fetch(self, url: str) -> FetchedPage:
        self.sent.append(url)
        body = ROBOTS if url.endswith("/robots.txt") else "<p>hi</p>"
        return FetchedPage(url, url, 200, "text/html", body)


def _closed_gate(*, rate: float = 0.0, concurrency: int = 4) -> tuple[Gate, FakeClock, Count]:
    clock = FakeClock()
    politeness = PolitenessSettings(
        requests_per_second=rate, concurrency_per_host=concurrency, retries=0
    )
    count = Count()
    gate = Gate(
        politeness,
        RobotsPolicy("deepcrawl"),
        HostLimiter(politeness, clock),
        same_host(HOST + "/"),
        tally=count,
    )
    return gate, clock, count


async def _gate(
    *, rate: float = 0.0, concurrency: int = 4
) -> tuple[Gate, Recorder, FakeClock, Count]:
    gate, clock, count = _closed_gate(rate=rate, concurrency=concurrency)
    recorder = Recorder()
    await gate.open(HOST + "/", recorder)
    return gate, recorder, clock, count


async def test_robots_txt_is_read_through_the_gate_and_counted_once() -> None:
    _opened, recorder, _clock, count = await _gate()
    assert recorder.sent == [HOST + "/robots.txt"]
    assert count.requests == 1


async def test_a_robots_txt_fetched_before_is_taken_not_asked_for_again() -> None:
    gate, _clock, count = _closed_gate()
    recorder = Recorder()
    held = FetchedPage(HOST + "/robots.txt", HOST + "/robots.txt", 200, "text/plain", ROBOTS)
    await gate.open(HOST + "/", recorder, held=[held])
    assert recorder.sent == []
    assert count.requests == 0  # its request was the input check's, counted there
    assert gate.refusal(HOST + "/private/1") == "disallowed by robots.txt (not fetched)"


async def test_decisions_come_in_order_scope_robots_safety() -> None:
    gate, *_ = await _gate()
    # out of scope, disallowed and unsafe alike: scope speaks first
    assert gate.refusal("http://b.test/private/logout") == "out of the crawl's scope (not fetched)"
    # in scope, disallowed and unsafe: robots.txt next
    assert gate.refusal(HOST + "/private/logout") == "disallowed by robots.txt (not fetched)"
    # in scope, allowed, unsafe: the safety rule last
    why = gate.refusal(HOST + "/account/logout")
    assert why is not None
    assert why.startswith("refused by the safety rule")
    # a URL its caller vouched for is not judged by its words, but scope and robots.txt hold
    assert gate.refusal(HOST + "/account/logout", vouched=True) is None
    assert gate.refusal(HOST + "/private/1", vouched=True) is not None
    assert gate.refusal(HOST + "/robots.txt") is None  # robots.txt itself is always allowed


async def test_a_refused_request_never_reaches_the_fetcher_nor_the_count() -> None:
    gate, recorder, _clock, count = await _gate()
    polite = gate.wrap(recorder)
    for url in ("http://b.test/x", HOST + "/private/1", HOST + "/cart/delete"):
        with pytest.raises(BlockedError):
            await polite.fetch(url)
        tried = await polite.attempt(url)
        assert tried.kind is BlockedError
    assert recorder.sent == [HOST + "/robots.txt"]
    assert count.requests == 1


async def test_a_vouched_url_is_fetched_and_counted_once() -> None:
    gate, recorder, _clock, count = await _gate()
    polite = gate.wrap(recorder, vouched=lambda url: url.endswith("/delete-me-a-title"))
    page = await polite.fetch(HOST + "/book/delete-me-a-title")
    assert page.status == 200
    assert recorder.sent[-1] == HOST + "/book/delete-me-a-title"
    assert count.requests == 2  # robots.txt and the page


async def test_a_counting_view_counts_its_own_requests_and_the_crawls() -> None:
    gate, recorder, _clock, crawl = await _gate()
    mine = Count()
    view = gate.counting(mine)
    await view.wrap(recorder).fetch(HOST + "/a")
    await gate.wrap(recorder).fetch(HOST + "/b")
    async with view.page_passage(HOST + "/style.css", navigation=False):
        pass
    assert (crawl.requests, mine.requests) == (1 + 3, 2)
    assert view.robots is gate.robots
    assert view.limiter is gate.limiter


async def test_every_request_takes_its_own_turn_of_the_rate() -> None:
    gate, recorder, clock, _count = await _gate(rate=10)
    polite = gate.wrap(recorder)
    for n in range(3):
        await polite.fetch(f"{HOST}/p/{n}")
    async with gate.page_passage(HOST + "/app.js", navigation=False):
        pass
    async with gate.page_passage(HOST + "/api?q=x", navigation=False):
        pass
    # robots.txt, three fetches, two page requests: six turns, a tenth of a second apart
    assert clock.slept == pytest.approx([0.1] * 5)


async def test_a_pages_requests_do_not_wait_for_the_seat_their_fetch_holds() -> None:
    gate, _recorder, _clock, count = await _gate(concurrency=1)
    async with gate.passage(HOST + "/page"):  # a fetch holds the host's only seat
        async with asyncio.timeout(1):  # what its page loads still goes out
            async with gate.page_passage(HOST + "/app.js", navigation=False):
                pass
    assert count.requests == 1 + 2


async def test_the_navigation_of_an_admitted_fetch_is_not_counted_twice() -> None:
    gate, _recorder, clock, count = await _gate(rate=10)

    class Browser(Fetcher):
        """A page whose main-frame navigation and one script request pass the gate."""

        async def fetch(self, url: str) -> FetchedPage:
            async with gate.page_passage(url, navigation=True):  # the fetch itself
                pass
            async with gate.page_passage(url, navigation=True):  # the page asks again
                pass
            async with gate.page_passage(HOST + "/app.js", navigation=False):
                pass
            return FetchedPage(url, url, 200, "text/html", "")

    slept = len(clock.slept)
    await gate.wrap(Browser()).fetch(HOST + "/page")
    assert count.requests == 1 + 3  # robots.txt; the fetch, the page's second ask, its script
    assert len(clock.slept) - slept == 3
    async with gate.page_passage(HOST + "/page", navigation=True):  # no fetch admits it now
        pass
    assert count.requests == 1 + 4


@pytest.mark.parametrize("gate_kind", ["crawl", "alone"])
async def test_the_browsers_side_judges_by_sender(gate_kind: str) -> None:
    crawl_gate, *_ = await _gate()
    gate: RequestGate = crawl_gate if gate_kind == "crawl" else SafetyGate()
    refuse = gate.page_refusal
    # a probed page: GETs only, each URL judged
    assert refuse(HOST + "/api/menu", method="POST", sender="probe") is not None
    assert refuse(HOST + "/logout", method="GET", sender="probe") is not None
    assert refuse(HOST + "/menu", method="GET", sender="probe") is None
    # a script: by its URL, whatever its method (a POST may be the search itself)
    assert refuse(HOST + "/api/search", method="POST", sender="script") is None
    assert refuse(HOST + "/api/delete", method="POST", sender="script") is not None
    # what a page loads, the crawler's own navigations (a form the critic accepted): not judged
    assert refuse(HOST + "/do", method="POST", sender="page") is None
    disallowed = refuse(HOST + "/private/app.js", method="GET", sender="page")
    assert (disallowed is not None) == (gate_kind == "crawl")  # robots.txt: the crawl's


async def test_a_form_submission_is_judged_by_its_action_and_its_trigger() -> None:
    from deepcrawl.page.submission import Submission

    gate, _recorder, _clock, count = await _gate()
    state = (("__VIEWSTATE", "abc"), ("q", "delete"))  # a keyword is never judged
    search = Submission(HOST + "/Default.aspx", (*state, ("go", "Search")), (("go", "Search"),))
    turn = (("__EVENTTARGET", "grid"), ("__EVENTARGUMENT", "Page$2"))
    pager = Submission(HOST + "/Default.aspx", (*state, *turn), turn, "2")
    login = Submission(HOST + "/Default.aspx", (*state,), (("ctl00$LogInButton", "Log in"),))
    subscribe = Submission(HOST + "/Default.aspx", state, (("b", "Go"),), "Subscribe")
    assert gate.submission_refusal(search) is None
    assert gate.submission_refusal(pager) is None
    for refused in (login, subscribe):
        why = gate.submission_refusal(refused)
        assert why is not None
        assert "safety rule" in why
    assert gate.submission_refusal(Submission("http://b.test/s", state)) is not None
    assert gate.submission_refusal(Submission(HOST + "/private/s", state)) is not None

    class Poster(Recorder):
        async def submit(self, submission: Submission) -> FetchedPage:
            self.sent.append("POST " + submission.action)
            return FetchedPage(submission.action, submission.action, 200, "text/html", "<p/>")

    poster = Poster()
    polite = gate.wrap(poster)
    assert (await polite.submit(search)).status == 200
    with pytest.raises(BlockedError):
        await polite.submit(login)
    assert poster.sent == ["POST " + HOST + "/Default.aspx"]
    assert count.requests == 2  # robots.txt and the search
