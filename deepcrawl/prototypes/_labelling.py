"""Labelling prototypes: the user says which kinds of URL are wanted (Hernández et al., §2.2).

The prototyper "helps the user to assign a label to each prototype ... and to select relevant
concepts". A :class:`LabelSession` holds one site's prototypes and the URLs they were learnt from,
and offers every operation the ``deepcrawl label`` command needs — label, merge two prototypes,
split one, more examples, "pages like this URL" — storing prototypes and labels through the
:class:`~deepcrawl.storage.Repository`. Labels can also come from a YAML file::

    - prototype: p1a2b3c4d5e     # a prototype id ...
      name: book
      relevant: true
    - like: https://example.com/book/17   # ... or an example URL of the pages wanted
      name: record
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

import yaml

from deepcrawl.errors import ConfigError, InvalidURLError
from deepcrawl.prototypes._matcher import PrototypeMatcher
from deepcrawl.prototypes._model import Prototype
from deepcrawl.prototypes._prototyper import Prototyper
from deepcrawl.urls import URLNormaliser, normalise_urls
from deepcrawl.userinfo import split_userinfo

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from pathlib import Path

    from deepcrawl.storage import PrototypeRead, Repository

__all__ = [
    "LabelSession",
    "from_row",
    "read_labels_file",
    "resolve_like",
    "suggest_name",
    "to_row",
]

_FOUND_BY_MAX = 256
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def suggest_name(prototype: Prototype) -> str:
    """A readable default label: the literal words of the prototype's path (``book-print``)."""
    rest = prototype.regex.split("://", 1)[-1]
    path = rest.split("/", 1)[1] if "/" in rest else ""
    words = []
    for segment in path.split("/"):
        word = segment.replace("\\", "")
        if _WORD_RE.fullmatch(word):
            words.append(word)
    if words:
        return "-".join(words[:3])
    return "home" if path.startswith(("?", "(", "\\?")) or not path else "page"


def resolve_like(like: str, base: str | Sequence[str]) -> str:
    """A "pages like this one" example as an absolute URL, the way ``crawl --like`` takes it.

    Args:
        like: a URL, or a path (``/book/3``).
        base: what a path is resolved against: a site's start URL, or — for a plain URL list —
            the list itself, whose URLs must then all be on one host.

    Raises:
        ConfigError: ``like`` is a path and the list's URLs are on no host or on several.
    """
    text = like.strip()
    if urlsplit(text).scheme:
        return text
    if not isinstance(base, str):
        origins: dict[str, None] = {}
        for url in base:
            try:
                parts = urlsplit(url.strip())
            except ValueError:
                continue
            if parts.scheme in {"http", "https"} and parts.netloc:
                origins[f"{parts.scheme}://{parts.netloc}/"] = None
        if len(origins) != 1:
            found = ", ".join(list(origins)[:3]) or "none"
            raise ConfigError(
                f"--like {text} is a path, but the URL list is not on one host "
                f"(found: {found}): give the full URL"
            )
        base = next(iter(origins))
    return urljoin(base, text)


def to_row(prototype: Prototype) -> dict[str, Any]:
    """The storage fields of a prototype (``PrototypeBase``)."""
    return {
        "key": prototype.id,
        "regex": prototype.regex,
        "count": prototype.count,
        "coverage": prototype.coverage,
        "examples": list(prototype.examples),
        "found_by": prototype.how[:_FOUND_BY_MAX],
    }


def from_row(row: PrototypeRead) -> Prototype:
    """A prototype read back from storage (no dispatch hints: matched through the slow bucket)."""
    return Prototype(
        regex=row.regex,
        count=row.count,
        coverage=row.coverage,
        examples=tuple(row.examples),
        how=row.found_by,
        id=row.key,
    )


#: The fields of a labels file entry and the type each must have.
_LABEL_FIELDS: dict[str, tuple[type, str]] = {
    "prototype": (str, "a prototype id (text)"),
    "like": (str, "a URL or a path (text)"),
    "name": (str, "a name (text)"),
    "relevant": (bool, "true or false"),
}


def read_labels_file(path: Path, *, base: str | None = None) -> list[dict[str, Any]]:
    """Read a labels YAML file: a list (or ``labels:`` list) of ``prototype``/``like`` entries.

    Each entry is checked against the schema: ``prototype`` (an id) or ``like`` (a URL, or a
    path resolved against ``base`` as ``--like`` is), optional ``name`` and ``relevant``
    (true or false), nothing else.

    Args:
        path: the file.
        base: the crawl's start URL, against which a relative ``like`` is resolved.

    Raises:
        ConfigError: the file is missing, cannot be read or parsed, or an entry breaks the
            schema; the one-line message names the file, the entry and the field.
    """
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(f"labels file {path} does not exist") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read labels file {path}: {exc}") from exc
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" (line {where.line + 1})" if where is not None else ""
        raise ConfigError(f"labels file {path} is not valid YAML{line}") from exc
    if isinstance(data, dict):
        data = data.get("labels")
    if not isinstance(data, list):
        raise ConfigError(f"labels file {path}: expected a list of labels")
    entries = []
    for i, entry in enumerate(data, 1):
        where = f"labels file {path}, entry {i}"
        if not isinstance(entry, dict) or not ({"prototype", "like"} & entry.keys()):
            raise ConfigError(f"{where}: needs 'prototype' or 'like'")
        unknown = entry.keys() - _LABEL_FIELDS.keys()
        if unknown:
            raise ConfigError(f"{where}: unknown keys {sorted(map(str, unknown))}")
        for key, value in entry.items():
            kind, wanted = _LABEL_FIELDS[key]
            if not isinstance(value, kind) or (isinstance(value, str) and not value.strip()):
                raise ConfigError(f"{where}, field {key!r}: must be {wanted}, not {value!r}")
        if base is not None and "like" in entry:
            entry = {**entry, "like": urljoin(base, entry["like"].strip())}
        entries.append(entry)
    return entries


class LabelSession:
    """One site's prototypes, the URLs behind them, and the user's labels.

    Args:
        repo: where prototypes and labels are stored.
        site_id: the site.
        urls: the (normalised) URLs the prototypes were learnt from, for examples and splits.
        prototypes: the site's prototypes; None: read them from the repository.
        prototyper: the prototyper whose parameters the session's prototypes were learnt with
            (an unfitted one: its splits and examples follow them); None: the defaults.
    """

    def __init__(
        self,
        repo: Repository,
        site_id: int,
        urls: Iterable[str],
        prototypes: Iterable[Prototype] | None = None,
        *,
        prototyper: Prototyper | None = None,
    ) -> None:
        self.repo = repo
        self.site_id = site_id
        self.prototyper = prototyper or Prototyper()
        self.normaliser = URLNormaliser()
        self.urls = list(urls)
        if prototypes is None:  # stored ones (no dispatch hints: matched a little slower)
            self.prototypes = [from_row(r) for r in repo.prototypes(site_id)]
        else:
            self.prototypes = list(prototypes)
        self.prototypes.sort(key=_order)  # as the repository lists them
        self._index()

    @classmethod
    def learn(
        cls,
        repo: Repository,
        site_id: int,
        urls: Iterable[str],
        prototyper: Prototyper | None = None,
    ) -> LabelSession:
        """Prototype ``urls`` (with ``prototyper``'s parameters; None: the defaults), store the
        prototypes for the site, and open a session on them."""
        normal = list(dict.fromkeys(u for u in normalise_urls(urls) if isinstance(u, str)))
        fitted = Prototyper(**(prototyper or Prototyper()).get_params()).fit(normal)
        repo.save_prototypes(site_id, [_base(p) for p in fitted.prototypes_])
        return cls(repo, site_id, normal, fitted.prototypes_, prototyper=prototyper)

    # -- queries ---------------------------------------------------------------------------

    def _index(self) -> None:
        self.matcher = PrototypeMatcher(self.prototypes, self.normaliser)
        self.members: dict[str, list[str]] = {p.id: [] for p in self.prototypes}
        for url in self.urls:
            pid = self.matcher.match(url)
            if pid is not None:
                self.members[pid].append(url)

    def get(self, key: str) -> Prototype:
        """The prototype with this id.

        Raises:
            ConfigError: no such prototype (the message lists the known ids).
        """
        for p in self.prototypes:
            if p.id == key:
                return p
        known = ", ".join(p.id for p in self.prototypes)
        raise ConfigError(f"no prototype {key!r}; known: {known}")

    def like(self, url: str) -> Prototype:
        """The prototype a URL falls in ("pages like this one"); a user name and password in
        it play no part (the site's links carry none: :mod:`deepcrawl.userinfo`).

        Raises:
            InvalidURLError: the URL cannot be normalised.
            ConfigError: no prototype matches it.
        """
        normal = self.normaliser(split_userinfo(url)[0])
        pid = self.matcher.match(normal)
        if pid is None:
            raise ConfigError(f"no prototype matches {normal}")
        return self.get(pid)

    def examples(self, key: str, start: int = 0, count: int = 10) -> list[str]:
        """Member URLs of a prototype, ``count`` from ``start`` (to show more examples)."""
        return self.members.get(key, [])[start : start + count]

    def labels(self) -> dict[str, tuple[str, bool]]:
        """Stored labels: prototype id -> (name, relevant)."""
        return {r.prototype_key: (r.name, r.relevant) for r in self.repo.labels(self.site_id)}

    # -- changes ---------------------------------------------------------------------------

    def label(self, key: str, name: str, *, relevant: bool) -> None:
        """Store a label for a prototype.

        Raises:
            ConfigError: unknown prototype or empty name.
        """
        self.get(key)
        if not name.strip():
            raise ConfigError("a label needs a name")
        self.repo.set_label(self.site_id, key, name=name.strip(), relevant=relevant)

    def unlabel(self, keys: Iterable[str]) -> None:
        """Take the labels of these prototypes back (a proposal the person turned down)."""
        self.repo.delete_labels(self.site_id, keys)

    def label_like(self, url: str, name: str | None = None, *, relevant: bool = True) -> Prototype:
        """Label the prototype ``url`` falls in (relevant by default); returns it."""
        prototype = self.like(url)
        self.label(prototype.id, name or suggest_name(prototype), relevant=relevant)
        return prototype

    def apply(self, entries: Iterable[dict[str, Any]]) -> list[tuple[Prototype, str, bool]]:
        """Apply entries of a labels file (see :func:`read_labels_file`); returns what was set."""
        done = []
        for entry in entries:
            relevant = bool(entry.get("relevant", True))
            try:
                prototype = (
                    self.like(entry["like"])
                    if "like" in entry
                    else self.get(str(entry["prototype"]))
                )
            except InvalidURLError as exc:
                raise ConfigError(str(exc)) from exc
            name = str(entry.get("name") or suggest_name(prototype))
            self.label(prototype.id, name, relevant=relevant)
            done.append((prototype, name, relevant))
        return done

    def merge(self, a: str, b: str) -> Prototype:
        """Merge two prototypes into one whose regex accepts either; returns the new prototype.

        The labels of the two old prototypes are deleted with them (label the merged one).
        """
        first, second = self.get(a), self.get(b)
        if first.id == second.id:
            raise ConfigError("cannot merge a prototype with itself")
        regex = f"(?:{first.regex})|(?:{second.regex})"
        same = first.origin == second.origin and first.depth == second.depth
        merged = Prototype(
            regex=regex,
            count=first.count + second.count,
            coverage=first.coverage + second.coverage,
            examples=(first.examples + second.examples)[: self.prototyper.max_examples],
            how=f"merged by the user: {first.id} + {second.id}",
            origin=first.origin if same else None,
            depth=first.depth if same else None,
        )
        self._replace([first, second], [merged])
        return merged

    def split(self, key: str) -> list[Prototype]:
        """Split a prototype: prototype its URLs again with stricter thresholds.

        Returns the new prototypes (just the old one when no split was found); the old
        prototype's label is deleted with it.
        """
        old = self.get(key)
        urls = self.members.get(key, [])
        params = self.prototyper.get_params()
        strict = Prototyper(
            **{
                **params,
                "literal_threshold": params["literal_threshold"] / 2,
                "min_support": max(1, params["min_support"] - 1),
                "query_split_max_values": max(2, params["query_split_max_values"]),
                "merge_min_siblings": 10**6,
            }
        )
        parts = strict.fit(urls).prototypes_ if urls else ()
        if len(parts) < 2:
            return [old]
        scale = old.coverage / old.count if old.count else 0.0
        new = [
            replace(p, coverage=p.count * scale, how=f"split by the user from {old.id}; {p.how}")
            for p in parts
        ]
        self._replace([old], new)
        return new

    def _replace(self, old: list[Prototype], new: list[Prototype]) -> None:
        gone = {p.id for p in old} - {p.id for p in new}
        self.prototypes = [p for p in self.prototypes if p.id not in gone] + new
        self.prototypes = list({p.id: p for p in self.prototypes}.values())
        self.prototypes.sort(key=_order)
        # the other prototypes keep their labels (stored by key); the replaced ones lose theirs
        self.repo.save_prototypes(self.site_id, [_base(p) for p in self.prototypes])
        self.repo.delete_labels(self.site_id, gone)
        self._index()


def _order(prototype: Prototype) -> tuple[int, str]:
    return -prototype.count, prototype.id


def _base(prototype: Prototype) -> Any:
    from deepcrawl.storage import PrototypeBase

    return PrototypeBase(**to_row(prototype))
