"""Waiting for an action's effect (:func:`deepcrawl.browser.settle.settle`), on a fake page that
never changes: an action with no effect is given up at the timeout, or sooner where the caller
says it may well have none (a scroll at a list's end)."""

from __future__ import annotations

import time
from typing import Any, cast

from playwright.async_api import Page

from deepcrawl.browser.settle import ActionMark, Traffic, settle


class StillPage:
    """A loaded page whose DOM never changes and that starts no request."""

    main_frame = None

    async def evaluate(self, _script: str) -> list[Any]:
        return [3, "complete", False, True, 1, 0]

    def on(self, _event: str, _handler: object) -> None:
        pass

    def remove_listener(self, _event: str, _handler: object) -> None:
        pass


async def _wait(**kwargs: Any) -> float:
    page = cast("Page", StillPage())
    with Traffic(page) as traffic:
        started = time.monotonic()
        await settle(page, traffic, after=ActionMark(0, 3), **kwargs)
        return time.monotonic() - started


async def test_an_action_without_effect_is_given_up_at_the_timeout() -> None:
    assert await _wait(timeout_s=1.0) >= 1.0


async def test_an_action_that_may_have_none_is_given_up_after_its_effect_wait() -> None:
    assert await _wait(timeout_s=30.0, effect_s=0.2) < 10.0
