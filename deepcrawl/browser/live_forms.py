"""Form discovery in the live DOM of a rendered page.

Reads every ``<form>`` — fields through the form's ``elements`` collection (so inputs attached
with ``form=`` count and an input named ``action`` or ``elements`` cannot shadow anything) — and
every group of inputs outside a form that a script submits (a button or a clicked element next
to it, or a key listener on the input). A ``<form>`` holding several logical forms (a search
box beside a log-in box, each with its button) is returned as its groups, as the static parser
splits the live DOM's HTML (:mod:`deepcrawl.page.groups`). Listeners added with
``addEventListener`` are found through the DevTools protocol
(:func:`deepcrawl.browser.probe.mark_listeners`), only when the page has something that needs
them (a form without a submit control, inputs outside forms).

Labels: a ``<label>``'s own text, never the option texts of a select it wraps. Locators: CSS
selectors checked for uniqueness on the page (id, name, the names of the form's fields, its
action, else its structural path), so forms with neither id nor name are found again on a later
render. ``built_by_script`` compares each form with the forms of the HTML the server sent
(parsed by :func:`deepcrawl.page.static_forms.parse_forms`).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from deepcrawl.browser._assets import script
from deepcrawl.browser.scope import strip_fragment
from deepcrawl.page.form import Form
from deepcrawl.page.groups import regroup
from deepcrawl.page.static_forms import parse_forms

if TYPE_CHECKING:
    from playwright.async_api import CDPSession, Page

__all__ = ["discover_forms", "mark_built_by_script"]


async def discover_forms(
    page: Page, *, server_html: str | None = None, session: CDPSession | None = None
) -> list[Form]:
    """Every form of the page's live DOM, formless groups last.

    Args:
        page: a loaded page.
        server_html: the HTML the server sent for it; when given, forms absent from it are
            marked ``built_by_script``.
        session: a CDP session of the page to reuse for finding listeners.

    Returns:
        The forms in document order.

    Raises:
        playwright.async_api.Error: the page went away (the caller translates it).
    """
    from deepcrawl.browser.probe import mark_listeners

    page_url = strip_fragment(page.url)
    source = script("deepcrawl.browser.js", "discover.js")
    found: dict[str, Any] = await page.evaluate(source, {"pageUrl": page_url})
    if found["wantListeners"]:
        with contextlib.suppress(PlaywrightError):
            await mark_listeners(page, session)
            found = await page.evaluate(source, {"pageUrl": page_url})
    forms = [Form.model_validate(raw) for raw in found["forms"]]
    if any(len(form.submits) > 1 for form in forms):  # one <form> may hold several
        forms = regroup(forms, parse_forms(await page.content(), page_url, formless=False))
    if server_html is not None:
        forms = mark_built_by_script(forms, parse_forms(server_html, page_url))
    return forms


def _names(form: Form) -> set[str]:
    return {f.name for f in form.fields if f.name} | {f.id for f in form.fields if f.id}


def _same(live: Form, static: Form) -> bool:
    if live.formless != static.formless:
        return False
    if live.formless:
        return bool(_names(live) & _names(static))
    if live.id or static.id:
        return live.id == static.id
    if live.name or static.name:
        return live.name == static.name
    if live.action != static.action:
        return False
    live_names, static_names = _names(live), _names(static)
    return bool(live_names & static_names) or not (live_names or static_names)


def mark_built_by_script(live: list[Form], static: list[Form]) -> list[Form]:
    """Mark the live forms that have no counterpart among the server's (static) forms.

    A counterpart has the same id, else the same name, else the same action and a shared
    field name (formless groups: a shared field name or id).
    """
    return [
        form
        if any(_same(form, other) for other in static)
        else form.model_copy(update={"built_by_script": True})
        for form in live
    ]
