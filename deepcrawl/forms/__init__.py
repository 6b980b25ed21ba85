"""Forms: the form model, static parsing, and the critic that decides which forms may be filled.

The model and the static parser load eagerly (they are light); the critic and its classifiers
pull in scikit-learn and nltk, so they load on first access to their names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl._lazy import lazy_getattr
from deepcrawl.forms.model import FieldOption, Form, FormField, SubmitControl
from deepcrawl.forms.static import parse_forms

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
    from deepcrawl.forms.filler import FormFiller
    from deepcrawl.forms.query_field import QueryFields, find_query_fields
    from deepcrawl.forms.report import judge_forms, page_forms
    from deepcrawl.forms.results import QueryResult, ResultLink
    from deepcrawl.forms.safety import ensure_submittable
    from deepcrawl.forms.search import (
        FormChoice,
        FormSearch,
        choose_search_form,
        exhaust,
        find_search_form,
        query_page,
    )
    from deepcrawl.forms.store import load_critic, train_critic
    from deepcrawl.forms.template import TemplateSearch, UrlTemplate

__all__ = [
    "CriticVerdict",
    "DomainFormClassifier",
    "FieldOption",
    "Form",
    "FormChoice",
    "FormCritic",
    "FormField",
    "FormFiller",
    "FormSearch",
    "FormTypeClassifier",
    "QueryFields",
    "QueryResult",
    "ResultLink",
    "SearchableFormClassifier",
    "SubmitControl",
    "TemplateSearch",
    "UrlTemplate",
    "check_field_values",
    "choose_search_form",
    "ensure_submittable",
    "exhaust",
    "find_query_fields",
    "find_search_form",
    "judge_forms",
    "load_critic",
    "missing_required",
    "page_forms",
    "parse_field_values",
    "parse_form_choice",
    "parse_forms",
    "pick_form",
    "query_page",
    "train_critic",
]

_LAZY = {
    "CriticVerdict": "deepcrawl.forms.critic",
    "DomainFormClassifier": "deepcrawl.forms.classifiers",
    "FormChoice": "deepcrawl.forms.search",
    "FormCritic": "deepcrawl.forms.critic",
    "FormFiller": "deepcrawl.forms.filler",
    "FormSearch": "deepcrawl.forms.search",
    "FormTypeClassifier": "deepcrawl.forms.classifiers",
    "QueryFields": "deepcrawl.forms.query_field",
    "QueryResult": "deepcrawl.forms.results",
    "ResultLink": "deepcrawl.forms.results",
    "SearchableFormClassifier": "deepcrawl.forms.classifiers",
    "TemplateSearch": "deepcrawl.forms.template",
    "UrlTemplate": "deepcrawl.forms.template",
    "check_field_values": "deepcrawl.forms.fields",
    "choose_search_form": "deepcrawl.forms.search",
    "ensure_submittable": "deepcrawl.forms.safety",
    "exhaust": "deepcrawl.forms.search",
    "find_query_fields": "deepcrawl.forms.query_field",
    "find_search_form": "deepcrawl.forms.search",
    "judge_forms": "deepcrawl.forms.report",
    "load_critic": "deepcrawl.forms.store",
    "missing_required": "deepcrawl.forms.fields",
    "page_forms": "deepcrawl.forms.report",
    "parse_field_values": "deepcrawl.forms.fields",
    "parse_form_choice": "deepcrawl.forms.fields",
    "pick_form": "deepcrawl.forms.fields",
    "query_page": "deepcrawl.forms.search",
    "train_critic": "deepcrawl.forms.store",
}

__getattr__ = lazy_getattr(__name__, globals(), _LAZY)
