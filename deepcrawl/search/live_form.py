"""Acting on a search form live in Chromium: its fields set, then submitted as a user would.

The form filler (:mod:`deepcrawl.search.filler`) finds the form on its page again at each
query; these two steps act on it. Which control to press and which box or option to set are
:mod:`deepcrawl.search.controls`' rules, read from the form alone; here they are done.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from deepcrawl.errors import FormError
from deepcrawl.forms.fields import TEXT_INPUT_TYPES
from deepcrawl.search.controls import checkbox_of, radio_of, submit_controls

if TYPE_CHECKING:
    from collections.abc import Mapping

    from playwright.async_api import Page

    from deepcrawl.page.form import Form, FormField

__all__ = ["fill_live", "submit_live"]

#: Longest wait for a submit control to be clickable before the next way is tried.
_CLICK_TIMEOUT_MS = 3000


async def fill_live(
    page: Page,
    live: Form,
    *,
    query: FormField | None,
    keyword: str,
    values: Mapping[str, str],
    defaults: Mapping[str, str],
    sizes: Mapping[str, str],
    timeout_ms: float,
) -> None:
    """Type ``keyword`` into ``query`` and set ``values`` (by field name: selects, radios,
    checkboxes, text boxes); a select not in ``values`` takes its ``sizes`` choice (a page-size
    select at its largest), else its value in ``defaults`` (as the form was found).

    Raises:
        FormError: a value names no option of its select, or a field is gone from the form.
    """
    if not live.formless:  # the result page opens where the crawl reads it, not in a new tab
        await page.eval_on_selector(live.locator, "f => f.removeAttribute('target')")
    if query is not None:
        await page.locator(query.locator).first.fill(keyword, timeout=timeout_ms)
    for field in live.fields:
        if field.tag != "select" or not field.name or not field.visible:
            continue
        usual = sizes.get(field.name, defaults.get(field.name, field.value))
        wanted = values.get(field.name, usual)
        if wanted != field.value:
            if wanted not in {o.value for o in field.options}:
                raise FormError(f"the select {field.name!r} has no option {wanted!r}")
            await page.locator(field.locator).first.select_option(wanted, timeout=timeout_ms)
    for name, value in values.items():
        radio = radio_of(live, name, value)
        if radio is not None:
            await page.locator(radio.locator).first.check(timeout=timeout_ms)
            continue
        target = live.field(name)
        if target is None:
            raise FormError(f"the field {name!r} is not in the form any more")
        if target.tag == "select" or target is query:
            continue
        if target.tag == "textarea" or target.type in TEXT_INPUT_TYPES:
            await page.locator(target.locator).first.fill(value, timeout=timeout_ms)
        elif target.type == "checkbox":
            checkbox = checkbox_of(live, name, value)
            await page.locator(checkbox.locator).first.check(timeout=timeout_ms)


async def submit_live(
    page: Page, live: Form, query: FormField | None, *, timeout_ms: float
) -> bool:
    """Submit ``live``: its first submit control shown that can be clicked, else Enter in its
    query box ``query``, else the form's own submission. True when only Enter was pressed in a
    box of no ``<form>``: a key press that may well do nothing.

    Raises:
        FormError: no way to submit it (a group of a page-wide form whose buttons all fail, a
            box of no form with no query field).
    """
    for control in submit_controls(live):
        button = page.locator(control.locator).first
        try:
            if not await button.is_visible():
                continue  # not shown (a "More results" the answer will show): no way
            await button.click(timeout=min(timeout_ms, _CLICK_TIMEOUT_MS), no_wait_after=True)
        except PlaywrightError:
            continue  # covered or gone: try the next way
        return False
    if live.group:  # Enter, or a submission naming no button, may be another group's
        raise FormError(f"no way to submit the group {live.group} of {live.locator}")
    if query is not None:
        await page.locator(query.locator).first.press(
            "Enter", timeout=timeout_ms, no_wait_after=True
        )
        return live.formless
    if live.formless:
        raise FormError(f"no way to submit the form {live.locator}")
    await page.eval_on_selector(
        live.locator, "f => (f.requestSubmit ? f.requestSubmit() : f.submit())"
    )
    return False
