"""The training corpus of the critic: formasaurus's annotated web forms, read from the package.

The PyPI package ``formasaurus`` (MIT) ships ~950 real web pages (``formasaurus/data/html/``)
and their annotations (``formasaurus/data/index.json``): for each page, one type code per
``<form>`` in document order and, for each form, the types of its visible named fields (``qq``
is the search query box). We read these files directly — importing formasaurus would pull in
its own classifier and ``tldextract``, which may try the network — and parse the pages with
our own static parser, so the critic trains on exactly the model it classifies at run time.

Duplicate forms (the same site-wide search box on many pages of a site) are kept once, as
formasaurus does; pages whose form count no longer matches the annotations under this lxml
are skipped.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final
from urllib.parse import urlsplit

from deepcrawl.errors import ConfigError
from deepcrawl.forms.features import action_text
from deepcrawl.page.static_forms import parse_forms

if TYPE_CHECKING:
    from deepcrawl.page.form import Form

__all__ = [
    "FORM_TYPES",
    "TYPE_CODES",
    "CorpusForm",
    "corpus_dir",
    "corpus_hash",
    "load_corpus",
]

#: The form types the critic predicts, in a fixed order.
FORM_TYPES: Final = (
    "search",
    "login",
    "registration",
    "password recovery",
    "contact",
    "mailing list",
    "order",
    "other",
)

#: formasaurus's one-letter form codes mapped to :data:`FORM_TYPES` (poll, display options,
#: navigation and captcha forms count as "other"; ``-`` and ``X`` are not annotated).
TYPE_CODES: Final = {
    "s": "search",
    "l": "login",
    "r": "registration",
    "p": "password recovery",
    "c": "contact",
    "m": "mailing list",
    "b": "order",
    "o": "other",
    "P": "other",
    "V": "other",
    "N": "other",
    "C": "other",
}


@dataclass(frozen=True, slots=True)
class CorpusForm:
    """One annotated form of the corpus.

    Attributes:
        form: the form as our static parser sees it.
        type: its annotated type, one of :data:`FORM_TYPES`.
        page: the page file it comes from (the CV group).
        domain: the host of the page's URL (a stricter CV group).
        field_types: formasaurus field codes by field name (``qq``: search query).
    """

    form: Form
    type: str
    page: str
    domain: str
    field_types: dict[str, str]


def corpus_dir() -> Path:
    """The ``data`` folder of the installed formasaurus package.

    Raises:
        ConfigError: formasaurus (a dependency of deepcrawl) is not installed.
    """
    spec = importlib.util.find_spec("formasaurus")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            "the form critic trains on formasaurus's corpus, which is not installed: "
            "pip install formasaurus (a dependency of deepcrawl)"
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / "data"
    if not (folder / "index.json").is_file():
        raise ConfigError(f"formasaurus's corpus is missing: no {folder / 'index.json'}")
    return folder


def corpus_hash(folder: Path | None = None) -> str:
    """A short hash of the annotations (index.json) and the page list: the cache key part."""
    folder = folder or corpus_dir()
    digest = hashlib.sha256((folder / "index.json").read_bytes())
    for page in sorted((folder / "html").iterdir()):
        digest.update(f"{page.name}:{page.stat().st_size}".encode())
    return digest.hexdigest()[:16]


def _fingerprint(form: Form) -> str:
    visible = [
        (f.tag, f.type, f.name, f.label, f.placeholder, tuple(o.text for o in f.options))
        for f in form.fields
        if f.type != "hidden"
    ]
    submits = [(s.kind, s.name, s.text) for s in form.submits]
    return repr((action_text(form.action), form.method, visible, submits, form.text))


_READ: dict[tuple[Path, bool, str], tuple[CorpusForm, ...]] = {}


def load_corpus(folder: Path | None = None, *, deduplicate: bool = True) -> list[CorpusForm]:
    """Read every annotated form of formasaurus's corpus, in a deterministic order.

    The result is kept in memory for the process (keyed by the corpus hash), so training and
    evaluating in one process parse the pages once.

    Args:
        folder: the corpus folder; default: the installed package's.
        deduplicate: keep one copy of forms that appear on several pages.

    Returns:
        The annotated forms, sorted by page file name then form position.

    Raises:
        ConfigError: the corpus cannot be found or read.
    """
    folder = folder or corpus_dir()
    try:
        key = (folder.resolve(), deduplicate, corpus_hash(folder))
    except OSError as exc:
        raise ConfigError(f"cannot read formasaurus's corpus in {folder}: {exc}") from exc
    if key not in _READ:
        _READ[key] = tuple(_read(folder, deduplicate))
    return list(_READ[key])


def _read(folder: Path, deduplicate: bool) -> list[CorpusForm]:
    try:
        index: dict[str, dict[str, object]] = json.loads((folder / "index.json").read_text())
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read formasaurus's index.json: {exc}") from exc
    seen: set[str] = set()
    found: list[CorpusForm] = []
    for page in sorted(index, key=lambda p: (len(p), p)):
        info = index[page]
        url = str(info["url"])
        codes = [str(c) for c in info.get("forms", [])]  # type: ignore[attr-defined]
        fields = list(info.get("visible_html_fields", []))  # type: ignore[call-overload]
        try:
            # whole forms: the annotations number the page's <form> elements
            forms = parse_forms((folder / page).read_bytes(), url, formless=False, groups=False)
        except OSError as exc:
            raise ConfigError(f"cannot read {folder / page}: {exc}") from exc
        if len(forms) != len(codes):
            continue
        for position, (form, code) in enumerate(zip(forms, codes, strict=True)):
            if code not in TYPE_CODES:
                continue
            if deduplicate:
                key = _fingerprint(form)
                if key in seen:
                    continue
                seen.add(key)
            annotated = fields[position] if position < len(fields) else {}
            found.append(
                CorpusForm(
                    form=form,
                    type=TYPE_CODES[code],
                    page=page,
                    domain=urlsplit(url).hostname or url,
                    field_types={str(k): str(v) for k, v in dict(annotated).items()},
                )
            )
    return found
