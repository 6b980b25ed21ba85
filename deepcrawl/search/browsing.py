"""A settled result page, read in the browser: its links, short texts and result controls.

The form filler waits for a page to settle (:func:`deepcrawl.browser.settle.settle`), then reads
it here as a :class:`~deepcrawl.search.results.ResultPage` — or learns that there is none to
read (:func:`refused_navigation`) — and whether its list reports more than it shows
(:func:`reports_more`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl.browser._assets import script
from deepcrawl.browser.render import collect_links
from deepcrawl.browser.scope import strip_fragment
from deepcrawl.errors import BlockedError
from deepcrawl.page.form_turns import form_turns
from deepcrawl.page.html import parse_html
from deepcrawl.search.judge import classify_links
from deepcrawl.search.pagination import MORE_TEXT, NEXT_TEXT
from deepcrawl.search.results import Clickable, ResultPage, safe_turns, total_results

if TYPE_CHECKING:
    from playwright.async_api import Page

    from deepcrawl.browser.lease import PageLease
    from deepcrawl.page.form import Form
    from deepcrawl.safety import SafetyRule
    from deepcrawl.search.judge import Judge

__all__ = ["refused_navigation", "reports_more", "snapshot"]


def reports_more(pages: list[ResultPage], judge: Judge) -> bool:
    """Whether a query's first page reports more results than its pages show as results."""
    total = total_results(pages[0])
    if total is None:
        return False
    shown = sum(link.role == "result" for link in classify_links(pages, judge.chrome))
    return 0 < shown < total


def refused_navigation(lease: PageLease, action: str) -> None:
    """Raise when the navigation a submission to ``action`` set off was refused before it went
    out (out of scope, disallowed by robots.txt): the page shows no answer to read.

    Raises:
        BlockedError: naming the refused navigation.
    """
    if lease.blocked_navigation is not None:
        raise BlockedError(action, f"refused: {lease.blocked_navigation}")


async def snapshot(
    page: Page,
    *,
    status: int,
    rule: SafetyRule,
    fetched_url: str = "",
    form: Form | None = None,
) -> ResultPage:
    """The page as a :class:`ResultPage`: links, short texts, and result-bringing controls.

    Args:
        page: a settled page.
        status: the status to record for it.
        rule: the safety rule; a control whose text it refuses is never offered for clicking.
        fetched_url: what to record as fetched for it (default: the page URL).
        form: the search form (or group) whose results the page shows: the controls that
            submit its ``<form>`` to turn the page are read too (:attr:`ResultPage.turns`).

    Raises:
        playwright.async_api.Error: the page went away (the caller translates it).
    """
    found = await page.evaluate(script("deepcrawl.browser.js", "snapshot.js"))
    links = await collect_links(page)
    controls: list[Clickable] = []
    for locator, text in found["controls"]:
        if rule.text_reason(text):
            continue
        if MORE_TEXT.match(text):
            controls.append(Clickable(locator, text, "more"))
        elif NEXT_TEXT.match(text):
            controls.append(Clickable(locator, text, "next"))
        elif text.isdigit():
            controls.append(Clickable(locator, text, "number"))
    url = strip_fragment(page.url)
    turns = []
    if form is not None and not form.formless:
        root = parse_html(await page.content())
        turns = safe_turns(form_turns(root, form), rule) if root is not None else []
    return ResultPage(
        url=url,
        status=status,
        title=found["title"],
        blocks=list(found["blocks"]),
        links=links,
        clickables=controls,
        fetched_url=fetched_url or url,
        turns=turns,
    )
