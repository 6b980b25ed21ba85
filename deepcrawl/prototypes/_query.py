"""The query part of ``markParts``: which parameters are required, optional, or split a kind.

Where the path ends, the URLs below a tree node differ only by their query. Per key:

* a key with one literal value in every URL stays literal (``ie=UTF8``);
* an optional key with one frequent literal value is a mode switch that makes another kind of
  page (``view=print``): the URLs split on it; a key present in every URL splits on its values
  only when ``split_required_query_keys`` is set (the paper's Table 1: ``condition=new|used``);
* every other key — and always the tracking, session, paging and sorting keys of
  ``variant_params`` — is a required or optional item with a typed value, so prototypes that
  differ only by optional keys are one prototype.

Items are written in sorted key order, as the normal form sorts them; each follows ``?`` or
``&``.
"""

from __future__ import annotations

import fnmatch
import re
from collections import Counter, defaultdict
from typing import TYPE_CHECKING

from deepcrawl.prototypes._partial import VALUE_END, Partial, Record, escape, exclude
from deepcrawl.prototypes._types import Wildcard, classify_all, wildcard_regex

if TYPE_CHECKING:
    from deepcrawl.settings import PrototypeSettings

__all__ = ["QueryParts", "assemble"]


class QueryParts:
    """Decides the query items of prototypes; one instance per fit.

    Args:
        settings: the prototyper's settings.
    """

    def __init__(self, settings: PrototypeSettings) -> None:
        self.threshold = settings.literal_threshold
        self.support = settings.min_support
        self.query_split_max = settings.query_split_max_values
        self.query_max_values = settings.max_query_literals
        self.split_required = settings.split_required_query_keys
        globs = "|".join(fnmatch.translate(g) for g in settings.variant_params)
        self.variant = re.compile(globs or "(?!)", re.IGNORECASE).fullmatch

    def query(
        self, records: list[Record], fixed: dict[str, tuple[str, bool]], how: tuple[str, ...]
    ) -> list[Partial]:
        """Partials for ``records``, whose paths are equal up to their end.

        Args:
            records: the URLs.
            fixed: items already decided by a split above: key -> (item regex, optional).
            how: the split decisions above.
        """
        n = len(records)
        present: Counter[str] = Counter()
        values: dict[str, Counter[str]] = defaultdict(Counter)
        repeated: set[str] = set()
        bare: Counter[str] = Counter()
        for record in records:
            previous = None
            for key, value in record[1]:
                if key in fixed:
                    continue
                if key == previous:
                    repeated.add(key)
                else:
                    previous = key
                    present[key] += 1
                if value is None:
                    bare[key] += 1
                else:
                    values[key][value] += 1
        floor = max(self.support, self.threshold * n)
        for key in sorted(present):
            if key in repeated or bare[key] or self.variant(key):
                continue
            counter = values[key]
            frequent = [
                v
                for v, c in counter.items()
                if c >= floor and (not v.isdigit() or len(counter) == 1)
            ]
            if not frequent or len(counter) > self.query_max_values:
                continue
            if len(frequent) == 1 and counter[frequent[0]] == n:
                fixed = {**fixed, key: (f"{escape(key)}={escape(frequent[0])}", False)}
                continue
            # An optional key with one frequent literal value is a mode switch that makes another
            # kind of page (view=print); a required key's values are variants of one kind
            # (format=json|csv) unless the settings say otherwise (the paper's Table 1).
            if present[key] == n:
                if not self.split_required:
                    continue
            elif len(frequent) > self.query_split_max:
                continue  # several values of an optional key (view=grid|list): presentation
            return self._split(records, key, frequent, fixed, how, n)
        items = dict(fixed)
        for key in present:
            if key in fixed:
                continue
            counter = values[key]
            key_re = escape(key)
            if (
                len(counter) == 1
                and not bare[key]
                and present[key] >= self.support
                and not self.variant(key)
            ):
                value_re = escape(next(iter(counter)))
            else:
                kind, empty = classify_all(counter)
                value_re = wildcard_regex(kind, empty=empty, in_query=True)
            if not counter:
                body = key_re
            elif bare[key]:
                body = f"{key_re}(?:={value_re})?"
            else:
                body = f"{key_re}={value_re}"
            if key in repeated:
                body = f"{body}(?:&{body})*"
            items[key] = (body, present[key] < n)
        optional = sorted(k for k in present if k not in fixed and items[k][1])
        step = f"query: {', '.join(optional)} optional" if optional else ""
        partial = Partial((), (), assemble(items), records, (*how, step) if step else how)
        partial.keys = tuple(sorted(items))
        return [partial]

    def _split(
        self,
        records: list[Record],
        key: str,
        frequent: list[str],
        fixed: dict[str, tuple[str, bool]],
        how: tuple[str, ...],
        n: int,
    ) -> list[Partial]:
        branches: dict[str | None, list[Record]] = {v: [] for v in frequent}
        branches[None] = []
        for record in records:
            found = None
            for k, v in record[1]:
                if k == key:
                    found = v
                    break
            branch = branches.get(found)
            (branches[None] if branch is None else branch).append(record)
        key_re = escape(key)
        out: list[Partial] = []
        for v in frequent:
            item = (f"{key_re}={escape(v)}", False)
            step = f"query: split on {key}={v} ({len(branches[v]) / n:.0%})"
            out.extend(self.query(branches[v], {**fixed, key: item}, (*how, step)))
        residual = branches[None]
        if residual:
            others = [v for r in residual for k, v in r[1] if k == key and v is not None]
            kind, empty = classify_all(others) if others else (Wildcard.ANY, True)
            exclusion = exclude([escape(v) for v in frequent], VALUE_END)
            body = f"{key_re}={exclusion}{wildcard_regex(kind, empty=empty, in_query=True)}"
            step = f"query: {key} absent or not {'/'.join(frequent)} ({len(residual) / n:.0%})"
            out.extend(self.query(residual, {**fixed, key: (body, True)}, (*how, step)))
        return out


def assemble(items: dict[str, tuple[str, bool]]) -> str:
    """The query regex of sorted items; each is preceded by ``?`` (first) or ``&``."""
    if not items:
        return ""
    parts = []
    required_before = False
    for i, key in enumerate(sorted(items)):
        body, optional = items[key]
        # The first item follows "?"; a later one follows "&", unless every earlier one is
        # optional and may be absent: then it follows "?" or "&".
        sep = "" if i == 0 else "&" if required_before else r"(?:(?<=\?)|&)"
        parts.append(f"(?:{sep}{body})?" if optional else sep + body)
        required_before = required_before or not optional
    inner = "".join(parts)
    if all(optional for _, optional in items.values()):
        return rf"(?:\?{inner})?"
    return rf"\?{inner}"
