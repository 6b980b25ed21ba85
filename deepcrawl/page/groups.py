"""Logical forms inside one ``<form>``: the groups its submit controls define.

Some pages wrap everything in one ``<form>``: a search box and its button sit beside a log-in
box, a newsletter sign-up and a pager, each a form of its own to the person reading the page,
and the button pressed tells the server which. Judged as one form, such a page "mentions log
in" and nothing on it may be searched. :func:`split_groups` gives each submit control's group
as a form of its own, which the critic judges and the filler submits alone:

1. each enabled submit control's *panel*: the highest element inside the form that holds it
   and no other submit control (a fieldset, a ``div`` with an id, the control itself);
2. each visible field belongs to the panel holding it; a field in none belongs to the nearest
   submit control in document order (the first after it, else the last before it);
3. submit controls owning no field (a pager's buttons, a "feeling lucky" beside a search) are
   no group of their own;
4. a form splits only where two groups or more own a visible field; otherwise it stays whole.

A group's fields are its own and the form's hidden fields (the page's state, which a
submission of any group carries) outside the other groups' panels.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from deepcrawl.page.form import Form, FormField, SubmitControl
from deepcrawl.page.html import visible_text

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from lxml.html import HtmlElement

__all__ = ["Control", "find_form", "regroup", "split_groups"]

_TEXT_CHARS = 2000

#: A form's control as parsed: its element and what it became.
Control = tuple["HtmlElement", FormField | SubmitControl]


def _panels(submits: Sequence[HtmlElement], form: HtmlElement) -> list[HtmlElement]:
    """Each submit control's panel: the highest element inside ``form`` holding it and no other
    of ``submits``."""
    chains = []
    for submit in submits:
        chain = [submit]
        for ancestor in submit.iterancestors():
            if ancestor is form:
                break
            chain.append(ancestor)
        chains.append(chain)
    holds = Counter(id(e) for chain in chains for e in chain)
    panels = []
    for chain in chains:
        panel = chain[0]
        for ancestor in chain[1:]:
            if holds[id(ancestor)] > 1:
                break
            panel = ancestor
        panels.append(panel)
    return panels


def _inside(element: HtmlElement, panel: HtmlElement) -> bool:
    return element is panel or any(a is panel for a in element.iterancestors())


def _common(elements: Sequence[HtmlElement], form: HtmlElement) -> HtmlElement:
    """The smallest element inside ``form`` (or ``form``) that holds every one of ``elements``."""
    chains = [[e, *e.iterancestors()] for e in elements]
    for candidate in chains[0]:
        if candidate is form or all(any(a is candidate for a in chain) for chain in chains[1:]):
            return candidate
    return form


def split_groups(
    whole: Form,
    element: HtmlElement,
    controls: Sequence[Control],
    context: Callable[[HtmlElement], str],
) -> list[Form]:
    """The logical forms of one ``<form>`` (see the module docstring): ``[whole]`` when it
    holds one group only.

    Args:
        whole: the form as parsed whole.
        element: its ``<form>`` element.
        controls: its controls in document order, each element with what it became.
        context: the text just before an element (the parser's).
    """
    submits = [(e, c) for e, c in controls if isinstance(c, SubmitControl) and not c.disabled]
    if len(submits) < 2:
        return [whole]
    panels = _panels([e for e, _ in submits], element)
    owned: list[list[tuple[HtmlElement, FormField]]] = [[] for _ in submits]
    hidden: list[tuple[HtmlElement, FormField]] = []
    order = {id(e): i for i, (e, _) in enumerate(controls)}
    for field_element, field in controls:
        if not isinstance(field, FormField):
            continue
        if field.type == "hidden":
            hidden.append((field_element, field))
            continue
        if field.tag == "button":
            continue
        at = next(
            (i for i, panel in enumerate(panels) if _inside(field_element, panel)),
            _nearest(order[id(field_element)], [order[id(e)] for e, _ in submits]),
        )
        owned[at].append((field_element, field))
    groups = [i for i, fields in enumerate(owned) if any(f.visible for _, f in fields)]
    if len(groups) < 2:
        return [whole]
    out: list[Form] = []
    for i in groups:
        others = [panels[j] for j in groups if j != i]
        state = [f for e, f in hidden if not any(_inside(e, p) for p in others)]
        mine = {id(f) for _, f in owned[i]}
        fields = [f for _, f in controls if isinstance(f, FormField) and id(f) in mine]
        group_submits = [c for e, c in submits if _inside(e, panels[i])] or [submits[i][1]]
        panel = _common([e for e, _ in owned[i]] + [submits[i][0]], element)
        out.append(
            whole.model_copy(
                update={
                    "fields": (*state, *fields),
                    "submits": tuple(group_submits),
                    "group": group_submits[0].locator,
                    "text": visible_text(panel, _TEXT_CHARS),
                    "context": context(panel),
                }
            )
        )
    return out


def _nearest(position: int, submits: Sequence[int]) -> int:
    """The index of the submit control nearest after ``position``, else the last before it."""
    after = [i for i, at in enumerate(submits) if at > position]
    return after[0] if after else len(submits) - 1


def _field_key(field: FormField) -> tuple[str | None, str | None, str]:
    return field.name, field.id, field.type


def _submit_key(submit: SubmitControl) -> tuple[str | None, str]:
    return submit.name, submit.value


def regroup(live: Sequence[Form], static: Sequence[Form]) -> list[Form]:
    """The forms of a live DOM split as the same DOM parsed statically was (``static``, from
    :func:`~deepcrawl.page.static_forms.parse_forms` of the page's current HTML): each live
    form that the static parse split gives its groups, its own fields and controls in each."""
    out: list[Form] = []
    for form in live:
        names = {_field_key(f) for f in form.fields}
        groups = [
            g
            for g in static
            if g.group
            and not form.formless
            and (g.id, g.name, g.method) == (form.id, form.name, form.method)
            and {_field_key(f) for f in g.fields} <= names
        ]
        if len(groups) < 2:
            out.append(form)
            continue
        for group in groups:
            fields = {_field_key(f) for f in group.fields}
            submits = {_submit_key(s) for s in group.submits}
            out.append(
                form.model_copy(
                    update={
                        "fields": tuple(f for f in form.fields if _field_key(f) in fields),
                        "submits": tuple(s for s in form.submits if _submit_key(s) in submits),
                        "group": group.group,
                        "text": group.text,
                        "context": group.context,
                    }
                )
            )
    return out


def find_form(forms: Sequence[Form], like: Form) -> Form | None:
    """The form of ``forms`` (another look at a page: the form's page loaded again, a result
    page showing the form again) that is ``like``: the one of the same
    :attr:`~deepcrawl.page.form.Form.identity` (action, method, field names — what stays from
    one load to the next). Where several share it, what a load may change tells them apart:
    the same locator, else the same id, name, group or submit buttons, else the first."""
    same = [form for form in forms if form.identity == like.identity]
    if len(same) < 2:
        return same[0] if same else None
    for key in (
        lambda f: f.locator and f.locator == like.locator and f.group == like.group,
        lambda f: f.id and f.id == like.id and f.group == like.group,
        lambda f: f.name and f.name == like.name and f.group == like.group,
        lambda f: f.group == like.group,
        lambda f: _submit_names(f) == _submit_names(like),
    ):
        found = next((form for form in same if key(form)), None)
        if found is not None:
            return found
    return same[0]


def _submit_names(form: Form) -> list[str]:
    return sorted(s.name for s in form.submits if s.name)
