"""The safety policy: forms deepcrawl never submits, whatever the classifiers say.

Submitting the wrong form changes the world: it logs in, creates an account, sends a message,
subscribes an address, orders goods. The critic's scores decide which forms are *worth*
filling; this policy decides which forms are *allowed*, and it only ever removes forms:

* a form with a password or file field is refused;
* a form whose predicted type is login, registration, password recovery, contact, mailing list
  or order is refused;
* a form whose action URL (when not the page's own), attributes, submit controls or
  text-field labels hold a word the request rule refuses (:class:`deepcrawl.safety.SafetyRule`:
  logout, delete, cart, order … in seven languages) or one of ``settings.forms.refused_words``
  (login, register, contact …; tokenised and stemmed the same way) is refused;
* a form whose action is on another host (or port) than its page is refused: the crawl's scope
  is its start page's host, so the submission would leave it — to a site nobody asked to crawl.

The option texts and the labels of select boxes are not matched: a search form's "Sort order"
select is no reason to refuse it. :func:`ensure_submittable` is the gate every submission path
calls; it raises :class:`~deepcrawl.errors.UnsafeFormError`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Final, Protocol

from deepcrawl.browser.scope import host_of
from deepcrawl.errors import UnsafeFormError
from deepcrawl.safety import SafetyRule

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from deepcrawl.page.form import Form

__all__ = [
    "REFUSED_FIELD_TYPES",
    "REFUSED_TYPES",
    "Verdict",
    "ensure_submittable",
    "refusal_reasons",
]

#: Predicted form types that are never submitted.
REFUSED_TYPES: Final = frozenset(
    {"login", "registration", "password recovery", "contact", "mailing list", "order"}
)
#: Field types whose presence forbids submission.
REFUSED_FIELD_TYPES: Final = frozenset({"password", "file"})


class Verdict(Protocol):
    """What the gate reads of a critic's verdict (:class:`deepcrawl.forms.critic.CriticVerdict`)."""

    @property
    def type(self) -> str: ...
    @property
    def searchable(self) -> bool: ...
    @property
    def reasons(self) -> Sequence[str]: ...


@lru_cache(maxsize=8)
def _rule(refused_words: tuple[str, ...]) -> SafetyRule:
    return SafetyRule(refused_words)


def _matched_words(form: Form, refused_words: Iterable[str]) -> list[str]:
    rule = _rule(tuple(refused_words))
    # A form without an action attribute submits to its own page: the page's URL says nothing
    # about the form (a search box on /login), so only an action of the form's own is matched.
    own_action = form.action.split("#")[0] != form.page_url.split("#")[0]
    matched = [found] if own_action and (found := rule.url_reason(form.action)) else []
    parts = [
        form.id or "",
        form.name or "",
        " ".join(form.classes),
    ]
    parts.extend(f"{s.text} {s.value} {s.name or ''}" for s in form.submits)
    parts.extend(
        f"{f.name or ''} {f.id or ''} {f.label} {f.placeholder}"
        for f in form.fields[:200]
        if f.tag == "textarea" or (f.tag == "input" and f.type not in {"hidden", "checkbox"})
    )
    # Each part alone: words of two fields never make a phrase together.
    matched.extend(word for part in parts for word in rule.text_matches(part))
    return list(dict.fromkeys(matched))


def refusal_reasons(form: Form, form_type: str, refused_words: Iterable[str] | None) -> list[str]:
    """Why the policy refuses ``form`` (an empty list: it does not).

    Args:
        form: the form.
        form_type: its predicted type.
        refused_words: words that mark a form as account-changing or destructive, on top of the
            request rule's; None: the form's words are not judged at all.

    Returns:
        Human-readable reasons, in a fixed order.
    """
    reasons: list[str] = []
    bad_fields = sorted({f.type for f in form.fields if f.type in REFUSED_FIELD_TYPES})
    if bad_fields:
        reasons.append(f"has a {' and a '.join(bad_fields)} field")
    if form_type in REFUSED_TYPES:
        article = "an" if form_type[0] in "aeiou" else "a"
        reasons.append(f"is {article} {form_type} form")
    words = [] if refused_words is None else _matched_words(form, refused_words)
    if words:
        reasons.append("mentions " + ", ".join(repr(w) for w in words))
    if (elsewhere := _other_host(form)) is not None:
        reasons.append(
            f"submits to {elsewhere}, not to its page's host {host_of(form.page_url)}: "
            "outside the crawl's scope"
        )
    return reasons


def _other_host(form: Form) -> str | None:
    """The host (``host[:port]``) ``form`` submits to when it is not its page's; None when it
    is, or when either URL is no http(s) URL (nothing to compare)."""
    action, page = host_of(form.action), host_of(form.page_url)
    return action if action and page and action != page else None


def ensure_submittable(form: Form, verdict: Verdict) -> None:
    """The gate before any submission: return quietly, or raise.

    The password/file and form-type rules are re-checked on ``form`` itself, so a verdict that
    belongs to another form cannot open the gate.

    Raises:
        UnsafeFormError: the verdict does not accept the form, or the policy refuses it.
    """
    reasons = refusal_reasons(form, verdict.type, None)
    if not verdict.searchable:
        reasons = [*verdict.reasons] or ["the critic does not accept it"]
    if reasons:
        where = form.locator or form.action
        raise UnsafeFormError(f"refusing to submit form {where}: {'; '.join(reasons)}")
