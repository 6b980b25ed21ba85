"""Which field of a searchable form takes the keywords, and what to do with the others.

Inside a form the critic accepted, the filler needs to know:

* the *query field*: the text input the keywords go into (the ``qq`` field of formasaurus's
  annotations; ``benchmarks/forms_eval.py`` measures how often we pick it);
* *category fields*: selects (and radio groups) whose values partition the records — worth
  enumerating, each value reaching records other values may not;
* *sort fields*: selects that only reorder or page the results — worth varying when result
  lists are capped;
* *fixed fields*: everything else keeps its default (hidden fields, checkboxes, other text
  inputs, per-page selects).

The rules are scores over the field's type, name, id, label and placeholder; they are simple on
purpose, and readable when they are wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from deepcrawl.forms.words import KEYWORD_GROUPS, tokens

if TYPE_CHECKING:
    from deepcrawl.page.form import Form, FormField

__all__ = ["QueryFields", "find_query_fields"]

_QUERY_NAMES: Final = frozenset(
    {"q", "query", "search", "keyword", "keywords", "kw", "k", "s", "term", "terms", "text"}
    | {"searchterm", "searchword", "searchtext", "searchstring", "find", "words", "wd", "qs"}
    | {"qt", "w", "p", "sq", "string", "phrase", "txt", "key", "suche", "buscar", "search_query"}
)
_QUERY_WORDS: Final = frozenset(tokens(" ".join(KEYWORD_GROUPS["search"]))) - {"go", "s", "q"}
_NOT_QUERY: Final = frozenset(
    {"email", "mail", "zip", "postal", "postcode", "price", "min", "max", "date", "year", "day"}
    | {"month", "phone", "tel", "user", "username", "login", "pass", "password", "coupon"}
    | {"promo", "code", "qty", "quantity", "page", "captcha", "first", "last", "firstname"}
    | {"lastname", "address", "city", "from", "to", "age", "amount", "url", "jump", "goto"}
)
_SORT_WORDS: Final = frozenset(
    {"sort", "sortby", "orderby", "order", "ordering", "dir", "direction", "asc", "desc"}
    | {"rank", "ranking", "sorting", "sortierung", "orden", "tri", "ordenar"}
)
_DISPLAY_WORDS: Final = frozenset(
    {"limit", "perpage", "per", "num", "results", "show", "view", "display", "size", "rows"}
    | {"count", "pagesize", "items", "layout", "lang", "language", "currency"}
)


@dataclass(frozen=True, slots=True)
class QueryFields:
    """The roles of a form's fields.

    Attributes:
        query: the field the keywords go into, or None (a form of selects only).
        categories: selects / radio groups worth enumerating: they partition the records.
        sorts: selects that reorder the results.
        fixed: fields that keep their default value.
    """

    query: FormField | None
    categories: tuple[FormField, ...]
    sorts: tuple[FormField, ...]
    fixed: tuple[FormField, ...]


def _words(field: FormField) -> set[str]:
    return set(tokens(f"{field.name or ''} {field.id or ''} {field.label} {field.placeholder}"))


def _query_score(field: FormField, position: int) -> float:
    score = -0.05 * position
    names = {(field.name or "").lower(), (field.id or "").lower()}
    words = _words(field)
    if field.type == "search":
        score += 4
    if names & _QUERY_NAMES:
        score += 3
    if words & _QUERY_WORDS:
        score += 2
    if words & _NOT_QUERY:
        score -= 3
    if not field.visible:
        score -= 5
    return score


def _select_role(field: FormField) -> str:
    words = _words(field)
    if words & _SORT_WORDS:
        return "sort"
    if words & _DISPLAY_WORDS or len(field.options) < 2:
        return "fixed"
    return "category"


def find_query_fields(form: Form) -> QueryFields:
    """Assign a role to every field of ``form`` (see the module docstring).

    Returns:
        The roles; ``query`` is the best-scoring visible text input, or None when the form has
        none.
    """
    candidates = [f for f in form.text_fields if f.tag == "input"]
    query = None
    if candidates:
        scored = [(_query_score(f, i), -i, f) for i, f in enumerate(candidates)]
        query = max(scored, key=lambda item: (item[0], item[1]))[2]
    categories: list[FormField] = []
    sorts: list[FormField] = []
    fixed: list[FormField] = []
    seen_radio: set[str] = set()
    for field in form.fields:
        if field is query:
            continue
        if field.tag == "select" and field.visible:
            role = _select_role(field)
            (categories if role == "category" else sorts if role == "sort" else fixed).append(field)
        elif field.type == "radio" and field.visible and field.name:
            if field.name in seen_radio:
                continue
            seen_radio.add(field.name)
            siblings = [f for f in form.fields if f.type == "radio" and f.name == field.name]
            words = _words(field)
            if len(siblings) > 1 and not words & (_SORT_WORDS | _DISPLAY_WORDS):
                categories.append(field)
            else:
                fixed.append(field)
        else:
            fixed.append(field)
    return QueryFields(query, tuple(categories), tuple(sorts), tuple(fixed))
