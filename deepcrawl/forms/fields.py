"""Values the user fixes for a form's fields, and the user's choice of form.

Keywords go into the query field; everything else a search form holds keeps its default —
unless the user fixes it (``--field NAME=VALUE``, ``forms.fields`` in ``deepcrawl.toml``): a
category select (``category=history``), a radio group, a checkbox, or a required text field the
keywords do not go into (a date, a postcode). Every query of the crawl sends the fixed values,
whichever path serves it (the browser filler, the URL template, the data request).

The values are checked against the form model before anything is submitted
(:func:`check_field_values`): a name that is no field of the form, an option a select does not
have, a date the date input would not take — each is a :class:`~deepcrawl.errors.ConfigError`
naming the input and listing what exists. So is a required field left without a value
(:func:`missing_required`): the browser would not submit the form, or the server would answer
with an error page to every query.

When a page holds several search forms the critic takes the best-scored one; ``--form``
(``forms.form``) picks another, by its number in ``deepcrawl forms URL``'s list or by a CSS
selector (:func:`parse_form_choice`, :func:`pick_form`). A form the user picks is filled even
when the critic's searchable score is low — the user knows it is a search form — but never when
the safety policy refuses it.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from deepcrawl.errors import ConfigError, UnsafeFormError
from deepcrawl.forms.query_field import find_query_fields
from deepcrawl.forms.safety import refusal_reasons

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from deepcrawl.forms.critic import CriticVerdict
    from deepcrawl.page.form import Form, FormField

__all__ = [
    "TEXT_INPUT_TYPES",
    "check_field_values",
    "describe_field",
    "describe_settable",
    "missing_required",
    "parse_field_values",
    "parse_form_choice",
    "pick_form",
    "user_verdict",
]

#: Input types whose value is typed (the filler fills them with the given text).
TEXT_INPUT_TYPES = frozenset(
    {"text", "search", "", "date", "month", "week", "time", "datetime-local", "number", "email"}
    | {"tel", "url", "range", "color"}
)
#: Input types the user cannot fix: the page sets them, or they are not values at all.
_NOT_SETTABLE = frozenset({"hidden", "submit", "button", "reset", "image", "file", "password"})
#: What a browser's typed inputs accept (https://html.spec.whatwg.org/#valid-date-string …).
_FORMATS = {
    "date": (re.compile(r"\d{4}-\d{2}-\d{2}"), "YYYY-MM-DD"),
    "month": (re.compile(r"\d{4}-\d{2}"), "YYYY-MM"),
    "week": (re.compile(r"\d{4}-W\d{2}"), "YYYY-Www"),
    "time": (re.compile(r"\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?"), "HH:MM"),
    "datetime-local": (re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?"), "YYYY-MM-DDTHH:MM"),
    "number": (re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"), "a number"),
    "range": (re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)"), "a number"),
    "color": (re.compile(r"#[0-9a-fA-F]{6}"), "#rrggbb"),
}
_SHOWN_OPTIONS = 12


def parse_field_values(items: Iterable[str]) -> dict[str, str]:
    """``NAME=VALUE`` strings (``--field``, repeatable) as a dict, in order.

    The value may be empty (``cat=`` picks a select's empty "all" option) and may hold ``=``.

    Raises:
        ConfigError: an item has no ``=`` or no name, or names a field twice.
    """
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ConfigError(f"--field {item!r}: expected NAME=VALUE (e.g. category=history)")
        if name in out and out[name] != value:
            raise ConfigError(f"--field {name!r} is given twice ({out[name]!r} and {value!r})")
        out[name] = value
    return out


def parse_form_choice(text: str | int | None) -> int | str | None:
    """``--form``'s value: a form's number (1 for the first form on the page, as ``deepcrawl
    forms URL`` numbers them) or a CSS selector; None when not given.

    Raises:
        ConfigError: a number below 1, or an empty selector.
    """
    if text is None:
        return None
    raw = str(text).strip()
    if not raw:
        raise ConfigError("--form: give a form's number (see 'deepcrawl forms URL') or a selector")
    if raw.isdigit():
        if int(raw) < 1:
            raise ConfigError(f"--form {raw}: forms are numbered from 1")
        return int(raw)
    return raw


def describe_field(field: FormField) -> str:
    """A short description of a field for messages: ``cat (select: '' All, 'history' …)``."""
    kind = field.type if field.tag == "input" else field.tag
    required = ", required" if field.required else ""
    if field.options:
        shown = ", ".join(
            f"{o.value!r}" + (f" {o.text}" if o.text and o.text != o.value else "")
            for o in field.options[:_SHOWN_OPTIONS]
        )
        left = len(field.options) - _SHOWN_OPTIONS
        more = f", … {left} more" if left > 0 else ""
        return f"{field.name} ({kind}{required}: {shown}{more})"
    return f"{field.name} ({kind}{required})"


def _settable(form: Form) -> dict[str, list[FormField]]:
    groups: dict[str, list[FormField]] = {}
    for field in form.fields:
        if field.name and field.type not in _NOT_SETTABLE:
            groups.setdefault(field.name, []).append(field)
    return groups


def _where(form: Form) -> str:
    return f"the form {form.locator or form.action}"


def describe_settable(form: Form, *, query_field: str | None) -> str:
    """The fields of ``form`` a ``--field`` may name, described (options, values, required)."""
    return _list(_settable(form), query_field)


def _list(groups: Mapping[str, list[FormField]], query_field: str | None) -> str:
    parts = []
    for name, fields in groups.items():
        first = fields[0]
        if name == query_field:
            parts.append(f"{name} (the keywords go here)")
        elif first.type in {"radio", "checkbox"}:
            values = ", ".join(repr(f.value) for f in fields)
            parts.append(f"{name} ({first.type}: {values})")
        else:
            parts.append(describe_field(first))
    return "; ".join(parts) or "none"


def _option_value(field: FormField, value: str) -> str | None:
    """The option of a select ``value`` names: by value, else by its text (any case)."""
    for option in field.options:
        if option.value == value:
            return option.value
    folded = value.strip().casefold()
    for option in field.options:
        if option.text.strip().casefold() == folded:
            return option.value
    return None


def _box_value(fields: Sequence[FormField], value: str) -> str | None:
    """The radio or checkbox of a group ``value`` names: by value, else by its label."""
    for field in fields:
        # a checkbox without a value attribute submits "on"
        if field.value == value or (field.type == "checkbox" and not field.value and value == "on"):
            return field.value
    folded = value.strip().casefold()
    for field in fields:
        if field.label.strip().casefold() == folded:
            return field.value
    return None


def check_field_values(
    form: Form, values: Mapping[str, str], *, query_field: str | None
) -> dict[str, str]:
    """Check fixed values against ``form``; returns them as the form wants them (an option named
    by its text becomes its value).

    Args:
        form: the form the values are for.
        values: the values by field name.
        query_field: the field the keywords go into (it cannot be fixed).

    Raises:
        ConfigError: a name that is no settable field of the form, the query field, a value a
            select, radio group or checkbox does not have, or a typed input's bad format; the
            message names the input and lists what exists.
    """
    groups = _settable(form)
    out: dict[str, str] = {}
    for name, value in values.items():
        given = f"--field {name}={value}"
        if name == query_field:
            raise ConfigError(
                f"{given}: {name!r} is the field the keywords go into in {_where(form)}; "
                "fix the other fields"
            )
        fields = groups.get(name)
        if fields is None:
            hidden = form.field(name) is not None
            why = "is not a field the user can set in" if hidden else "names no field of"
            raise ConfigError(
                f"{given}: {name!r} {why} {_where(form)}; its fields: {_list(groups, query_field)}"
            )
        first = fields[0]
        if first.tag == "select":
            chosen = _option_value(first, value)
            if chosen is None:
                raise ConfigError(
                    f"{given}: the select {name!r} has no option {value!r}; {describe_field(first)}"
                )
            out[name] = chosen
        elif first.type in {"radio", "checkbox"}:
            chosen = _box_value(fields, value)
            if chosen is None:
                values_ = ", ".join(repr(f.value) for f in fields)
                raise ConfigError(
                    f"{given}: the {first.type} {name!r} has no value {value!r}; its values: "
                    f"{values_}"
                )
            out[name] = chosen
        else:
            expected = _FORMATS.get(first.type)
            if expected is not None and value and not expected[0].fullmatch(value):
                raise ConfigError(
                    f"{given}: {name!r} is a {first.type} input, which takes {expected[1]}"
                )
            out[name] = value
    return out


def missing_required(
    form: Form, values: Mapping[str, str], *, query_field: str | None
) -> list[FormField]:
    """The required fields of ``form`` that neither have a value nor are given one.

    A text input or text area without a default, a select whose default is the empty option,
    a checkbox left unchecked, a radio group with none checked; the query field aside (the
    keywords fill it). The browser does not submit a form with such a field, and a server that
    insists on one answers every query with an error page.
    """
    missing: list[FormField] = []
    seen: set[str] = set()
    for field in form.fields:
        name = field.name
        if not field.required or not name or name == query_field or name in values:
            continue
        if name in seen or field.type in _NOT_SETTABLE:
            continue
        if field.type in {"radio", "checkbox"}:
            group = [f for f in form.fields if f.name == name]
            empty = not any(f.checked for f in group)
        elif field.tag == "select":
            first = field.options[0] if field.options else None
            default = next((o for o in field.options if o.selected), first)
            empty = default is None or not default.value.strip()
        else:
            empty = not field.value.strip()
        if empty:
            seen.add(name)
            missing.append(field)
    return missing


def user_verdict(form: Form, verdict: CriticVerdict, refused_words: Sequence[str]) -> CriticVerdict:
    """The verdict on a form the user picked: accepted despite a low searchable score or a
    domain score, never against the safety policy.

    Raises:
        UnsafeFormError: the safety policy refuses the form (the message says why).
    """
    if verdict.searchable:
        return verdict
    reasons = refusal_reasons(form, verdict.type, refused_words)
    if reasons:
        raise UnsafeFormError(
            f"refusing to submit form {form.locator or form.action}: {'; '.join(reasons)}"
        )
    roles = find_query_fields(form)
    return dataclasses.replace(
        verdict,
        searchable=True,
        query_field=roles.query.name if roles.query else None,
        category_fields=tuple(f.name for f in roles.categories if f.name),
        sort_fields=tuple(f.name for f in roles.sorts if f.name),
        reasons=(),
    )


def pick_form(
    forms: Sequence[Form],
    verdicts: Sequence[CriticVerdict],
    choice: int | str | None,
    *,
    selected: Sequence[bool] | None = None,
    refused_words: Sequence[str] = (),
) -> int | None:
    """The index (from 0) of the form to query: the user's choice, else the critic's.

    Args:
        forms: the page's forms, in page order.
        verdicts: the critic's verdicts on them.
        choice: a form number from 1, a CSS selector, or None for the critic's choice.
        selected: for a selector, whether it selects each form (or an element holding it);
            default: the selector must equal a form's locator.
        refused_words: the safety policy's words (a chosen form it refuses is an error).

    Returns:
        The index, or None when the critic accepts no form and the user chose none.

    Raises:
        ConfigError: the number or selector picks no form, or a selector picks several.
        UnsafeFormError: the safety policy refuses the chosen form.
    """
    if choice is None:
        accepted = [i for i, v in enumerate(verdicts) if v.searchable]
        return max(accepted, key=lambda i: verdicts[i].score) if accepted else None
    listing = (
        "; ".join(f"{i} {form.locator or form.action}" for i, form in enumerate(forms, 1)) or "none"
    )
    if isinstance(choice, int):
        if choice > len(forms):
            raise ConfigError(
                f"--form {choice}: the page has {len(forms)} form(s) ({listing}); "
                "see 'deepcrawl forms URL'"
            )
        index = choice - 1
    else:
        hits = [i for i, form in enumerate(forms) if form.group == choice]  # a group's button
        hits = hits or [i for i, form in enumerate(forms) if form.locator == choice]
        if not hits and selected is not None:
            hits = [i for i, hit in enumerate(selected) if hit]
        if len(hits) != 1:
            what = "no form" if not hits else f"{len(hits)} forms"
            raise ConfigError(f"--form {choice!r} selects {what} on the page; its forms: {listing}")
        index = hits[0]
    user_verdict(forms[index], verdicts[index], refused_words)  # raises when refused
    return index
