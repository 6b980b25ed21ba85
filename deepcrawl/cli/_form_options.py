"""The options that fix a search form's fields and pick the form (``crawl``, ``query``,
``forms``): parsed here, checked against the form by :mod:`deepcrawl.forms.fields`."""

from typing import Annotated, Any

import typer

from deepcrawl.forms.fields import parse_field_values, parse_form_choice

__all__ = ["FieldOption", "FormOption", "form_overrides"]

FieldOption = Annotated[
    list[str] | None,
    typer.Option(
        "--field",
        metavar="NAME=VALUE",
        help="Fix a field of the search form for every query (repeatable): a select's option "
        "(category=history), a radio or checkbox value, a required field the keywords do not "
        "go into (postcode='AB1 2CD', from=2024-01-01). Adds to forms.fields of deepcrawl.toml.",
    ),
]
FormOption = Annotated[
    str | None,
    typer.Option(
        "--form",
        metavar="N|SELECTOR",
        help="The form to query when the page has several: its number in 'deepcrawl forms URL' "
        "or a CSS selector (default: the critic's choice).",
    ),
]


def form_overrides(field: list[str] | None, form: str | None) -> dict[str, Any]:
    """The ``forms`` settings section the two options give (absent ones left out).

    Raises:
        ConfigError: a ``--field`` is not NAME=VALUE, or ``--form`` is neither a number from 1
            nor a selector.
    """
    parse_form_choice(form)  # fails early, before a settings file is read
    return {"fields": parse_field_values(field) if field else None, "form": form}
