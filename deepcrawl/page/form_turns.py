"""Controls of a page that turn it by submitting its form, read from the page's HTML.

Not every pager is a link. A result list may page by its form's own submit buttons (``<input
type=submit name=… value="2">``, "Next »"), or by links whose script sets hidden fields of the
form and submits it (``javascript:go('grid','Page$2')``, where the page's script defines
``go`` to copy its arguments into two hidden fields and submit). Each such control is a
:class:`FormTurn`: its text, a CSS selector that finds it (to click it in the browser) and the
fields it sets, so that its submission can be replayed without the browser
(:func:`~deepcrawl.page.submission.submission_of`).

A script function counts as one that submits the form with its arguments when its body
assigns a parameter to a form field's value (``f.NAME.value = p``, ``f['NAME'].value = p``,
``getElementById('NAME').value = p``) and calls ``submit()``. Which of these controls is the
next page is not decided here (:func:`deepcrawl.search.pagination.next_page`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from deepcrawl.page.html import collapse

if TYPE_CHECKING:
    from lxml.html import HtmlElement

    from deepcrawl.page.form import Form

__all__ = ["FormTurn", "form_turns", "script_setters"]

_MAX_SCRIPT_CHARS = 200_000
_MAX_TURNS = 200
_TEXT_CHARS = 40
_FUNCTION = re.compile(
    r"function\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\)\s*\{"
    r"|([A-Za-z_$][\w$.]*)\s*=\s*function\s*[\w$]*\s*\(([^)]*)\)\s*\{"
)
_SETS = re.compile(
    r"(?:\.([A-Za-z_$][\w$]*)|\[\s*['\"]([^'\"]+)['\"]\s*\]"
    r"|getElementById\s*\(\s*['\"]([^'\"]+)['\"]\s*\))"
    r"\s*\.value\s*=\s*([A-Za-z_$][\w$]*)\s*[;\n}]"
)
_CALL = re.compile(r"^\s*javascript:\s*([A-Za-z_$][\w$.]*)\s*\((.*)\)\s*;?\s*$", re.S)
_ARGUMENT = re.compile(r"\s*(?:'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\")\s*(?:,|$)")


@dataclass(frozen=True, slots=True)
class FormTurn:
    """A control that submits the page's form to turn the page.

    Attributes:
        text: its visible text ("2", "Next »").
        locator: a CSS selector that finds it on the page.
        trigger: the fields its activation sets: a button's name and value, or the hidden
            fields a link's script fills from its arguments.
    """

    text: str
    locator: str
    trigger: tuple[tuple[str, str], ...]


def _css_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _body(source: str, start: int) -> str:
    """The function body that opens at ``source[start - 1]`` (a ``{``), braces balanced."""
    depth = 1
    for at in range(start, len(source)):
        char = source[at]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return source[start:at]
    return source[start:]


def script_setters(root: HtmlElement) -> dict[str, tuple[str | None, ...]]:
    """The page's script functions that fill form fields from their parameters and submit:
    by function name (the last part of a dotted one), the field each parameter fills (None:
    a parameter that fills none)."""
    source = "\n".join(
        script.text or "" for script in root.iter("script") if not script.get("src")
    )[:_MAX_SCRIPT_CHARS]
    found: dict[str, tuple[str | None, ...]] = {}
    for match in _FUNCTION.finditer(source):
        name = (match.group(1) or match.group(3) or "").rsplit(".", 1)[-1]
        params = [p.strip() for p in (match.group(2) or match.group(4) or "").split(",")]
        body = _body(source, match.end())
        if not name or "submit(" not in body.replace("requestSubmit(", "submit("):
            continue
        fills: dict[str, str] = {}
        for setter in _SETS.finditer(body):
            field = setter.group(1) or setter.group(2) or setter.group(3)
            if setter.group(4) in params and field != "value":
                fills.setdefault(setter.group(4), field)
        if fills:
            found[name] = tuple(fills.get(p) for p in params)
    return found


def _arguments(raw: str) -> list[str] | None:
    """The string literals of a call's argument list, or None when it holds anything else."""
    out: list[str] = []
    at = 0
    while at < len(raw):
        match = _ARGUMENT.match(raw, at)
        if match is None or match.end() == at:
            return None
        out.append(match.group(1) if match.group(1) is not None else match.group(2))
        at = match.end()
    return [re.sub(r"\\(.)", r"\1", arg) for arg in out]


def form_turns(root: HtmlElement, form: Form | None = None) -> list[FormTurn]:
    """The controls of the page that submit its form to turn it, in document order: links
    that call a script function filling fields from string arguments and submitting
    (:func:`script_setters`), and — given the page's ``form`` (the search's group, whose own
    buttons start a search, not turn a page) — the enabled submit buttons of the same
    ``<form>`` that are not the group's own."""
    turns: list[FormTurn] = []
    setters = script_setters(root)
    if setters:
        for anchor in root.iter("a"):
            href = (anchor.get("href") or "").strip()
            call = _CALL.match(href) if href.lower().startswith("javascript:") else None
            if call is None:
                continue
            fills = setters.get(call.group(1).rsplit(".", 1)[-1])
            args = _arguments(call.group(2))
            if fills is None or args is None:
                continue
            trigger = tuple((f, a) for f, a in zip(fills, args, strict=False) if f)
            text = collapse(anchor.text_content())[:_TEXT_CHARS]
            if trigger and text:
                turns.append(
                    FormTurn(text, f"a[href={_css_string(anchor.get('href', ''))}]", trigger)
                )
    if form is not None:
        own = {(s.name, s.value) for s in form.submits}
        for element in root.iter("input", "button"):
            kind = (element.get("type") or ("submit" if element.tag == "button" else "")).lower()
            name = element.get("name")
            if kind != "submit" or not name or element.get("disabled") is not None:
                continue
            value = element.get("value") or ""
            if (name, value) in own or not _in_form(element, form):
                continue
            text = collapse(value if element.tag == "input" else element.text_content())
            locator = f"[name={_css_string(name)}]"
            if element.get("id"):
                locator = f"[id={_css_string(element.get('id', ''))}]"
            turns.append(FormTurn(text[:_TEXT_CHARS], locator, ((name, value),)))
    return turns[:_MAX_TURNS]


def _in_form(element: HtmlElement, form: Form) -> bool:
    """Whether ``element`` belongs to the ``<form>`` of ``form`` (by its id or name, else any
    form: a page's one form)."""
    owner = next(element.iterancestors("form"), None)
    if owner is None:
        return bool(form.id) and element.get("form") == form.id
    if form.id or form.name:
        return (owner.get("id"), owner.get("name")) == (form.id, form.name) or (
            bool(form.id) and owner.get("id") == form.id
        )
    return True
