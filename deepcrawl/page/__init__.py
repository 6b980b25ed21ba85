"""The page model, the floor every other package stands on.

What a fetch gives (:class:`FetchedPage`, its :class:`Link` list and the HTTP :class:`Exchange`),
the form model (:class:`Form` and its parts), and the one HTML parser with what is read from a
parsed page: base URL, title, text, DOM leaves, and the forms of a page fetched without a
browser. Nothing here fetches, stores or decides; the fetchers (:mod:`deepcrawl.browser`) make
these values and every floor above reads them.
"""

from deepcrawl.page.dom import DomLeaf, dom_leaves
from deepcrawl.page.fetched import Exchange, FetchedPage, Link, LinkOrigin
from deepcrawl.page.form import FieldOption, Form, FormField, SubmitControl
from deepcrawl.page.html import base_url, page_text, page_title, parse_html
from deepcrawl.page.static_forms import parse_forms
from deepcrawl.page.submission import Submission, submission_of

__all__ = [
    "DomLeaf",
    "Exchange",
    "FetchedPage",
    "FieldOption",
    "Form",
    "FormField",
    "Link",
    "LinkOrigin",
    "Submission",
    "SubmitControl",
    "base_url",
    "dom_leaves",
    "page_text",
    "page_title",
    "parse_forms",
    "parse_html",
    "submission_of",
]
