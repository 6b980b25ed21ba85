"""JavaScript link probing (xCrawl, section 6.1): click and hover what scripts made clickable.

Menus built with scripts hide links from a crawler that reads anchors: the URL only exists in
an ``onclick`` handler or appears in the DOM after a hover. Probing finds the clickable elements
that are not plain links — ``on*`` handler attributes or properties, listeners added with
``addEventListener`` (found through the DevTools protocol, ``DOMDebugger.getEventListeners``),
ARIA roles, buttons, ``cursor: pointer`` — hovers and clicks each, and records:

* every navigation the action starts, captured without leaving the page (the Navigation API's
  ``navigate`` event cancelled by the init script, the pool's route answering 204, and
  ``window.open`` overridden);
* every link that appears in the DOM afterwards.

When an action changes the DOM, the new state is explored depth-first (xCrawl's depth-first
search over a page's states) up to :data:`PROBE_DEPTH`; the page is brought back to the state
being explored by moving the mouse away and pressing Escape, or else by reloading and replaying
the actions that led there. At the end the page is the same page at the same URL (reloaded if
needed).

Safety: elements whose words (text and attributes) the safety rule (:mod:`deepcrawl.safety`)
refuses are never touched; a probed page never sends a non-GET request, nor any request the
rule refuses, whatever its method — from the first action on until the probed document is left
behind, so that what a click sets off late (a timer, a beacon as the page unloads) is refused
too (:mod:`deepcrawl.browser.lease`); a navigation or popup URL a click produced is judged with
the element's text before it becomes a link.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from deepcrawl.browser._assets import script
from deepcrawl.browser.scope import strip_fragment
from deepcrawl.page.fetched import Link

if TYPE_CHECKING:
    from playwright.async_api import CDPSession, Page

    from deepcrawl.browser.lease import PageLease

__all__ = [
    "PROBE_DEPTH",
    "PROBE_MAX_ELEMENTS",
    "PROBE_MAX_RESTORES",
    "PROBE_TIMEOUT_S",
    "PROBE_WAIT_S",
    "ProbeReport",
    "mark_listeners",
    "probe_links",
    "probe_page",
]

logger = logging.getLogger(__name__)

#: Depth bound of the depth-first exploration of a page's DOM states: an action's new state
#: (an opened menu) is probed, the states its own actions open (a submenu) are not; the paper
#: gives no bound, and each level multiplies the actions.
PROBE_DEPTH = 2
#: Clickable elements probed per page at most (each is hovered and clicked): a page's menus
#: fit, a page of hundreds of buttons is cut short.
PROBE_MAX_ELEMENTS = 60
#: Reloads allowed per page to get back to a DOM state while probing.
PROBE_MAX_RESTORES = 15
#: Seconds allowed for probing one page; probing then stops, keeping what it found.
PROBE_TIMEOUT_S = 30.0
#: Longest wait, after a probe action, for the requests it started to finish.
PROBE_WAIT_S = 0.5

_JS = "deepcrawl.browser.js"
_HOVER_TYPES = frozenset({"mouseover", "mouseenter", "pointerover", "pointerenter"})
_LISTENER_TYPES = frozenset(
    {
        "click",
        "dblclick",
        "mousedown",
        "mouseup",
        "mouseover",
        "mouseenter",
        "pointerdown",
        "pointerup",
        "pointerover",
        "pointerenter",
    }
)
_KEY_TYPES = frozenset({"keydown", "keyup", "keypress"})
_MARK = "function (slots, ...els) { els.forEach((el, i) => window[slots[i]].push(el)); }"
_RESET = "window.__dcL = []; window.__dcK = []; window.__dcH = []; document"
#: Marks the page as probed (for good: ``js/init.js``) and probing (until the probe ends).
_PROBING = "() => { window.__dcProbed = true; window.__dcProbing = true; }"


@dataclass(slots=True)
class ProbeReport:
    """What probing one page did.

    Attributes:
        links: links found by probing (origin ``probe``), new relative to the page's links.
        actions: hovers and clicks performed.
        probed: ``(dom_path, text)`` of each element touched.
        refused: ``(dom_path, text, phrase)`` of each element left alone for safety.
        blocked: ``(method, url, why)`` of each request refused while probing.
        restores: reloads needed to get back to a DOM state.
    """

    links: list[Link] = field(default_factory=list)
    actions: int = 0
    probed: list[tuple[str, str]] = field(default_factory=list)
    refused: list[tuple[str, str, str]] = field(default_factory=list)
    blocked: list[tuple[str, str, str]] = field(default_factory=list)
    restores: int = 0


async def mark_listeners(page: Page, session: CDPSession | None = None) -> int:
    """Put the elements holding mouse listeners in ``window.__dcL`` (hover ones also in
    ``__dcH``), key listeners in ``__dcK``.

    Listeners added with ``addEventListener`` leave no trace in the DOM; the DevTools protocol
    lists them (with the node each is attached to) for the whole document in one call.

    Args:
        page: the page.
        session: a CDP session of that page to reuse (else one is opened and closed).

    Returns:
        How many (element, kind) marks were made.
    """
    cdp = session or await page.context.new_cdp_session(page)
    try:
        doc = await cdp.send("Runtime.evaluate", {"expression": _RESET, "objectGroup": "dc"})
        object_id = doc["result"]["objectId"]
        found = await cdp.send(
            "DOMDebugger.getEventListeners", {"objectId": object_id, "depth": -1, "pierce": False}
        )
        nodes: dict[tuple[int, str], None] = {}
        for item in found.get("listeners", []):
            backend_id = item.get("backendNodeId")
            if not backend_id:
                continue
            if item.get("type") in _LISTENER_TYPES:
                nodes[(backend_id, "__dcL")] = None
            if item.get("type") in _HOVER_TYPES:
                nodes[(backend_id, "__dcH")] = None
            elif item.get("type") in _KEY_TYPES:
                nodes[(backend_id, "__dcK")] = None
        slots: list[str] = []
        handles: list[dict[str, str]] = []
        for backend_id, slot in nodes:
            with contextlib.suppress(PlaywrightError):
                node = await cdp.send(
                    "DOM.resolveNode", {"backendNodeId": backend_id, "objectGroup": "dc"}
                )
                handles.append({"objectId": node["object"]["objectId"]})
                slots.append(slot)
        if handles:
            await cdp.send(
                "Runtime.callFunctionOn",
                {
                    "objectId": object_id,
                    "functionDeclaration": _MARK,
                    "arguments": [{"value": slots}, *handles],
                },
            )
        await cdp.send("Runtime.releaseObjectGroup", {"objectGroup": "dc"})
        return len(handles)
    finally:
        if session is None:
            with contextlib.suppress(PlaywrightError):
                await cdp.detach()


class _Prober:
    def __init__(
        self, lease: PageLease, known: list[Link], skip: set[str] | None, depth: int
    ) -> None:
        self.lease = lease
        self.page = lease.page
        self.depth = depth
        self.base_url = strip_fragment(lease.page.url)
        self.seen = {link.url for link in known} | {self.base_url}
        self.report = ProbeReport()
        self.done: set[str] = skip if skip is not None else set()
        self.deadline = time.monotonic() + PROBE_TIMEOUT_S
        self.captured_read = 0
        self.generation = 0

    def out_of_budget(self) -> bool:
        return self.report.actions >= PROBE_MAX_ELEMENTS * 2 or time.monotonic() > self.deadline

    async def install(self) -> None:
        source = f"window.__dcLinks = {script(_JS, 'links.js')};\n{script(_JS, 'probe.js')}"
        await self.page.evaluate(source)
        self.generation += 1
        with contextlib.suppress(PlaywrightError):
            await mark_listeners(self.page, await self.lease.cdp())

    async def signature(self) -> str:
        value: str = await self.page.evaluate("() => window.__dcProbe.signature()")
        return value

    async def candidates(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = await self.page.evaluate(
            "a => window.__dcProbe.candidates(a)", {"max": PROBE_MAX_ELEMENTS}
        )
        cands: list[dict[str, Any]] = []
        for cand in found:
            phrase = self.lease.click_rule.text_reason(cand["words"])
            if phrase is None:
                cand["gen"] = self.generation
                cands.append(cand)
            elif (entry := (cand["path"], cand["text"], phrase)) not in self.report.refused:
                self.report.refused.append(entry)
        cands.sort(key=lambda c: not c["visible"])  # visible first, keeps document order
        return cands

    async def act(self, cand: dict[str, Any], kind: str) -> dict[str, Any]:
        """Hover or click ``cand``; return the page's state afterwards (and record its links)."""
        point = await self.page.evaluate("i => window.__dcProbe.point(i)", cand["i"])
        if point == "gone":
            return {"nav": [], "sig": "", "url": self.page.url, "links": []}
        if point is not None:
            x, y = point
            if kind == "hover":
                await self.page.mouse.move(x, y)
            else:
                await self.page.mouse.click(x, y)
        else:
            await self.page.evaluate(
                "([i, k]) => window.__dcProbe.synthetic(i, k)", [cand["i"], kind]
            )
        self.report.actions += 1
        state: dict[str, Any] = await self.page.evaluate("() => window.__dcProbe.after(true)")
        if self.lease.inflight > 0:  # the action started requests: let them land, look again
            end = time.monotonic() + PROBE_WAIT_S
            while self.lease.inflight > 0 and time.monotonic() < end:
                await asyncio.sleep(0.02)
            later: dict[str, Any] = await self.page.evaluate("() => window.__dcProbe.after(true)")
            later["nav"] = state["nav"] + later["nav"]
            state = later
        self.harvest(state, cand)
        return state

    def record(self, url: str, text: str, path: str) -> None:
        if not url.startswith(("http://", "https://")):
            return
        url = strip_fragment(url)
        if url in self.seen:
            return
        self.seen.add(url)
        if why := self.lease.rule.reason(url, text):  # a captured navigation or popup, unsent
            self.lease.blocked.append(("GET", url, why))
            return
        self.report.links.append(Link(url=url, text=text, origin="probe", dom_path=path))

    def harvest(self, state: dict[str, Any], cand: dict[str, Any] | None) -> None:
        text = cand["text"] if cand else ""
        path = cand["path"] if cand else ""
        for entry in state["nav"]:
            self.record(str(entry[1]), text, path)
        captured = self.lease.captured[self.captured_read :]
        self.captured_read = len(self.lease.captured)
        for _how, url in captured:
            self.record(url, text, path)
        for url, link_text, link_path, _rel, _kind in state["links"]:
            self.record(url, link_text, link_path)

    async def reload(self) -> None:
        self.report.restores += 1
        self.lease.own_navigation = self.base_url
        try:
            await self.page.goto(self.base_url, wait_until="load")
        finally:
            self.lease.own_navigation = None
        await self.install()
        await self.page.evaluate(_PROBING)

    async def find(self, key: str, path: list[tuple[str, str]]) -> dict[str, Any] | None:
        """Candidate ``key`` in the current DOM; reload and replay ``path`` when it is gone or
        the page has moved (None when even that fails or the budget is spent)."""
        if strip_fragment(self.page.url) == self.base_url:
            match = next((c for c in await self.candidates() if c["key"] == key), None)
            if match is not None:
                return match
        if self.report.restores >= PROBE_MAX_RESTORES or self.out_of_budget():
            return None
        await self.reload()
        for step_key, kind in path:
            step = next((c for c in await self.candidates() if c["key"] == step_key), None)
            if step is None:
                return None
            await self.act(step, kind)
        return next((c for c in await self.candidates() if c["key"] == key), None)

    async def explore(
        self, path: list[tuple[str, str]], depth: int, sig: str, parent_keys: set[str]
    ) -> None:
        """Probe every new candidate of the current DOM state, depth-first.

        States are restored lazily: an action runs in whatever state the page is in as long as
        its element is still there at the same URL; otherwise the page is reloaded and ``path``
        replayed.
        """
        if depth > 0:  # the action may have added elements with listeners of their own
            with contextlib.suppress(PlaywrightError):
                await mark_listeners(self.page, await self.lease.cdp())
        cands = [c for c in await self.candidates() if c["key"] not in parent_keys]
        keys = parent_keys | {c["key"] for c in cands}
        for first in cands:
            if first["key"] in self.done:
                continue
            if self.out_of_budget():
                return
            self.done.add(first["key"])
            self.report.probed.append((first["path"], first["text"]))
            for kind in ("hover", "click") if first["hover"] else ("click",):
                cand: dict[str, Any] | None = first
                stale = first["gen"] != self.generation
                if stale or strip_fragment(self.page.url) != self.base_url:
                    cand = await self.find(first["key"], path)
                if cand is None:
                    break
                state = await self.act(cand, kind)
                if state["sig"] != sig and depth + 1 < self.depth:
                    await self.explore([*path, (first["key"], kind)], depth + 1, state["sig"], keys)
            if strip_fragment(self.page.url) != self.base_url:
                await self.find(first["key"], path)


async def probe_page(
    lease: PageLease, known: list[Link], *, skip: set[str] | None = None, depth: int = PROBE_DEPTH
) -> ProbeReport:
    """Probe the page loaded in ``lease`` and report what was found and done.

    Args:
        lease: a pooled page with the page to probe loaded.
        known: links already found on the page (only new URLs are reported).
        skip: keys of elements probed on earlier pages (DOM path, text and a hash of the
            element's markup): they are not probed again, and the keys probed now are added —
            a site-wide menu is probed once per site, not once per page. None: probe all.
        depth: the depth bound of the exploration of the page's DOM states (1: the actions
            of the page as loaded only).

    Returns:
        The report; the page is left at its URL in its original DOM state, and under the
        probe's rules until its pool leaves the probed document behind (:attr:`PageLease.probing
        <deepcrawl.browser.lease.PageLease.probing>`).
    """
    page = lease.page
    prober = _Prober(lease, known, skip, depth)
    lease.inflight = 0
    page.on("request", lease.on_request)
    page.on("requestfinished", lease.on_request_done)
    page.on("requestfailed", lease.on_request_done)
    lease.probing = True
    try:
        await prober.install()
        base_sig = await prober.signature()
        await page.evaluate(_PROBING)
        try:
            await prober.explore([], 0, base_sig, set())
        except PlaywrightError:
            if lease.crashed:
                raise
        end = time.monotonic() + PROBE_WAIT_S
        while lease.inflight > 0 and time.monotonic() < end:  # late requests of the last action
            await asyncio.sleep(0.02)
        with contextlib.suppress(PlaywrightError):
            prober.harvest(await page.evaluate("() => window.__dcProbe.after(false)"), None)
        changed = strip_fragment(page.url) != strip_fragment(prober.base_url)
        if changed or await prober.signature() != base_sig:
            await prober.reload()
        await page.evaluate("() => { window.__dcProbing = false; }")
    finally:  # ``lease.probing`` stays: what the actions set off may come later still
        page.remove_listener("request", lease.on_request)
        page.remove_listener("requestfinished", lease.on_request_done)
        page.remove_listener("requestfailed", lease.on_request_done)
    prober.report.blocked = list(lease.blocked)
    for _path, text, phrase in prober.report.refused:
        logger.debug(
            "probing %s: %r not clicked, the safety rule refuses %r", page.url, text, phrase
        )
    for method, url, why in prober.report.blocked:
        logger.debug("probing %s: %s %s refused (%s)", page.url, method, url, why)
    return prober.report


async def probe_links(
    lease: PageLease, known: list[Link], *, skip: set[str] | None = None
) -> list[Link]:
    """The links probing finds on the page loaded in ``lease`` (see :func:`probe_page`)."""
    return (await probe_page(lease, known, skip=skip)).links
