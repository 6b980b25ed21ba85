"""The words of forms: a form's text split into words, and the words that say what a form is for.

Light on purpose (no scikit-learn, no nltk): the command line checks ``--field`` values and finds
the query field with these before anything heavy loads; the critic's features
(:mod:`deepcrawl.forms.features`) stem the same words.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["KEYWORD_GROUPS", "tokens"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")

#: Words whose presence (after stemming) in a form is a structural signal, by group.
KEYWORD_GROUPS: Final = {
    "search": (
        *("search", "find", "query", "keyword", "lookup", "look up", "go", "q", "s", "finder"),
        *("suche", "suchen", "buscar", "busca", "buscador", "recherche", "rechercher", "cerca"),
        *("ricerca", "zoeken", "zoek", "szukaj", "pesquisa", "pesquisar", "arama", "ara"),
        *("hledat", "keres", "sök", "søg", "haku", "поиск", "найти", "искать", "пошук"),
        *("検索", "搜索", "搜尋", "查询", "검색", "بحث", "חיפוש", "ค้นหา", "tìm"),
    ),
    "refine": ("sort", "filter", "refine", "order by", "per page", "show", "category", "browse"),
    "login": ("login", "log in", "sign in", "signin", "logon", "password", "username"),
    "register": ("register", "registration", "sign up", "signup", "create account", "join"),
    "recover": ("forgot", "reset", "recover", "lost", "remind"),
    "mail": ("subscribe", "newsletter", "email", "mailing", "notify", "updates"),
    "contact": ("contact", "message", "comment", "feedback", "reply", "subject", "phone"),
    "order": ("cart", "basket", "buy", "checkout", "order", "quantity", "qty", "price", "add"),
}


def tokens(text: str) -> list[str]:
    """Split ``text`` into lower-case words (camelCase and snake_case split too)."""
    return [w.lower() for w in _WORD.findall(_CAMEL.sub(" ", text))]
