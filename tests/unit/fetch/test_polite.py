"""The polite fetch path: the gate's refusals, the host's rate, retries and back-off, the count."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass

import pytest

from deepcrawl.browser.base import Fetcher
from deepcrawl.errors import BlockedError, FetchError, HTTPStatusError, NetworkError
from deepcrawl.fetch.gate import Gate
from deepcrawl.fetch.polite import PoliteFetcher, in_scope, same_host
from deepcrawl.fetch.politeness import HostLimiter
from deepcrawl.fetch.robots import RobotsPolicy
from deepcrawl.page.fetched import FetchedPage
from deepcrawl.settings import PolitenessSettings

HOST = "http://a.test"
ROBOTS = "User-agent: *\nDisallow: /private\nCrawl-delay: 2\n"


class FakeClock:
    """Moves by what a sleeper asks (one sleeper at a time)."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.slept: list[float] = []

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds
        await asyncio.sleep(0)


@dataclass
class Tally:
    requests: int = 0
    retries: int = 0


class FakeFetcher(Fetcher):
    """Answers each URL with its scripted answers in turn (the last one repeats); records what
    was sent and when (on the fake clock)."""

    def __init__(
        self, clock: FakeClock, script: dict[str, list[int | FetchError]], robots: str
    ) -> None:
        self.clock = clock
        self.script = script
        self.robots = robots
        self.sent: list[tuple[str, float]] = []

    async def fetch(self, url: str) -> FetchedPage:
        self.sent.append((url, self.clock.now()))
        if url.endswith("/robots.txt"):
            return FetchedPage(url, url, 200, "text/plain", self.robots)
        answers = self.script.get(url.removeprefix(HOST), [200])
        answer = answers.pop(0) if len(answers) > 1 else answers[0]
        if isinstance(answer, FetchError):
            raise answer
        headers = {"retry-after": "7"} if answer == 503 else {}
        return FetchedPage(url, url, answer, "text/html", "<p>hi</p>", headers=headers)


async def _polite(
    script: dict[str, list[int | FetchError]] | None = None,
    *,
    robots: str = ROBOTS,
    **settings: float,
) -> tuple[PoliteFetcher, FakeFetcher, FakeClock, Tally]:
    clock = FakeClock()
    politeness = PolitenessSettings(
        **{"requests_per_second": 0, "concurrency_per_host": 1, "retries": 2, **settings}
    )
    tally = Tally()
    gate = Gate(
        politeness,
        RobotsPolicy("deepcrawl"),
        HostLimiter(politeness, clock),
        same_host(HOST + "/"),
        tally=tally,
    )
    fake = FakeFetcher(clock, script or {}, robots)
    await gate.open(HOST + "/", fake)
    assert tally.requests == 1  # robots.txt, read through the gate
    tally.requests = 0
    return gate.wrap(fake), fake, clock, tally


async def test_a_url_out_of_scope_is_refused_unsent() -> None:
    polite, fake, _clock, tally = await _polite()
    with pytest.raises(BlockedError, match="out of the crawl's scope"):
        await polite.fetch("http://b.test/x")
    tried = await polite.attempt("ftp://a.test/x")
    assert (tried.kind, tried.reason, tried.retry_in) == (
        BlockedError,
        "out of the crawl's scope (not fetched)",
        None,
    )
    assert [url for url, _ in fake.sent] == [HOST + "/robots.txt"]  # read by open()
    assert tally.requests == 0


def test_the_scope_is_the_start_hosts_or_the_prefix() -> None:
    assert in_scope("https://A.test/x", HOST + "/")  # the host as scope spells it
    assert not in_scope("http://a.test:8080/x", HOST + "/")  # another port
    assert not in_scope("mailto:x@a.test", HOST + "/")
    assert in_scope(HOST + "/docs/1", HOST + "/", prefix=HOST + "/docs/")
    assert not in_scope(HOST + "/blog/1", HOST + "/", prefix=HOST + "/docs/")


async def test_a_url_robots_txt_disallows_is_refused_unsent() -> None:
    polite, fake, _clock, _tally = await _polite()
    with pytest.raises(BlockedError, match="disallowed by robots.txt"):
        await polite.fetch(HOST + "/private/1")
    assert not polite.gate.allowed(HOST + "/private/2")
    assert polite.gate.allowed(HOST + "/robots.txt")  # robots.txt itself is always allowed
    assert [url for url, _ in fake.sent] == [HOST + "/robots.txt"]


async def test_requests_to_a_host_are_spaced_by_its_crawl_delay() -> None:
    polite, fake, clock, tally = await _polite(requests_per_second=10)
    for n in range(3):
        page = await polite.fetch(f"{HOST}/p/{n}")
        assert page.status == 200
    starts = [at for url, at in fake.sent if "/p/" in url]
    # robots.txt's Crawl-delay (2 s) is longer than the rate's 0.1 s: it holds
    assert [b - a for a, b in itertools.pairwise(starts)] == pytest.approx([2.0, 2.0])
    # robots.txt took the host's first turn, at the rate, before its Crawl-delay was known
    assert clock.slept == pytest.approx([0.1, 2.0, 2.0])
    assert tally.requests == 3


async def test_a_503_is_retried_after_its_retry_after_and_holds_the_host_back() -> None:
    polite, fake, clock, tally = await _polite({"/busy": [503, 200]})
    tried = await polite.fetch_retrying(HOST + "/busy")
    assert tried.kind is None
    assert tried.page is not None
    assert tried.page.status == 200
    assert tried.attempt == 2
    assert clock.slept == [7.0]  # Retry-After: 7, not the exponential 0.5 s
    assert (tally.requests, tally.retries) == (2, 1)
    # the whole host waited: a request to another URL sent meanwhile would have waited too
    first, second = [at for url, at in fake.sent if url.endswith("/busy")]
    assert second - first == 7.0


async def test_one_attempt_says_when_to_try_again() -> None:
    polite, _fake, _clock, _tally = await _polite(
        {"/down": [NetworkError(HOST + "/down", "reset")]}
    )
    tried = await polite.attempt(HOST + "/down", attempt=1)
    assert (tried.kind, tried.status, tried.retry_in) == (NetworkError, 0, 0.5)
    tried = await polite.attempt(HOST + "/down", attempt=2)
    assert tried.retry_in == 1.0  # exponential back-off without Retry-After


async def test_the_url_is_given_up_after_its_retries() -> None:
    polite, fake, clock, tally = await _polite({"/gone": [500]}, robots="")
    tried = await polite.fetch_retrying(HOST + "/gone")
    assert (tried.kind, tried.status, tried.retry_in, tried.attempt) == (
        HTTPStatusError,
        500,
        None,
        3,
    )
    assert tried.reason == "HTTP status 500 (after 3 attempts)"
    assert clock.slept == [0.5, 1.0]
    assert (tally.requests, tally.retries) == (3, 2)
    assert len([url for url, _ in fake.sent if url.endswith("/gone")]) == 3


async def test_an_answer_that_is_no_transient_failure_is_final() -> None:
    polite, _fake, clock, tally = await _polite({"/missing": [404]})
    tried = await polite.fetch_retrying(HOST + "/missing")
    assert tried.kind is None
    assert tried.page is not None
    assert tried.page.status == 404
    assert (tried.attempt, tally.retries, clock.slept) == (1, 0, [])


async def test_fetch_retries_a_transient_failure_and_gives_the_last_answer() -> None:
    polite, fake, _clock, tally = await _polite({"/busy": [503, 503, 200], "/gone": [500]})
    page = await polite.fetch(HOST + "/busy")
    assert page.status == 200
    assert (tally.requests, tally.retries) == (3, 2)
    page = await polite.fetch(HOST + "/gone")  # the retries spent: the last answer comes back
    assert page.status == 500
    assert len([url for url, _ in fake.sent if url.endswith("/gone")]) == 3


async def test_fetch_raises_the_last_error_once_its_retries_are_spent() -> None:
    down = NetworkError(HOST + "/down", "reset")
    polite, fake, clock, _tally = await _polite({"/down": [down]}, robots="")
    with pytest.raises(NetworkError):
        await polite.fetch(HOST + "/down")
    assert len([url for url, _ in fake.sent if url.endswith("/down")]) == 3
    assert clock.slept == [0.5, 1.0]


async def test_a_throttled_answer_pauses_the_host_for_a_request_whose_turn_was_reserved() -> None:
    # two requests in flight to the host at once: the second had its turn reserved (one second
    # after the first) before the first was answered 503 with Retry-After: 7
    polite, fake, _clock, _tally = await _polite(
        {"/busy": [503, 200]}, requests_per_second=1, concurrency_per_host=2
    )
    await asyncio.gather(polite.fetch(HOST + "/busy"), polite.fetch(HOST + "/other"))
    busy = next(at for url, at in fake.sent if url.endswith("/busy"))
    other = next(at for url, at in fake.sent if url.endswith("/other"))
    assert other - busy >= 7.0


async def test_a_caller_may_refuse_the_retries_its_budget_cannot_pay() -> None:
    polite, fake, _clock, tally = await _polite({"/gone": [NetworkError(HOST + "/gone", "reset")]})
    left = [1]  # one request left for retries

    def again() -> bool:
        if not left[0]:
            return False
        left[0] -= 1
        return True

    tried = await polite.fetch_retrying(HOST + "/gone", again=again)
    assert (tried.kind, tried.retry_in, tried.attempt) == (NetworkError, None, 2)
    assert tried.reason == HOST + "/gone: reset (no request left to try again)"
    assert len([url for url, _ in fake.sent if url.endswith("/gone")]) == 2
    assert tally.retries == 1  # the refused retry was never scheduled
