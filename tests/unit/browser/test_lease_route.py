"""A pooled page's route handler and the gate it is given: what goes out passes it, what it
refuses never goes out, and a probed page stays under the probe's rules.

Fakes stand for Playwright's route, request, frame, page, context and browser; the handler
(:meth:`PageLease._decide`) and :meth:`PageLease.open` are the real ones.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from deepcrawl.browser.access import SiteAccess
from deepcrawl.browser.lease import PageLease
from deepcrawl.browser.scope import Scope
from deepcrawl.page.fetched import FetchedPage
from deepcrawl.safety import SafetyRule
from deepcrawl.settings import Settings

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from deepcrawl.safety import Sender

SITE = "http://a.test"


@dataclass
class FakePage:
    """A page; its main frame has no parent."""

    main_frame: FakeFrame = field(init=False)

    def __post_init__(self) -> None:
        self.main_frame = FakeFrame(self, None)


@dataclass
class FakeFrame:
    page: FakePage
    parent_frame: FakeFrame | None


@dataclass
class FakeRequest:
    url: str
    method: str = "GET"
    resource_type: str = "document"
    navigation: bool = False
    frame: FakeFrame | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def is_navigation_request(self) -> bool:
        return self.navigation


@dataclass
class FakeRoute:
    """Records how the request was answered, and whether the gate's passage was held then."""

    gate: RecordingGate
    answers: list[tuple[str, bool]] = field(default_factory=list)

    async def abort(self, _code: str = "") -> None:
        self.answers.append(("abort", self.gate.inside))

    async def fulfill(self, **_kwargs: Any) -> None:
        self.answers.append(("fulfill", self.gate.inside))

    async def fallback(self) -> None:  # handed on to the access's route, which sends it
        self.answers.append(("send", self.gate.inside))


@dataclass
class RecordingGate:
    """A :class:`~deepcrawl.browser.gate.RequestGate` that refuses what it is told to and
    records what it is asked."""

    refuse: dict[str, str] = field(default_factory=dict)
    asked: list[tuple[str, str, str]] = field(default_factory=list)
    passed: list[tuple[str, bool]] = field(default_factory=list)
    answered: list[tuple[str, int, str | None]] = field(default_factory=list)
    inside: bool = False

    def page_refusal(self, url: str, *, method: str, sender: Sender) -> str | None:
        self.asked.append((method, url, sender))
        return self.refuse.get(url)

    @contextlib.asynccontextmanager
    async def page_passage(self, url: str, *, navigation: bool) -> AsyncIterator[None]:
        self.passed.append((url, navigation))
        self.inside = True
        try:
            yield
        finally:
            self.inside = False

    def page_answer(self, url: str, status: int, retry_after: str | None) -> None:
        self.answered.append((url, status, retry_after))

    def retried(self) -> None:
        pass


def _lease(gate: RecordingGate) -> tuple[PageLease, FakePage]:
    page = FakePage()
    settings = Settings()
    lease = PageLease(
        page=cast("Any", page),
        context=cast("Any", None),
        settings=settings,
        scope=Scope(("a.test",), implicit=False),
        rule=SafetyRule(),
        click_rule=SafetyRule(),
        gate=gate,
    )
    return lease, page


async def _ask(lease: PageLease, gate: RecordingGate, request: FakeRequest) -> list[str]:
    route = FakeRoute(gate)
    await lease._decide(cast("Any", route), cast("Any", request))
    return [f"{how}{' in passage' if inside else ''}" for how, inside in route.answers]


async def test_what_goes_out_passes_the_gate_and_is_sent_inside_its_passage() -> None:
    gate = RecordingGate()
    lease, page = _lease(gate)
    nav = FakeRequest(SITE + "/book/1", navigation=True, frame=page.main_frame)
    assert await _ask(lease, gate, nav) == ["send in passage"]
    script = FakeRequest(SITE + "/api/search?q=x", method="POST", resource_type="fetch")
    assert await _ask(lease, gate, script) == ["send in passage"]
    assert gate.asked == [("GET", nav.url, "page"), ("POST", script.url, "script")]
    # the main-frame navigation may be the fetch a polite fetcher admitted; the script's not
    assert gate.passed == [(nav.url, True), (script.url, False)]


async def test_a_request_the_gate_refuses_never_goes_out() -> None:
    gate = RecordingGate(refuse={SITE + "/private/app.js": "disallowed by robots.txt"})
    lease, _page = _lease(gate)
    refused = FakeRequest(SITE + "/private/app.js", resource_type="script")
    assert await _ask(lease, gate, refused) == ["abort"]
    assert gate.passed == []
    assert lease.blocked == [("GET", refused.url, "disallowed by robots.txt")]


async def test_answers_without_the_network_never_reach_the_gate() -> None:
    gate = RecordingGate()
    lease, page = _lease(gate)
    image = FakeRequest(SITE + "/cover.png", resource_type="image")
    outside = FakeRequest("http://b.test/x.js", resource_type="script")
    assert await _ask(lease, gate, image) == ["abort"]
    assert await _ask(lease, gate, outside) == ["abort"]
    lease.documents[SITE + "/"] = (200, "text/html", b"<p>held</p>", False)
    held = FakeRequest(SITE + "/", navigation=True, frame=page.main_frame)
    assert await _ask(lease, gate, held) == ["fulfill"]
    assert gate.asked == []
    assert gate.passed == []


async def test_a_probed_page_stays_under_the_probes_rules() -> None:
    gate = RecordingGate()
    lease, page = _lease(gate)
    lease.probing = True  # probe_page sets it; only leaving the document sets it back
    lease.begin()  # a new fetch's records: the rules stay
    post = FakeRequest(SITE + "/api/menu", method="POST", resource_type="fetch")
    assert await _ask(lease, gate, post) == ["send in passage"]  # the gate decides…
    assert gate.asked[-1] == ("POST", post.url, "probe")  # …as for a probe
    leave = FakeRequest(SITE + "/logout-now", navigation=True, frame=page.main_frame)
    assert await _ask(lease, gate, leave) == ["fulfill"]  # never sent: answered with a 204
    go = FakeRequest(SITE + "/catalogue", navigation=True, frame=page.main_frame)
    assert await _ask(lease, gate, go) == ["fulfill"]
    assert lease.captured == [("route", SITE + "/catalogue")]  # a link found, not a request
    assert [url for _method, url, _why in lease.blocked] == [leave.url]
    lease.own_navigation = SITE + "/start"  # the probe's own reload goes out, as the page's
    own = FakeRequest(SITE + "/start", navigation=True, frame=page.main_frame)
    assert await _ask(lease, gate, own) == ["send in passage"]
    assert gate.asked[-1] == ("GET", own.url, "page")


async def test_a_page_asked_for_again_after_its_fetch_is_a_request_of_its_own() -> None:
    gate = RecordingGate()
    lease, page = _lease(gate)
    lease.hold(SITE + "/moved", None)  # nothing fetched before: the navigation is the fetch
    nav = FakeRequest(SITE + "/moved", navigation=True, frame=page.main_frame)
    await _ask(lease, gate, nav)
    redirected = FetchedPage(SITE + "/moved", SITE + "/new", 200, "text/html", "<p>x</p>")
    lease.hold(SITE + "/moved", redirected)  # fetched a moment ago, not reusable as it is
    await _ask(lease, gate, nav)
    assert gate.passed == [(nav.url, True), (nav.url, False)]


@dataclass
class FakeContext:
    """Records the order in which the lease sets its context up."""

    calls: list[str] = field(default_factory=list)

    async def add_init_script(self, script: str) -> None:
        self.calls.append("init script")

    async def route(self, _pattern: str, _handler: object) -> None:
        self.calls.append("route")

    async def new_page(self) -> FakeOpenedPage:
        self.calls.append("page")
        return FakeOpenedPage()

    def on(self, _event: str, _handler: object) -> None:
        return None


class FakeOpenedPage:
    def set_default_timeout(self, _ms: float) -> None:
        return None

    def set_default_navigation_timeout(self, _ms: float) -> None:
        return None

    def on(self, _event: str, _handler: object) -> None:
        return None


@dataclass
class FakeBrowser:
    context: FakeContext = field(default_factory=FakeContext)

    async def new_context(self, **_options: Any) -> FakeContext:
        return self.context


async def test_the_route_is_in_place_before_the_context_has_a_page() -> None:
    browser = FakeBrowser()
    access = SiteAccess.from_settings(Settings())
    await PageLease.open(
        cast("Any", browser), Settings(), Scope(("a.test",), implicit=False), access=access
    )
    calls = browser.context.calls
    assert calls.index("route") < calls.index("page")
    assert calls.count("init script") == 2
    assert calls.index("init script") < calls.index("page")
