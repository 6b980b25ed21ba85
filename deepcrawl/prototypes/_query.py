"""The query part of ``markParts``: which parameters are required, optional, or split a kind.

Where the path ends, the URLs below a tree node differ only by their query. Per key:

* a key with one literal value in every URL stays literal (``ie=UTF8``);
* an optional key with frequent literal values, or with a small closed vocabulary of them, is a
  mode switch or an action that makes another kind of page (``view=print``,
  ``do=edit|revisions|backlink``, ``action=history``): the URLs split on each value; a key
  present in every URL splits on its values only when ``split_required_query_keys`` is set (the
  paper's Table 1: ``condition=new|used``);
* a key present in every URL whose values share a few literal heads splits on them
  (``id=records:north:x`` beside ``id=news:2024-05``: namespaces, each a kind);
* an optional key whose URLs are twins of URLs without it is another view of the same page
  (``title=X&oldid=7`` beside ``title=X``): the URLs split on its presence;
* every other key — and always the tracking, session, paging and sorting keys of
  ``variant_params`` — is a required or optional item with a typed value, so prototypes that
  differ only by optional keys are one prototype.

Items are written in sorted key order, as the normal form sorts them; each follows ``?`` or
``&``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING

from deepcrawl.prototypes._matcher import variant_param
from deepcrawl.prototypes._partial import (
    VALUE_END,
    Partial,
    Record,
    escape,
    exclude,
    value_shape,
)
from deepcrawl.prototypes._types import Wildcard, classify_all, wildcard_regex

if TYPE_CHECKING:
    from deepcrawl.prototypes._prototyper import Prototyper

__all__ = ["QueryParts", "assemble"]


class QueryParts:
    """Decides the query items of prototypes; one instance per fit.

    Args:
        settings: the prototyper, whose parameters these are.
    """

    def __init__(self, settings: Prototyper) -> None:
        self.threshold = settings.literal_threshold
        self.support = settings.min_support
        self.query_split_max = settings.query_split_max_values
        self.query_max_values = settings.max_query_literals
        self.split_required = settings.split_required_query_keys
        self.closed_share = settings.closed_vocabulary_share
        self.closed_max = settings.closed_vocabulary_max
        self.twin_share = settings.twin_share
        self.variant = variant_param

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
            # A small closed vocabulary of words (do=edit|revisions|backlink: actions on a page)
            # is literal however rare each word is; otherwise a value must be frequent.
            closed = len(counter) <= min(self.closed_max, self.closed_share * present[key])
            frequent = sorted(
                (
                    v
                    for v, c in counter.items()
                    if (c >= floor and (not v.isdigit() or len(counter) == 1))
                    or (closed and c >= self.support and not v.isdigit())
                ),
                key=lambda v: (-counter[v], v),
            )
            if not frequent and present[key] == n:
                shapes = self._shapes(counter, floor)
                if shapes:  # id=records:north:x and id=news:2024-05: namespaces, kinds apart
                    return self._split_shapes(records, key, shapes, fixed, how, n)
            if not frequent or (len(counter) > self.query_max_values and not closed):
                continue
            if len(frequent) == 1 and counter[frequent[0]] == n:
                fixed = {**fixed, key: (f"{escape(key)}={escape(frequent[0])}", False)}
                continue
            # An optional key with one frequent literal value is a mode switch that makes another
            # kind of page (view=print); a required key's values are variants of one kind
            # (format=json|csv) unless the prototyper says otherwise (the paper's Table 1), or
            # unless they are a closed vocabulary of views, each written with other keys and no
            # URL a twin of another (a=commit&h=… beside a=blob&f=…: kinds, not formats).
            if present[key] == n:
                if not (self.split_required or (closed and self._views(records, key))):
                    continue
            elif len(frequent) > self.query_split_max:
                continue  # several values of an optional key (view=grid|list): presentation
            return self._split(records, key, frequent, fixed, how, n)
        for key in sorted(present) if self.query_split_max else ():
            candidate = present[key] < n and key not in repeated and not self.variant(key)
            if candidate and self._twinned(records, key, {k for k in present if present[k] == n}):
                return self._split_presence(records, key, fixed, how, n)
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

    def _views(self, records: list[Record], key: str) -> bool:
        """Whether a required key's values are views of different things.

        Two proofs are needed. The values must be written with different parameters — under
        each of at least two values (each of ``min_support`` URLs) another set of the other keys
        is in every URL (``a=commit&h=…`` beside ``a=blob&f=…&hb=…``): a value that only names
        a format or a category of one kind of page (``format=json|csv``, ``cat=music|toys``
        beside the same ``id``) comes with the same keys, and URLs that merely fail to show a
        twin prove nothing, a sample holding one format of each record. And fewer than
        ``twin_share`` of the URLs may have a twin under another value (the same path and other
        items: ``id=7&format=json`` beside ``id=7&format=csv`` are one record's formats).
        """
        keys: dict[str, list[frozenset[str]]] = defaultdict(list)
        for record in records:
            value = next((v for k, v in record[1] if k == key), None)
            if value is not None:
                others = frozenset(k for k, _v in record[1] if k != key and not self.variant(k))
                keys[value].append(others)
        shapes = {
            frozenset.intersection(*sets) for sets in keys.values() if len(sets) >= self.support
        }
        if len(shapes) < 2:
            return False
        bases = [(r[0], tuple(item for item in r[1] if item[0] != key)) for r in records]
        values: dict[object, set[str | None]] = defaultdict(set)
        for base, record in zip(bases, records, strict=True):
            values[base].update(v for k, v in record[1] if k == key)
        twins = sum(1 for base in bases if len(values[base]) > 1)
        return twins < self.twin_share * len(records)

    def _twinned(self, records: list[Record], key: str, required: set[str]) -> bool:
        """Whether an optional key makes twins: another view of the same page.

        ``title=X&oldid=7`` beside ``title=X``, ``id=a&idx=b`` beside ``id=a``: most URLs with the
        key are, but for it, a URL of the set whose other keys are all required (the page's
        identity), and each such URL has only a few twins. Beside other optional keys it is a
        filter of a search (``title=w&author=v`` beside ``title=w`` and ``author=v``), not a view.
        """
        bases: set[tuple[tuple[str, ...], tuple[tuple[str, str | None], ...]]] = set()
        stripped = []
        for record in records:
            rest = tuple(item for item in record[1] if item[0] != key)
            if len(rest) == len(record[1]):
                bases.add((record[0], rest))
                continue
            if any(k not in required and not self.variant(k) for k, _ in rest):
                return False
            stripped.append((record[0], rest))
        if len(stripped) < self.support:
            return False
        twins = Counter(base for base in stripped if base in bases)
        share = sum(twins.values()) / len(stripped)
        return share >= self.twin_share and sum(twins.values()) <= self.closed_max * len(twins)

    def _split_presence(
        self,
        records: list[Record],
        key: str,
        fixed: dict[str, tuple[str, bool]],
        how: tuple[str, ...],
        n: int,
    ) -> list[Partial]:
        """Two branches: the URLs with ``key``, and those without it."""
        with_key = [r for r in records if any(k == key for k, _ in r[1])]
        without = [r for r in records if not any(k == key for k, _ in r[1])]
        key_re = escape(key)
        values = [v for r in with_key for k, v in r[1] if k == key]
        present = [v for v in values if v is not None]
        kind, empty = classify_all(present) if present else (Wildcard.ANY, True)
        body = f"{key_re}(?:={wildcard_regex(kind, empty=empty, in_query=True)})"
        body += "?" if None in values else ""
        step = f"query: split on {key} present, twins of the URLs without it"
        out = self.query(
            with_key, {**fixed, key: (body, False)}, (*how, f"{step} ({len(with_key) / n:.0%})")
        )
        # the URLs without the key: it is absent, which their regex says by not knowing it
        out.extend(
            self.query(without, fixed, (*how, f"query: {key} absent ({len(without) / n:.0%})"))
        )
        return out

    def _shapes(self, counter: Counter[str], floor: float) -> list[tuple[str, str, set[str]]]:
        """The literal heads of a key's values (``records:``, ``issue``) that split its URLs.

        Chosen as the heads of a path segment (:mod:`._tree`): a head covering a literal's share
        of the URLs, or any of a few distinct heads with a literal's support. Returns each
        head's name, value regex and values, most URLs first.
        """
        # a namespace's depth is part of its shape: records:start is not records:north:x
        groups: dict[tuple[str, int], set[str]] = defaultdict(set)
        weight: Counter[tuple[str, int]] = Counter()
        for value, count in counter.items():
            shape = value_shape(value)
            if shape is not None and shape[0]:
                head = shape[0]
                depth = value.count(head[-1]) if head[-1] in ":/" else 0
                groups[(head, depth)].add(value)
                weight[(head, depth)] += count
        few = len(groups) <= self.closed_max
        chosen = [
            group
            for group, members in groups.items()
            if len(members) >= 2
            and (weight[group] >= floor or (few and weight[group] >= self.support))
        ]
        chosen.sort(key=lambda group: (-weight[group], group))
        if len(chosen) == 1 and len(groups[chosen[0]]) == len(counter):
            return []  # one head for every value (q=w1, q=w2): nothing to keep apart
        return [
            (head, _head_regex(head, groups[(head, d)]), groups[(head, d)]) for head, d in chosen
        ]

    def _split_shapes(
        self,
        records: list[Record],
        key: str,
        shapes: list[tuple[str, str, set[str]]],
        fixed: dict[str, tuple[str, bool]],
        how: tuple[str, ...],
        n: int,
    ) -> list[Partial]:
        """One branch per head of a required key's values, and one for the other values."""
        member = {v: i for i, (_, _, values) in enumerate(shapes) for v in values}
        branches: list[list[Record]] = [[] for _ in shapes]
        residual: list[Record] = []
        for record in records:
            value = next((v for k, v in record[1] if k == key), None)
            i = member.get(value) if value is not None else None
            (residual if i is None else branches[i]).append(record)
        key_re = escape(key)
        out: list[Partial] = []
        for (head, value_re, _), branch in zip(shapes, branches, strict=True):
            step = f"query: split on {key}={head}… ({len(branch) / n:.0%})"
            item = (f"{key_re}={value_re}", False)
            out.extend(self.query(branch, {**fixed, key: item}, (*how, step)))
        if residual:
            others = [v for r in residual for k, v in r[1] if k == key and v is not None]
            kind, empty = classify_all(others)
            exclusion = exclude([value_re for _, value_re, _ in shapes], VALUE_END)
            body = f"{key_re}={exclusion}{wildcard_regex(kind, empty=empty, in_query=True)}"
            heads = "/".join(head for head, _, _ in shapes)
            step = f"query: {key} not {heads}… ({len(residual) / n:.0%})"
            out.extend(self.query(residual, {**fixed, key: (body, False)}, (*how, step)))
        return out


def _head_regex(head: str, values: set[str]) -> str:
    """The regex of values sharing a literal head; a namespace keeps its depth (``ns:a:b``)."""
    rests = [v[len(head) :] for v in values]
    sep = head[-1] if head[-1] in ":/" else ""
    if sep:
        pieces = [rest.split(sep) for rest in rests]
        if len({len(p) for p in pieces}) == 1:
            parts = []
            for column in zip(*pieces, strict=True):
                kind, empty = classify_all(column)
                if kind == Wildcard.ANY:
                    parts.append(f"[^&{sep}]" + ("*" if empty else "+"))
                else:
                    parts.append(wildcard_regex(kind, empty=empty))
            return escape(head) + escape(sep).join(parts)
    kind, empty = classify_all(rests)
    return escape(head) + wildcard_regex(kind, empty=empty, in_query=True)


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
