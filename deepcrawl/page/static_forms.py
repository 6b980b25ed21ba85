"""Forms from static HTML, parsed with the one parser (:mod:`deepcrawl.page.html`).

The browser discovers forms in the live DOM; this module does the same from the HTML a server
sent, for pages fetched without a browser and for the training corpus of the critic. It must
be fast (hundreds of pages per second) and never fail on broken markup: lxml's HTML parser
recovers from almost anything, and the few inputs it rejects (an empty or binary document)
give an empty list rather than an error.

Forms are returned in document order of their ``<form>`` elements (the order the formasaurus
annotations use), followed — when asked — by *formless* groups: text inputs outside any form
that a script submits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from deepcrawl.page.form import FieldOption, Form, FormField, SubmitControl
from deepcrawl.page.groups import Control, split_groups
from deepcrawl.page.html import (
    SKIP_TEXT,
    base_url,
    collapse,
    hidden,
    join_url,
    parse_html,
    text_of,
    visible_text,
)

if TYPE_CHECKING:
    from lxml.html import HtmlElement

__all__ = ["parse_forms"]

_FIELD_TAGS = ("input", "select", "textarea", "button")
_CONTEXT_CHARS = 200
_TEXT_CHARS = 2000
_TEXTUAL_INPUTS = frozenset({"text", "search", ""})


def _css_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_forms(
    html: str | bytes, page_url: str, *, formless: bool = True, groups: bool = True
) -> list[Form]:
    """Return the forms of an HTML page.

    Args:
        html: the page's HTML (text, or UTF-8 bytes).
        page_url: the page's URL; relative actions are resolved against it (or ``<base href>``).
        formless: also return groups of text inputs that sit outside any ``<form>``.
        groups: return a ``<form>`` that holds several logical forms as its groups
            (:func:`~deepcrawl.page.groups.split_groups`), not whole.

    Returns:
        The forms in document order; an empty list for a page without forms or without content.
    """
    root = parse_html(html)
    if root is None:
        return []
    base = base_url(root, page_url)
    labels = _label_index(root)
    forms = [
        form
        for position, element in enumerate(root.iter("form"))
        for form in _form(element, position, page_url, base, labels, root, groups=groups)
    ]
    if formless:
        forms.extend(_formless_groups(root, page_url, labels))
    return forms


def _label_index(root: HtmlElement) -> dict[str, str]:
    """Map an element id to the text of its ``<label for=…>``."""
    found: dict[str, str] = {}
    for label in root.iter("label"):
        target = label.get("for")
        if target and target not in found:
            found[target] = _own_text(label)
    return found


def _own_text(element: HtmlElement) -> str:
    """Text of ``element`` without the text of selects, options, scripts inside it."""
    return text_of(element, 1000, lambda child: child.tag == "select", values=False)


def _context(element: HtmlElement) -> str:
    """Visible text just before ``element``: preceding siblings, then the parents' siblings."""
    pieces: list[str] = []
    size = 0
    node: HtmlElement | None = element
    while node is not None and size < _CONTEXT_CHARS:
        for sibling in node.itersiblings(preceding=True):
            if not isinstance(sibling.tag, str):
                continue
            text = collapse(sibling.tail) if sibling.tail else ""
            if sibling.tag not in SKIP_TEXT and sibling.tag not in {"form", "select"}:
                text = collapse(sibling.text_content() + " " + text)
            if text:
                pieces.append(text[-_CONTEXT_CHARS:])
                size += len(text)
            if size >= _CONTEXT_CHARS:
                break
        parent = node.getparent()
        if parent is not None and parent.text and parent.text.strip():
            pieces.append(collapse(parent.text))
            size += len(parent.text)
        node = parent if parent is not None and parent.tag not in {"body", "html"} else None
    return collapse(" ".join(reversed(pieces)))[-_CONTEXT_CHARS:]


def _field_label(element: HtmlElement, labels: dict[str, str]) -> str:
    element_id = element.get("id")
    if element_id and labels.get(element_id):
        return labels[element_id]
    for ancestor in element.iterancestors("label"):
        text = _own_text(ancestor)
        if text:
            return text
        break
    return collapse(element.get("aria-label") or element.get("title") or "")


def _field_locator(form_locator: str, element: HtmlElement) -> str:
    if element.get("id"):
        return f"[id={_css_string(element.get('id', ''))}]"
    tag = str(element.tag)
    if element.get("name"):
        return f"{form_locator} {tag}[name={_css_string(element.get('name', ''))}]".strip()
    return f"{form_locator} {tag}".strip()


def _form_locator(element: HtmlElement, position: int, field_names: list[str]) -> str:
    if element.get("id"):
        return f"form[id={_css_string(element.get('id', ''))}]"
    if element.get("name"):
        return f"form[name={_css_string(element.get('name', ''))}]"
    if field_names:
        return f"form:has([name={_css_string(field_names[0])}])"
    return f"form:nth-of-type({position + 1})"


def _controls(
    elements: list[HtmlElement], form_locator: str, labels: dict[str, str]
) -> tuple[list[FormField], list[SubmitControl]]:
    parsed = _parsed_controls(elements, form_locator, labels)
    fields = [c for _, c in parsed if isinstance(c, FormField)]
    return fields, [c for _, c in parsed if isinstance(c, SubmitControl)]


def _parsed_controls(
    elements: list[HtmlElement], form_locator: str, labels: dict[str, str]
) -> list[Control]:
    """Each control element with what it becomes, in document order."""
    parsed: list[Control] = []
    for element in elements:
        tag = str(element.tag)
        kind = (element.get("type") or "").strip().lower()
        name = element.get("name") or None
        locator = _field_locator(form_locator, element)
        if tag == "button":
            kind = kind or "submit"
            text = _own_text(element) or collapse(element.get("value"))
            disabled = element.get("disabled") is not None
            if kind == "submit":
                value = element.get("value") or ""
                control = SubmitControl(
                    kind="button",
                    name=name,
                    value=value,
                    text=text,
                    locator=locator,
                    disabled=disabled,
                )
                parsed.append((element, control))
                continue
            button = FormField(tag="button", type=kind, name=name, label=text, locator=locator)
            parsed.append((element, button))
            continue
        if tag == "input" and kind in {"submit", "image"}:
            value = element.get("value") or ""
            text = collapse(value or element.get("alt") or element.get("title"))
            control = SubmitControl(
                kind="image" if kind == "image" else "input",
                name=name,
                value=value,
                text=text,
                locator=locator,
                disabled=element.get("disabled") is not None,
            )
            parsed.append((element, control))
            continue
        parsed.append((element, _field(element, tag, kind, name, locator, labels)))
    return parsed


def _field(
    element: HtmlElement,
    tag: str,
    kind: str,
    name: str | None,
    locator: str,
    labels: dict[str, str],
) -> FormField:
    options: tuple[FieldOption, ...] = ()
    value = element.get("value") or ""
    if tag == "select":
        kind = "select-multiple" if element.get("multiple") is not None else "select"
        options = tuple(
            FieldOption(
                value=option.get("value") if option.get("value") is not None else text,
                text=text,
                selected=option.get("selected") is not None,
            )
            for option in element.iter("option")
            for text in (collapse(option.text_content()),)
        )
        chosen = [o for o in options if o.selected] or list(options[:1])
        value = chosen[0].value if chosen else ""
    elif tag == "textarea":
        kind = "textarea"
        value = element.text or ""
    else:
        kind = kind or "text"
    return FormField(
        tag="select" if tag == "select" else "textarea" if tag == "textarea" else "input",
        type=kind,
        name=name,
        id=element.get("id") or None,
        value=value,
        options=options,
        checked=element.get("checked") is not None,
        required=element.get("required") is not None,
        placeholder=collapse(element.get("placeholder")),
        label=_field_label(element, labels),
        visible=kind != "hidden" and not any(hidden(e) for e in _self_and_ancestors(element)),
        locator=locator,
        disabled=element.get("disabled") is not None,
    )


def _self_and_ancestors(element: HtmlElement) -> list[HtmlElement]:
    chain = [element]
    chain.extend(a for a in element.iterancestors() if a.tag not in {"body", "html"})
    return chain[:6]


def _form(
    element: HtmlElement,
    position: int,
    page_url: str,
    base: str,
    labels: dict[str, str],
    root: HtmlElement,
    *,
    groups: bool,
) -> list[Form]:
    controls = list(element.iter(*_FIELD_TAGS))
    form_id = element.get("id")
    if form_id:  # controls elsewhere on the page that name this form (HTML5 ``form=`` attr)
        controls.extend(e for e in root.xpath("//*[@form=$id]", id=form_id) if e.tag in _FIELD_TAGS)
    names = [str(e.get("name")) for e in controls if e.get("name")]
    locator = _form_locator(element, position, names)
    parsed = _parsed_controls(controls, locator, labels)
    fields = [c for _, c in parsed if isinstance(c, FormField)]
    submits = [c for _, c in parsed if isinstance(c, SubmitControl)]
    action = (element.get("action") or "").strip()
    resolved = page_url if not action or action.startswith("#") else join_url(base, action)
    method_raw = (element.get("method") or "get").strip().upper()
    method: Literal["GET", "POST"] = "POST" if method_raw == "POST" else "GET"
    whole = Form(
        page_url=page_url,
        action=resolved,
        method=method,
        enctype=(element.get("enctype") or "application/x-www-form-urlencoded").lower(),
        id=form_id or None,
        name=element.get("name") or None,
        classes=tuple((element.get("class") or "").split()),
        locator=locator,
        fields=tuple(fields),
        submits=tuple(submits),
        text=visible_text(element, _TEXT_CHARS),
        context=_context(element),
    )
    return split_groups(whole, element, parsed, _context) if groups else [whole]


def _formless_groups(root: HtmlElement, page_url: str, labels: dict[str, str]) -> list[Form]:
    """Text inputs outside any form, grouped by the nearest ancestor holding a button."""
    groups: dict[int, tuple[HtmlElement, list[HtmlElement]]] = {}
    for element in root.iter("input"):
        kind = (element.get("type") or "").strip().lower()
        if kind not in _TEXTUAL_INPUTS or element.get("form"):
            continue
        if any(a.tag == "form" for a in element.iterancestors()):
            continue
        container = element.getparent()
        for ancestor in element.iterancestors():
            container = ancestor
            if ancestor.tag in {"body", "html"} or ancestor.xpath(
                ".//button|.//input[@type='submit' or @type='image' or @type='button']"
            ):
                break
        if container is None:
            continue
        groups.setdefault(id(container), (container, []))[1].append(element)
    forms: list[Form] = []
    for container, _inputs in groups.values():
        controls = [
            e
            for e in container.iter(*_FIELD_TAGS)
            if not any(a.tag == "form" for a in e.iterancestors())
        ][:500]
        names = [str(e.get("name")) for e in controls if e.get("name")]
        first = controls[0]
        anchor = (
            f"[id={_css_string(first.get('id', ''))}]"
            if first.get("id")
            else f"input[name={_css_string(names[0])}]"
            if names
            else "input"
        )
        fields, submits = _controls(controls, "", labels)
        submits = [s.model_copy(update={"kind": "js"}) for s in submits]
        if not submits:
            submits = [SubmitControl(kind="enter")]
        forms.append(
            Form(
                page_url=page_url,
                action=page_url,
                locator=anchor,
                fields=tuple(fields),
                submits=tuple(submits),
                text=visible_text(container, _TEXT_CHARS),
                context=_context(container),
                formless=True,
            )
        )
    return forms
