"""Querying a search form: fill it, submit it, read and page through its results.

* :mod:`~deepcrawl.search.backend` — :class:`QueryBackend`, the contract of
  ``query(keyword, values, *, max_pages, more)`` that every way of querying declares;
* :mod:`~deepcrawl.search.form_choice` — which form of a page is its search
  (:func:`find_search_form`);
* :mod:`~deepcrawl.search.form_search` — :class:`FormSearch`, which picks how a chosen form is
  queried, query by query;
* the ways of querying it: :mod:`~deepcrawl.search.filler` (the browser fills and submits the
  form), :mod:`~deepcrawl.search.template` (the form's GET URL template over plain HTTP) and
  :mod:`~deepcrawl.search.data_api` (the JSON API a script-driven search calls);
* what they share: :mod:`~deepcrawl.search.results` (a result page and its links),
  :mod:`~deepcrawl.search.judge` (which links are results), :mod:`~deepcrawl.search.pagination`
  and :mod:`~deepcrawl.search.page_size` (more results per request),
  :mod:`~deepcrawl.search.browsing` (a settled live page read as a result page).

The form model and the critic that decides which forms may be filled are in
:mod:`deepcrawl.forms`; this package loads the browser stack, so its names load on first access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl._lazy import lazy_getattr

if TYPE_CHECKING:
    from deepcrawl.search.backend import QueryBackend
    from deepcrawl.search.filler import FormFiller
    from deepcrawl.search.form_choice import FormChoice, choose_search_form, find_search_form
    from deepcrawl.search.form_search import FormSearch, query_page
    from deepcrawl.search.replay import FormReplay
    from deepcrawl.search.report import judge_forms, page_forms
    from deepcrawl.search.results import QueryResult, ResultLink, ResultPage
    from deepcrawl.search.template import TemplateSearch, UrlTemplate

__all__ = [
    "FormChoice",
    "FormFiller",
    "FormReplay",
    "FormSearch",
    "QueryBackend",
    "QueryResult",
    "ResultLink",
    "ResultPage",
    "TemplateSearch",
    "UrlTemplate",
    "choose_search_form",
    "find_search_form",
    "judge_forms",
    "page_forms",
    "query_page",
]

_LAZY = {
    "FormChoice": "deepcrawl.search.form_choice",
    "FormFiller": "deepcrawl.search.filler",
    "FormReplay": "deepcrawl.search.replay",
    "FormSearch": "deepcrawl.search.form_search",
    "QueryBackend": "deepcrawl.search.backend",
    "QueryResult": "deepcrawl.search.results",
    "ResultLink": "deepcrawl.search.results",
    "ResultPage": "deepcrawl.search.results",
    "TemplateSearch": "deepcrawl.search.template",
    "UrlTemplate": "deepcrawl.search.template",
    "choose_search_form": "deepcrawl.search.form_choice",
    "find_search_form": "deepcrawl.search.form_choice",
    "judge_forms": "deepcrawl.search.report",
    "page_forms": "deepcrawl.search.report",
    "query_page": "deepcrawl.search.form_search",
}

__getattr__ = lazy_getattr(__name__, globals(), _LAZY)
