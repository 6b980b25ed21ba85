"""Forms: the critic that decides which forms may be filled, and the user's field values.

The form model and static form parsing are on the page floor (:mod:`deepcrawl.page`); querying
a chosen form is :mod:`deepcrawl.search`. The critic and its classifiers pull in scikit-learn
and nltk, so every name here loads on first access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl._lazy import lazy_getattr

if TYPE_CHECKING:
    from deepcrawl.forms.classifiers import (
        DomainFormClassifier,
        FormTypeClassifier,
        SearchableFormClassifier,
    )
    from deepcrawl.forms.critic import CriticVerdict, FormCritic
    from deepcrawl.forms.fields import (
        check_field_values,
        missing_required,
        parse_field_values,
        parse_form_choice,
        pick_form,
    )
    from deepcrawl.forms.query_field import QueryFields, find_query_fields
    from deepcrawl.forms.safety import ensure_submittable
    from deepcrawl.forms.store import load_critic, train_critic

__all__ = [
    "CriticVerdict",
    "DomainFormClassifier",
    "FormCritic",
    "FormTypeClassifier",
    "QueryFields",
    "SearchableFormClassifier",
    "check_field_values",
    "ensure_submittable",
    "find_query_fields",
    "load_critic",
    "missing_required",
    "parse_field_values",
    "parse_form_choice",
    "pick_form",
    "train_critic",
]

_LAZY = {
    "CriticVerdict": "deepcrawl.forms.critic",
    "DomainFormClassifier": "deepcrawl.forms.classifiers",
    "FormCritic": "deepcrawl.forms.critic",
    "FormTypeClassifier": "deepcrawl.forms.classifiers",
    "QueryFields": "deepcrawl.forms.query_field",
    "SearchableFormClassifier": "deepcrawl.forms.classifiers",
    "check_field_values": "deepcrawl.forms.fields",
    "ensure_submittable": "deepcrawl.forms.safety",
    "find_query_fields": "deepcrawl.forms.query_field",
    "load_critic": "deepcrawl.forms.store",
    "missing_required": "deepcrawl.forms.fields",
    "parse_field_values": "deepcrawl.forms.fields",
    "parse_form_choice": "deepcrawl.forms.fields",
    "pick_form": "deepcrawl.forms.fields",
    "train_critic": "deepcrawl.forms.store",
}

__getattr__ = lazy_getattr(__name__, globals(), _LAZY)
