"""``markParts``: the probabilistic decision of which parts of a site's URLs are constant.

Hernández et al. ("The String Prototyper") build prototypes by marking the variable parts of a
set of URLs. This module does it over a prefix tree of path segments whose nodes carry counts:

* at each node (one path position, below a fixed prefix) a segment value seen in at least
  ``literal_threshold`` of the node's URLs, and in at least ``min_support`` URLs, stays literal
  and gets its own subtree; so does every word of a small closed vocabulary (site sections:
  ``book``, ``login``, ``about``, however rare); values holding digits are variable unless
  ``numeric_literals``;
* among the other values, those sharing a literal prefix before an id (``book-17``,
  ``issue17``), a namespace (``Special:Search``) or a file extension (``17.html``) often enough
  — or any of a few distinct prefixes (``issue17``, ``msg1006``, ``user3``), each with a
  literal's support — form a *shape* (``book-[0-9]+``) — a split of a set that would otherwise
  mix two kinds; rare namespaced names (``Talk:X``) are kept apart from plain ones (``X``);
* the rest merge into one typed wildcard (:mod:`._types`);
* refinement: when ``merge_min_siblings`` or more literal siblings (below the first segment) have
  subtrees of the same shape, they were values of a variable part after all (categories,
  language codes) and are merged back into the wildcard;
* a trailing slash is optional, and ``/a/``, ``/a/x-1/``, ``/a/x-1/x-2/`` (nested folders) are
  one prototype;
* where the path ends, the query decides (:mod:`._query`).

Every sibling's regex excludes its earlier siblings with a negative lookahead, so two prototypes
never match the same URL: the most specific (literal, then shape, then wildcard) wins.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from operator import itemgetter
from typing import TYPE_CHECKING

from deepcrawl.prototypes._partial import (
    SEGMENT_END,
    Partial,
    Record,
    escape,
    exclude,
    value_shape,
)
from deepcrawl.prototypes._query import QueryParts
from deepcrawl.prototypes._types import classify_all, wildcard_regex

if TYPE_CHECKING:
    from collections.abc import Iterator

    from deepcrawl.prototypes._prototyper import Prototyper

__all__ = ["MarkParts", "mark_parts"]

_DIGIT_RE = re.compile(r"[0-9]")
#: A name in a namespace: ``Talk:Main_Page``, ``Help:Editing`` (a wiki's namespaces).
_NAMESPACED_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*:")


def _values(records: list[Record], pos: int) -> Iterator[str]:
    """The segment at ``pos`` of each record (C-level iteration: this runs on every URL)."""
    return map(itemgetter(pos), map(itemgetter(0), records))


class MarkParts:
    """The decision procedure; one instance per fit, holding the thresholds.

    Args:
        settings: the prototyper, whose parameters these are.
    """

    def __init__(self, settings: Prototyper) -> None:
        self.threshold = settings.literal_threshold
        self.support = settings.min_support
        self.numeric = settings.numeric_literals
        self.merge_min = settings.merge_min_siblings
        self.closed_share = settings.closed_vocabulary_share
        self.closed_max = settings.closed_vocabulary_max
        self.query = QueryParts(settings).query
        self.fold_slash = settings.fold_trailing_slash
        self.nest = settings.nested_folders

    # -- path ------------------------------------------------------------------------------

    def path(self, records: list[Record], pos: int) -> list[Partial]:
        """Partials for ``records``, which share the path up to segment ``pos`` (exclusive)."""
        n = len(records)
        # record[3] is the depth, a trailing slash not counted when folded (see Record)
        going = [r for r in records if r[3] > pos]
        ended = [r for r in records if r[3] == pos] if len(going) < n else []
        out: list[Partial] = []
        # When URLs end here with an optional trailing slash, an empty segment going on must be
        # followed by "/" (else "/a/" would match both).
        slash = bool(ended) and self.fold_slash and pos >= 1
        if ended:
            partials = self.query(ended, {}, ())
            if slash:
                for p in partials:  # "/book/17/" is "/book/17": an optional trailing slash
                    p.query = "/?" + p.query
            out.extend(partials)
        if not going:
            return out
        where = f"segment {pos + 1}"
        counts = Counter(_values(going, pos))
        floor = max(self.support, self.threshold * n)
        # A small closed vocabulary (site sections: "book", "login", "about") stays literal even
        # where a word is rare; otherwise a value must be frequent enough (markParts).
        # Values holding digits stay literal only in a closed vocabulary.
        # With too few URLs to judge (fewer than twice the support), words stay literal too.
        closed = len(counts) <= self.closed_share * len(going) or len(going) < 2 * self.support
        literals = [
            v
            for v, c in counts.items()
            if (closed and (self.numeric or not v.isdigit()))
            or (c >= floor and (self.numeric or not _DIGIT_RE.search(v)))
        ]
        groups: dict[str, list[Record]] = {v: [] for v in literals}
        rest: list[Record] = []
        for record in going:
            group = groups.get(record[0][pos])
            (rest if group is None else group).append(record)
        children = {v: self.path(groups[v], pos + 1) for v in literals}
        demoted = False
        if pos >= 1 and len(literals) >= self.merge_min:
            by_signature: dict[tuple[str, ...], list[str]] = defaultdict(list)
            for v in literals:
                by_signature[tuple(sorted({p.signature() for p in children[v]}))].append(v)
            for same in by_signature.values():
                if len(same) >= self.merge_min:
                    for v in same:
                        rest.extend(groups.pop(v))
                        del children[v]
                        literals.remove(v)
                    demoted = True
        earlier: list[str] = []
        for v in sorted(literals, key=lambda v: (-counts[v], v)):
            regex = escape(v) or ("(?=/)" if slash else "")
            step = f"{where}: literal {v!r} ({counts[v] / n:.0%} of {n})"
            out.extend(p.under(regex, v, step) for p in children[v])
            earlier.append(regex)
        if rest:
            known = set(groups)
            values = {v: c for v, c in counts.items() if v not in known}
            out.extend(self._variable(rest, values, pos, n, earlier, demoted=demoted, slash=slash))
        return self._nest(out, pos) if ended else out

    def _nest(self, partials: list[Partial], pos: int) -> list[Partial]:
        """Fold ``/a/``, ``/a/x-1/``, ``/a/x-1/x-2/`` into ``a(?:/x-[0-9]+)*`` (nested folders).

        Applies when the URLs ending here and those going on agree on the query, and every one
        going on is a chain of one and the same variable segment, at least two deep somewhere,
        and not all digits (``/archive/2024/05`` is a date hierarchy, a kind per level).
        """
        ended = [p for p in partials if not p.path]
        chains = [p for p in partials if p.path]
        if len(ended) != 1 or not chains or not self.nest:
            return partials
        segment = chains[0].path[0]
        values = (v for chain in chains for r in chain.records for v in r[0][pos:] if v)
        if all(v.isdigit() for v in values):
            return partials  # /archive/2024/05: a date hierarchy, not nested folders
        query = ended[0].query
        for chain in chains:
            if chain.query != query or chain.nested or any(chain.heads):
                return partials
            if any(s != segment for s in chain.path):
                return partials
        if max(len(chain.path) for chain in chains) < 2:
            return partials
        records = list(ended[0].records)
        for chain in chains:
            records.extend(chain.records)
        step = f"segment {pos + 1}: {segment} repeated, nested folders ({len(records)} URLs)"
        nested = f"(?:/{segment})*{query}"
        return [Partial((), (), nested, records, (*ended[0].how, step), True, ended[0].keys)]

    def _variable(
        self,
        rest: list[Record],
        values: dict[str, int],
        pos: int,
        n: int,
        earlier: list[str],
        *,
        demoted: bool,
        slash: bool,
    ) -> list[Partial]:
        """Partials for the values at ``pos`` that are not literal: shapes, then a wildcard.

        Args:
            rest: the records.
            values: their values at ``pos``, with counts.
            pos: the path position.
            n: URLs below the node (for shares).
            earlier: regexes of the literal siblings, excluded from these.
            demoted: literal siblings were merged back into the wildcard.
            slash: URLs end at this node with an optional trailing slash.
        """
        where = f"segment {pos + 1}"
        floor = max(self.support, self.threshold * n)
        shapes: dict[tuple[str, str], list[str]] = defaultdict(list)
        weight: Counter[tuple[str, str]] = Counter()
        for v, c in values.items():
            if v.isdigit():  # no letters: neither a word prefix nor an extension
                continue
            shape = value_shape(v)
            if shape is not None:
                head, tail = shape
                candidates = {shape, (head, ""), ("", tail)} - {("", "")}
                for candidate in candidates:
                    shapes[candidate].append(v)
                    weight[candidate] += c
        # A few distinct heads (issue17, msg1006, user3: a closed vocabulary of kinds) each stay
        # literal however rare, as long as each has the support of a literal.
        heads = {s[0] for s in shapes if s[0]}
        few = len(heads) <= self.closed_max
        chosen = [
            s
            for s in shapes
            if len(shapes[s]) >= 2
            and (weight[s] >= floor or (few and s[0] and not s[1] and weight[s] >= self.support))
        ]
        # most specific first: prefix and suffix, then prefix only, then suffix only
        chosen.sort(key=lambda s: (-(bool(s[0]) + bool(s[1])), -bool(s[0]), -weight[s], s))
        member: dict[str, int] = {}
        for i, s in enumerate(chosen):
            for v in shapes[s]:
                member.setdefault(v, i)
        for i, s in enumerate(chosen):
            shapes[s] = [v for v in shapes[s] if member[v] == i]
        chosen = [s for s in chosen if shapes[s]]
        member = {v: i for i, s in enumerate(chosen) for v in shapes[s]}
        buckets: list[list[Record]] = [[] for _ in range(len(chosen))]
        if chosen:
            buckets.append([])
            for record in rest:
                buckets[member.get(record[0][pos], len(chosen))].append(record)
        else:
            buckets.append(rest)
        out: list[Partial] = []
        for i, (head, tail) in enumerate(chosen):
            middles = [v[len(head) : len(v) - len(tail)] for v in shapes[(head, tail)]]
            kind, empty = classify_all(middles)
            regex = (
                exclude(earlier, SEGMENT_END)
                + escape(head)
                + wildcard_regex(kind, empty=empty)
                + escape(tail)
            )
            step = (
                f"{where}: shape {head}<{kind.name.lower()}>{tail} "
                f"({len(shapes[(head, tail)])} values, {weight[(head, tail)] / n:.0%})"
            )
            out.extend(p.under(regex, None, step) for p in self.path(buckets[i], pos + 1))
            earlier.append(escape(head) + wildcard_regex(kind, empty=empty) + escape(tail))
        generic = buckets[-1]
        # Rare namespaced names (Talk:X, Help:Y) beside plain ones (X): one kind of their own,
        # so that the plain names' wildcard need not accept the separator.
        spaced = [r for r in generic if _NAMESPACED_RE.match(r[0][pos])]
        if spaced and len(spaced) < len(generic):
            generic = [r for r in generic if not _NAMESPACED_RE.match(r[0][pos])]
            regex = exclude(earlier, SEGMENT_END) + _NAMESPACED_RE.pattern + "[^/?]*"
            step = f"{where}: namespaced names ({len(spaced)} URLs, {len(spaced) / n:.0%})"
            out.extend(p.under(regex, None, step) for p in self.path(spaced, pos + 1))
            earlier.append(_NAMESPACED_RE.pattern + "[^/?]*")
        if generic:
            seen = set(values) if generic is rest and not spaced else set(_values(generic, pos))
            kind, empty = classify_all(seen)
            # only empty segments ("a//b"): the empty string, not a wildcard
            body = "" if seen == {""} else wildcard_regex(kind, empty=empty and not slash)
            if slash and empty:
                body = f"(?:{body}|(?=/))" if body else "(?=/)"
            regex = exclude(earlier, SEGMENT_END) + body
            distinct = len(seen)
            step = (
                f"{where}: {kind.name.lower()} wildcard ({distinct} values, {len(generic) / n:.0%})"
            )
            if demoted:
                step += f", {self.merge_min}+ literal siblings of the same shape merged"
            out.extend(p.under(regex, None, step) for p in self.path(generic, pos + 1))
        return out

    # -- query -----------------------------------------------------------------------------


def mark_parts(records: list[Record], settings: Prototyper) -> list[Partial]:
    """Run ``markParts`` over URLs of one origin; returns one partial per prototype."""
    return MarkParts(settings).path(records, 0)
