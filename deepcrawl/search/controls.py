"""A live search form's controls: which to click to submit it, which field to set, and whether
typing alone may search.

The form filler (:mod:`deepcrawl.search.filler`) reads a form found live on its page; these
rules pick its parts. They read a :class:`~deepcrawl.page.form.Form` only, so they are tested on
saved pages of real applications without a browser.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from deepcrawl.errors import FormError

if TYPE_CHECKING:
    from deepcrawl.page.form import Form, FormField, SubmitControl

__all__ = ["checkbox_of", "may_search_as_typed", "radio_of", "submit_controls"]

_CLICKABLE = ("button", "input", "image", "js")
#: Whole texts of a search box's buttons that empty it rather than submit it (a ``<button>`` in
#: a form submits by default, whatever its script does).
_CLEARING = re.compile(r"^(?:clear|reset|clear\s+search|[×✕✖x])$", re.IGNORECASE)
#: Submit controls that are a form's own buttons (not a script's clickable element).
_BUTTONS = frozenset({"button", "input", "image"})


def may_search_as_typed(form: Form) -> bool:
    """Whether typing alone may show a form's results: no form element at all (a box a script
    reads), a form whose action is a script (``javascript:``: submitting it reaches no server),
    or a form with no submit button but one that clears the box, submitting to its own page.

    A submit button, or an action elsewhere, says the server answers the search; what typing
    shows beside such a box is suggestions, not the results.
    """
    if form.formless or urlsplit(form.action).scheme == "javascript":
        return True
    if any(c.kind in _BUTTONS and not _CLEARING.match(c.text.strip()) for c in form.submits):
        return False
    own = urlsplit(form.action)._replace(query="", fragment="")
    page = urlsplit(form.page_url)._replace(query="", fragment="")
    return own == page


def radio_of(form: Form, name: str, value: str) -> FormField | None:
    """The radio button called ``name`` with ``value``, or None."""
    return next(
        (f for f in form.fields if f.type == "radio" and f.name == name and f.value == value), None
    )


def checkbox_of(form: Form, name: str, value: str) -> FormField:
    """The checkbox called ``name`` with ``value`` (checked by the caller)."""
    box = next(
        (f for f in form.fields if f.type == "checkbox" and f.name == name and f.value == value),
        None,
    )
    if box is None:
        raise FormError(f"the checkbox {name!r} has no value {value!r} any more")
    return box


def submit_controls(form: Form) -> list[SubmitControl]:
    """Submit controls to try, most specific first (real submit buttons before scripted ones);
    never one that clears the box."""
    order = {kind: i for i, kind in enumerate(_CLICKABLE)}
    usable = [
        c
        for c in form.submits
        if c.kind in order and c.locator and not _CLEARING.match(c.text.strip())
    ]
    return sorted(usable, key=lambda c: order[c.kind])
