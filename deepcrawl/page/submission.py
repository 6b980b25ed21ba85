"""A form submission as it goes over the wire, built as a browser builds it.

A browser submitting a form sends its *successful controls* (HTML's form submission algorithm):
every enabled field with a name — hidden fields with the state a framework keeps in the page,
text fields and selects with their current values, checked boxes and radios only — and the one
button pressed, by its name and value. :func:`submission_of` does the same for a parsed
:class:`~deepcrawl.page.form.Form`, so that a submission shown to work in the browser can be
replayed over plain HTTP from the page's HTML alone; a pager that is not a link (a submit
button of the result form, a link whose script sets hidden fields and submits the form) is one
too (:attr:`Submission.trigger`).

A :class:`Submission` is what the crawl's gate judges before it goes out
(:meth:`deepcrawl.fetch.gate.Gate.submission_refusal`): the control that triggers it is
judged as a link to its action would be, so another group's button (log in, subscribe) is
refused wherever it comes from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlencode

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from deepcrawl.page.form import Form, SubmitControl

__all__ = ["Submission", "submission_of"]

Pairs = tuple[tuple[str, str], ...]

#: Field types a replayed submission never sends (it fills no password and attaches no file).
_NEVER_SENT = frozenset({"password", "file", "button", "reset", "image", "submit"})


@dataclass(frozen=True, slots=True)
class Submission:
    """One POST of url-encoded fields to a form's action.

    Attributes:
        action: where it is sent.
        fields: every name and value sent, in document order (the trigger's included).
        trigger: what activates it: the pressed button's name and value, or the fields a
            pager link's script sets (which replace those of the same names).
        text: the visible text of the activating control ("Search", "2", "Next »").
    """

    action: str
    fields: Pairs
    trigger: Pairs = ()
    text: str = ""

    def as_url(self) -> str:
        """The URL a GET submission of these fields asks for (they replace the action's
        query, as browsers send a GET form)."""
        base = self.action.split("#", 1)[0].split("?", 1)[0]
        return f"{base}?{urlencode(self.fields)}"

    def words(self) -> str:
        """What the gate judges of it: the trigger's names, values and text."""
        return " ".join([self.text, *(f"{name} {value}" for name, value in self.trigger)])


def submission_of(
    form: Form,
    values: Mapping[str, str] | None = None,
    *,
    button: SubmitControl | None = None,
    trigger: Sequence[tuple[str, str]] = (),
    text: str = "",
) -> Submission:
    """The submission a browser sends for ``form`` with ``values`` set by field name.

    Args:
        form: the form (or a group of one: its own fields and the page's hidden state).
        values: values by field name (the keyword, category choices), over those the page
            shows; a select takes a value only when it is one of its options, a radio or
            checkbox is checked when its value is the one given.
        button: the submit control pressed (sent by name and value when it has a name; an
            image button by the point clicked, ``name.x`` and ``name.y``).
        trigger: fields a script sets before submitting (a pager link's target and argument);
            they replace the form's fields of the same names.
        text: the triggering control's text, when it is no ``button``.
    """
    chosen = dict(values or {})
    setting = dict(trigger)
    sent: list[tuple[str, str]] = []
    for field in form.fields:
        name = field.name
        if not name or field.disabled or field.type in _NEVER_SENT:
            continue
        if name in setting:
            sent.append((name, setting.pop(name)))
            continue
        if field.type in {"checkbox", "radio"}:
            wanted = chosen.get(name)
            if (wanted is None and field.checked) or (wanted is not None and wanted == field.value):
                sent.append((name, field.value or "on"))
            continue
        value = chosen.get(name, field.value)
        if field.tag == "select" and value not in {o.value for o in field.options}:
            value = field.value
        sent.append((name, value))
    pressed: Pairs = ()
    if button is not None and button.kind == "image":  # the point clicked, as browsers send it
        prefix = f"{button.name}." if button.name else ""
        pressed = ((f"{prefix}x", "1"), (f"{prefix}y", "1"))
    elif button is not None and button.name:
        pressed = ((button.name, button.value),)
    sent.extend(pressed)
    sent.extend(setting.items())
    return Submission(
        action=form.action,
        fields=tuple(sent),
        trigger=pressed or tuple(trigger),
        text=button.text if button is not None else text,
    )
