"""Features of a form, as scikit-learn transformers over :class:`~deepcrawl.page.form.Form`.

ACHE (section 3.4) splits a form's features in two: its *structure* (how many fields of each
kind, the method, whether it speaks of searching) decides whether it is searchable, its *text*
(labels, buttons, option texts, the words around it) decides its domain. :class:`FormStructure`
turns forms into feature dicts (for a ``DictVectorizer``), :class:`FormText` into strings of
stemmed, stop-word-filtered tokens tagged with where they come from (for a ``TfidfVectorizer``).
Both are stateless, so they sit at the head of any ``Pipeline``.

Stemming uses nltk's Snowball stemmer and the stop words of the ``stop-words`` package, both
of which work offline (nltk's own corpora cannot be downloaded here; see docs/ARCHITECTURE.md).
"""

from __future__ import annotations

from collections import Counter
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, Final
from urllib.parse import unquote, urlsplit

from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
from stop_words import get_stop_words

from deepcrawl.forms.words import KEYWORD_GROUPS, tokens

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from deepcrawl.page.form import Form

__all__ = [
    "TEXT_SOURCES",
    "FormStructure",
    "FormText",
    "action_text",
    "stem_tokens",
]

_STOP: Final = frozenset(ENGLISH_STOP_WORDS) | frozenset(get_stop_words("english"))
_MAX_FIELDS = 200  # features of a 500-field form are those of its first 200 fields

#: Where textual tokens come from; each token is prefixed with its source.
TEXT_SOURCES: Final = (
    "action",
    "attrs",
    "names",
    "labels",
    "placeholders",
    "buttons",
    "options",
    "text",
    "context",
)

_COUNTED_TYPES: Final = (
    "text",
    "search",
    "email",
    "password",
    "hidden",
    "checkbox",
    "radio",
    "select",
    "select-multiple",
    "file",
    "textarea",
    "number",
    "tel",
    "url",
    "date",
    "button",
    "reset",
)


@cache
def _stemmer() -> Any:
    """nltk's Snowball stemmer, imported on first use: importing nltk costs a second (it loads
    scipy), which every start of the command line would otherwise pay."""
    from nltk.stem.snowball import SnowballStemmer

    return SnowballStemmer("english")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return str(_stemmer().stem(word))


def stem_tokens(text: str, *, keep_stop_words: bool = False) -> list[str]:
    """Tokens of ``text``, stop words dropped (unless asked), stemmed; digits-only dropped."""
    return [
        _stem(w)
        for w in tokens(text)
        if not w.isdigit() and len(w) < 40 and (keep_stop_words or w not in _STOP)
    ]


def action_text(url: str) -> str:
    """The path and query of an action URL, unquoted (the raw string if it does not parse)."""
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. "http://[bad" — a page may say anything
        return unquote(url)
    return unquote(f"{parts.path} {parts.query}")


def _stem_phrase(phrase: str) -> str:
    return " ".join(_stem(w) for w in tokens(phrase))


@cache
def _group_stems() -> dict[str, tuple[str, ...]]:
    """The stems of each keyword group's phrases."""
    return {
        group: tuple(_stem_phrase(word) for word in words)
        for group, words in KEYWORD_GROUPS.items()
    }


def _sources(form: Form) -> dict[str, str]:
    """The raw text of each source of ``form``."""
    fields = form.fields[:_MAX_FIELDS]
    return {
        "action": action_text(form.action),
        "attrs": " ".join([form.id or "", form.name or "", *form.classes]),
        "names": " ".join(f"{f.name or ''} {f.id or ''}" for f in fields if f.type != "hidden"),
        "labels": " ".join(f.label for f in fields),
        "placeholders": " ".join(f.placeholder for f in fields),
        "buttons": " ".join(f"{s.text} {s.value} {s.name or ''}" for s in form.submits),
        "options": " ".join(o.text for f in fields for o in f.options[:50]),
        "text": form.text[:1000],
        "context": form.context,
    }


def _has(stems: str, phrases: Iterable[str]) -> bool:
    padded = f" {stems} "
    return any(f" {p} " in padded for p in phrases)


class FormStructure(TransformerMixin, BaseEstimator):  # type: ignore[misc]
    """Forms → dicts of structural features (field counts, method, keyword flags).

    Keyword flags say whether a group of :data:`KEYWORD_GROUPS` appears in each of the form's
    attributes, action, field names, labels/placeholders and button texts — ACHE's "does the
    word *search* appear in the form" generalised to the other form types.
    """

    def fit(self, X: Sequence[Form], y: Any = None) -> FormStructure:
        """Nothing to learn; returns self."""
        return self

    def transform(self, X: Sequence[Form]) -> list[dict[str, float]]:
        """One feature dict per form."""
        return [self._features(form) for form in X]

    @staticmethod
    def _features(form: Form) -> dict[str, float]:
        types = Counter(f.type for f in form.fields)
        visible = [f for f in form.fields if f.type != "hidden" and f.visible]
        feats: dict[str, float] = {f"n_{t}": float(types.get(t, 0)) for t in _COUNTED_TYPES}
        feats["n_other_input"] = float(sum(types.values()) - sum(types[t] for t in _COUNTED_TYPES))
        feats["n_visible"] = float(len(visible))
        feats["n_fields"] = float(len(form.fields))
        feats["n_select_options"] = float(sum(len(f.options) for f in form.fields))
        feats["n_required"] = float(sum(f.required for f in form.fields))
        kinds = Counter(s.kind for s in form.submits)
        for kind in ("button", "input", "image", "js"):
            feats[f"n_submit_{kind}"] = float(kinds.get(kind, 0))
        feats["n_submit"] = float(len(form.submits))
        feats["method_post"] = float(form.method == "POST")
        feats["multipart"] = float("multipart" in form.enctype)
        feats["formless"] = float(form.formless)
        feats["text_len"] = float(min(len(form.text), 2000)) / 100.0
        feats["one_text_field"] = float(len(form.text_fields) == 1)
        sources = _sources(form)
        groups = {
            "attrs": sources["attrs"],
            "action": sources["action"],
            "names": sources["names"],
            "labels": f"{sources['labels']} {sources['placeholders']}",
            "buttons": sources["buttons"],
            "text": sources["text"],
        }
        for where, raw in groups.items():
            stems = " ".join(stem_tokens(raw, keep_stop_words=True))
            for group, phrases in _group_stems().items():
                if _has(stems, phrases):
                    feats[f"kw_{group}_{where}"] = 1.0
        return feats


class FormText(TransformerMixin, BaseEstimator):  # type: ignore[misc]
    """Forms (or plain strings, e.g. a page's text) → strings of source-tagged stemmed tokens.

    Args:
        sources: the sources of :data:`TEXT_SOURCES` to use.
        tag_sources: prefix each token with its source (``labels:titl``), so that "search" in a
            button and "search" in the surrounding text are different features.
    """

    _STRING_SOURCE: ClassVar[str] = "text"

    def __init__(self, sources: tuple[str, ...] = TEXT_SOURCES, tag_sources: bool = True) -> None:
        self.sources = sources
        self.tag_sources = tag_sources

    def fit(self, X: Sequence[Form | str], y: Any = None) -> FormText:
        """Nothing to learn; returns self."""
        return self

    def transform(self, X: Sequence[Form | str]) -> list[str]:
        """One string of space-separated tokens per form."""
        return [self._text(item) for item in X]

    def _text(self, item: Form | str) -> str:
        raw = {self._STRING_SOURCE: item[:20000]} if isinstance(item, str) else _sources(item)
        words: list[str] = []
        for source in self.sources:
            prefix = f"{source}:" if self.tag_sources else ""
            words.extend(prefix + stem for stem in stem_tokens(raw.get(source, "")))
        return " ".join(words)
