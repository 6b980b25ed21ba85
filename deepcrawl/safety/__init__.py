"""What deepcrawl never asks a site for: the one rule every request is judged by.

- ``_words`` — the words of logout, delete, close-account, subscribe and buying actions in seven
  languages (data);
- ``_rule``  — :class:`SafetyRule`, which tokenises and stems a URL's path and query and a link's
  text and finds those words in them.

The form-level policy (login, registration and order forms are never submitted) lives in
:mod:`deepcrawl.forms.safety` and uses this rule for the words of a form.
"""

from deepcrawl.safety._rule import SafetyRule, Sender, words
from deepcrawl.safety._words import FREE_TEXT_KEYS, NOT_ACTIONS, SORT_KEYS, UNSAFE_ACTIONS

__all__ = [
    "FREE_TEXT_KEYS",
    "NOT_ACTIONS",
    "SORT_KEYS",
    "UNSAFE_ACTIONS",
    "SafetyRule",
    "Sender",
    "words",
]
