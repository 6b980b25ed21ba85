"""A settled result page, read in the browser: its links, short texts and result controls.

The form filler waits for a page to settle (:func:`deepcrawl.browser.settle.settle`), then reads
it here as a :class:`~deepcrawl.search.results.ResultPage`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl.browser._assets import script
from deepcrawl.browser.render import collect_links
from deepcrawl.browser.scope import strip_fragment
from deepcrawl.search.pagination import MORE_TEXT, NEXT_TEXT
from deepcrawl.search.results import Clickable, ResultPage

if TYPE_CHECKING:
    from playwright.async_api import Page

    from deepcrawl.safety import SafetyRule

__all__ = ["snapshot"]


async def snapshot(
    page: Page,
    *,
    status: int,
    rule: SafetyRule,
    fetched_url: str = "",
) -> ResultPage:
    """The page as a :class:`ResultPage`: links, short texts, and result-bringing controls.

    Args:
        page: a settled page.
        status: the status to record for it.
        rule: the safety rule; a control whose text it refuses is never offered for clicking.
        fetched_url: what to record as fetched for it (default: the page URL).

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
    url = strip_fragment(page.url)
    return ResultPage(
        url=url,
        status=status,
        title=found["title"],
        blocks=list(found["blocks"]),
        links=links,
        clickables=controls,
        fetched_url=fetched_url or url,
    )
