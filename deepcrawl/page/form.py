"""The form model: what deepcrawl knows about one HTML form, whoever found it.

Forms come from two places — the live DOM of a rendered page (``deepcrawl.browser.live_forms``) and
static HTML parsed with lxml (``deepcrawl.page.static_forms``, used for the training corpus and for
pages fetched without a browser). Both produce these plain, immutable, JSON-serialisable models,
which the critic classifies, the filler fills, and the storage layer keeps.

A "form" may also be a group of inputs outside any ``<form>`` element that a script submits
(``formless=True``); its ``action`` is then the page URL and its submit controls are ``js``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from deepcrawl.urls import normalise_or_none, split_query

__all__ = ["FieldOption", "Form", "FormField", "SubmitControl"]

FieldTag = Literal["input", "select", "textarea", "button"]
SubmitKind = Literal["button", "input", "image", "js", "enter"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FieldOption(_Frozen):
    """One ``<option>`` of a select box."""

    value: str
    text: str = ""
    selected: bool = False


class FormField(_Frozen):
    """One field of a form.

    ``type`` is the lower-cased ``type`` attribute for inputs (``text`` when absent), ``select``
    / ``select-multiple`` for selects and ``textarea`` for text areas. ``label`` is the text of
    the field's label (``<label for>``, a wrapping label's own text — never the option texts of
    a wrapped select —, ``aria-label``, or ``title``), whitespace-collapsed.
    """

    tag: FieldTag
    type: str
    name: str | None = None
    id: str | None = None
    value: str = ""
    options: tuple[FieldOption, ...] = ()
    checked: bool = False
    required: bool = False
    placeholder: str = ""
    label: str = ""
    visible: bool = True
    locator: str = ""
    """A CSS selector that finds this field on the page, stable across renders."""
    disabled: bool = False
    """A disabled field is never submitted."""


class SubmitControl(_Frozen):
    """A way to submit the form.

    ``kind``: ``button`` (``<button type=submit>``), ``input`` (``<input type=submit>``),
    ``image`` (``<input type=image>``), ``js`` (a clickable element whose script submits or
    navigates), ``enter`` (pressing Enter in the query field; always possible for a form with a
    text field).
    """

    kind: SubmitKind
    name: str | None = None
    value: str = ""
    text: str = ""
    locator: str = ""
    disabled: bool = False


class Form(_Frozen):
    """One form on one page.

    Attributes:
        page_url: the URL of the page holding the form.
        action: the absolute URL the form submits to (the page URL when the attribute is absent).
        method: ``GET`` or ``POST``.
        enctype: the encoding of a POST body.
        id, name: the form's own attributes, when it has them.
        classes: its class names.
        locator: a CSS selector that finds the form again on a later render of the page, stable
            even when the form has neither id nor name (built from its position among forms and
            the names of its fields).
        fields: its fields in document order, submit buttons excluded.
        submits: its submit controls.
        text: the visible text inside the form (labels, legends, button texts), collapsed.
        context: visible text just before the form (a heading, a sentence), collapsed.
        formless: True for a group of inputs outside any ``<form>`` that a script submits.
        built_by_script: True when the form was not in the HTML the server sent.
        group: for one logical form of a ``<form>`` that holds several (a search box beside a
            log-in box and a sign-up, each with its own button: :mod:`deepcrawl.page.groups`),
            the locator of the group's first submit control; empty for a whole form. A
            group's fields are its own and the hidden fields of its ``<form>`` (the page's
            state, which every submission of it carries).
    """

    page_url: str
    action: str
    method: Literal["GET", "POST"] = "GET"
    enctype: str = "application/x-www-form-urlencoded"
    id: str | None = None
    name: str | None = None
    classes: tuple[str, ...] = ()
    locator: str = ""
    fields: tuple[FormField, ...] = ()
    submits: tuple[SubmitControl, ...] = ()
    text: str = ""
    context: str = ""
    formless: bool = False
    built_by_script: bool = False
    group: str = ""

    @property
    def identity(self) -> tuple[object, ...]:
        """What stays of this form from one load of its page to the next: its action (without
        its fragment, its query by the names of its parameters — a token's value changes), its
        method, the sorted names of its fields that are not hidden, and whether it is a
        ``<form>``. Never its id, name, locator or hidden values:
        some sites mint them afresh on each load (``form-290e6614``, then ``form-e0b7d2c2``).
        A GET form's action query is not part of it: the browser replaces it by the fields on
        submitting, and an empty action resolves to whichever page shows the form (the form's
        page, a result page ``?q=river``). Two forms of one identity on a page are told apart
        by what a load may change (:func:`~deepcrawl.page.groups.find_form`)."""
        head, _, query = self.action.partition("#")[0].partition("?")
        if self.method == "GET":
            query = ""
        keys = sorted({item.partition("=")[0] for item in split_query(query)[0] if item})
        fields = sorted({f.name for f in self.fields if f.name and f.type != "hidden"})
        head = normalise_or_none(head) or head  # as the browser or a parser resolved it
        return (head, tuple(keys), self.method, tuple(fields), self.formless)

    def field(self, name: str) -> FormField | None:
        """The first field called ``name``, or None."""
        return next((f for f in self.fields if f.name == name), None)

    @property
    def text_fields(self) -> tuple[FormField, ...]:
        """Fields a keyword can be typed into."""
        return tuple(
            f
            for f in self.fields
            if (f.tag == "input" and f.type in _TEXT_TYPES) or f.tag == "textarea"
        )


_TEXT_TYPES = frozenset({"text", "search", ""})
