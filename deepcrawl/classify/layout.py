"""The ``--like`` page's layout checks its prototype: do pages of the prototype look like it?

A prototype is learnt from URLs alone, so it can generalise too far (``doku.php?id=X`` with its
``&do=edit`` twins, ``/app/issue17`` with ``/app/msg1006``). The example page the user gave is
evidence the URLs lack: before the normal phase, a few member pages of the example's prototype are
fetched and compared with the example (:func:`similarity`) on two things a site's templates fix
and its records do not:

* **structure** — the Jaccard index of the pages' sets of tag-path shingles: the path of tags
  from the root to every element (with the element's classes), in document order, taken ``k``
  at a time; pages from one template share nearly all of them, whatever their text;
* **template text** — the Jaccard index of the pages' short text leaves (labels, headings,
  buttons, menus: at most a few words each, digits folded), which is what a template writes.

When a sample does not look like the example, the prototype is split (prototyped again, stricter;
:meth:`~deepcrawl.prototypes.LabelSession.split`) and the part holding the example is checked
again, until its samples look like the example or it splits no further
(:func:`narrow_to_example`) — so a wrong generalisation costs a handful of requests, not
thousands of unwanted downloads.

The other way round, a prototype can be too narrow: a site's sections are a small closed
vocabulary, so ``/guides/<slug>/`` and ``/community/<slug>/`` stay apart although both are
articles, while ``/issue17`` and ``/user3`` stay apart as two kinds — the URLs cannot tell the
two cases apart, the pages can. The example's *siblings* — prototypes whose URLs have the same
shape and differ from the example's only in their literals (:func:`sibling_prototypes`) — are
sampled too, and those whose pages look like the example get the example's label
(:func:`widen_to_siblings`).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from deepcrawl.errors import InvalidURLError
from deepcrawl.page.dom import dom_leaves
from deepcrawl.page.html import parse_html
from deepcrawl.prototypes._partial import value_shape
from deepcrawl.prototypes._types import classify_all, union
from deepcrawl.urls import parse_normalised

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from lxml.html import HtmlElement

    from deepcrawl.prototypes import LabelSession, Prototype, Wildcard

__all__ = [
    "MAX_SPLITS",
    "MIN_SIMILARITY",
    "SAMPLES",
    "SHINGLE",
    "TEMPLATE_WORDS",
    "WIDEN_MAX",
    "WIDEN_SAMPLES",
    "Layout",
    "LayoutCheck",
    "Widening",
    "layout_of",
    "narrow_to_example",
    "sibling_prototypes",
    "similarity",
    "widen_to_siblings",
]

#: Member pages of the example's prototype fetched to compare with the example before the
#: normal phase (0: no check): a few, against the thousands a wrong prototype would download.
SAMPLES = 4
#: A sampled page looks like the example when the mean of the Jaccard indices of their tag-path
#: shingles and of their template text reaches this; otherwise the prototype is split.
MIN_SIMILARITY = 0.65
#: At most this many splits of the example's prototype by the layout check.
MAX_SPLITS = 3
#: Sibling prototypes of the example's (``/guides/<slug>/`` beside ``/community/<slug>/``)
#: sampled at most, largest first; those whose pages look like the example get its label.
#: Not from a paper.
WIDEN_MAX = 16
#: Pages of each sibling prototype fetched to compare with the example; all must reach
#: :data:`MIN_SIMILARITY` (or be like a page of the example's own kind that is not).
WIDEN_SAMPLES = 2
#: Consecutive tag paths per shingle of a page's structure.
SHINGLE = 4
#: Text leaves of at most this many words are template text (labels, headings, menus).
TEMPLATE_WORDS = 4

_SKIPPED = frozenset({"script", "style", "noscript", "template", "head"})
_DIGITS_RE = re.compile(r"[0-9]+")


@dataclass(frozen=True, slots=True)
class Layout:
    """What a page's template fixes: hashed tag-path shingles and short text leaves."""

    shingles: frozenset[int]
    template: frozenset[str]


def _tag_paths(root: HtmlElement) -> list[str]:
    """The tag path (``html/body/div.mode_show/ul/li``) of every element, in document order.

    Classes are the template's words: digits in them are folded (``sectionedit1``), and a class
    holding capitals names the page, not its template (``<body class="page-Main_Page">`` would
    make every path of the page unique), so it is left out.
    """
    out: list[str] = []
    stack: list[tuple[HtmlElement, str]] = [(root, "")]
    while stack:
        element, parent = stack.pop()
        tag = element.tag
        if not isinstance(tag, str) or tag in _SKIPPED:
            continue
        classes = _DIGITS_RE.sub("0", element.get("class", "")).split()
        cls = ".".join(sorted({c for c in classes if c == c.lower()}))
        path = f"{parent}/{tag}.{cls}" if cls else f"{parent}/{tag}"
        out.append(path)
        stack.extend((child, path) for child in reversed(element))
    return out


def layout_of(html: str | bytes) -> Layout | None:
    """The layout of a page; None when it is not HTML that parses."""
    root = parse_html(html, comments=True)
    if root is None:
        return None
    paths = _tag_paths(root)
    k = SHINGLE
    shingles = frozenset(
        zlib.crc32("\n".join(paths[i : i + k]).encode()) for i in range(max(1, len(paths) - k + 1))
    )
    leaves, _ = dom_leaves(root)
    template = frozenset(
        _DIGITS_RE.sub("0", leaf.text.lower())
        for leaf in leaves
        if leaf.text and len(leaf.text.split()) <= TEMPLATE_WORDS
    )
    return Layout(shingles, template)


def _jaccard(a: frozenset[int] | frozenset[str], b: frozenset[int] | frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def similarity(a: Layout, b: Layout) -> float:
    """How alike two pages' layouts are, 0 to 1: the mean of the structure and text Jaccards."""
    return (_jaccard(a.shingles, b.shingles) + _jaccard(a.template, b.template)) / 2


@dataclass(slots=True)
class LayoutCheck:
    """What checking a prototype against the example page found.

    Attributes:
        example: the example URL.
        prototype: the example's prototype after the check (narrowed or as it was).
        fetched: pages fetched for the check (the example included).
        splits: how many times the prototype was split.
        unlike: sampled member URLs whose pages did not look like the example (last round).
        scores: similarity of each sampled URL to the example.
        reference: the example page's layout (None: it could not be had).
        sampled: every URL sampled in any round, with its similarity (None: not a page).
    """

    example: str
    prototype: Prototype
    fetched: int = 0
    splits: int = 0
    unlike: list[str] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)
    reference: Layout | None = None
    sampled: dict[str, float | None] = field(default_factory=dict)

    @property
    def alike(self) -> bool:
        """Whether the last samples all looked like the example."""
        return not self.unlike


async def _sample(
    check: LayoutCheck,
    members: list[str],
    k: int,
    fetch: Callable[[str], Awaitable[str | None]],
    widening: Widening,
) -> list[float]:
    """The similarities to the example of ``k`` members spread over a prototype (the pages
    sampled before are not fetched again)."""
    scores: list[float] = []
    for url in _spread(members, max(1, k)):
        if url not in check.sampled:
            page = await fetch(url)
            widening.fetched += 1
            layout = layout_of(page) if page is not None else None
            found = similarity(check.reference, layout) if layout and check.reference else None
            check.sampled[url] = found
        if (score := check.sampled[url]) is not None:
            scores.append(score)
    return scores


def _spread(items: list[str], k: int) -> list[str]:
    """Up to ``k`` items spread evenly over a list (varied samples, deterministic)."""
    if len(items) <= k:
        return items
    step = len(items) / k
    return [items[int(i * step)] for i in range(k)]


async def narrow_to_example(
    session: LabelSession,
    example: str,
    fetch: Callable[[str], Awaitable[str | None]],
    *,
    samples: int = SAMPLES,
) -> LayoutCheck:
    """Check the example's prototype against the example page; split it while it differs.

    Args:
        session: the site's prototypes; a split replaces prototypes in it (and in storage),
            and the example's label, if any, moves to the part holding the example.
        example: the example URL (it must fall in some prototype of ``session``).
        fetch: the page's HTML for a URL, or None when it cannot be had (fetched politely by
            the caller, which counts the requests).
        samples: member pages compared with the example (0: no check).

    Returns:
        The check; its ``prototype`` is the one the example falls in afterwards.

    Raises:
        ConfigError: no prototype matches the example.
        InvalidURLError: the example cannot be normalised.
    """
    prototype = session.like(example)
    label = session.labels().get(prototype.id)
    check = LayoutCheck(example, prototype)
    if samples <= 0:
        return check
    html = await fetch(example)
    check.fetched += 1
    reference = check.reference = layout_of(html) if html is not None else None
    if reference is None:
        return check  # nothing to compare with: the prototype stays as learnt
    normal = session.normaliser(example)
    score = check.sampled  # URL -> similarity (None: not a page), kept over splits
    for _round in range(MAX_SPLITS + 1):
        members = [u for u in session.members.get(prototype.id, []) if u != normal]
        sample = _spread(members, samples)
        for url in sample:
            if url not in score:
                page = await fetch(url)
                check.fetched += 1
                layout = layout_of(page) if page is not None else None
                score[url] = similarity(reference, layout) if layout is not None else None
        check.scores = {u: s for u in sample if (s := score[u]) is not None}
        check.unlike = [u for u, s in check.scores.items() if s < MIN_SIMILARITY]
        if not check.unlike or check.splits >= MAX_SPLITS:
            break
        if len(session.split(prototype.id)) < 2:
            break  # no narrower shape in its URLs: keep it, the unlike samples say why
        check.splits += 1
        prototype = session.like(example)
    check.prototype = prototype
    if check.splits and label is not None:  # a split drops the labels of what it replaced
        session.label(prototype.id, label[0], relevant=label[1])
    return check


# -- widening: the example's siblings ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Slot:
    """What a set of URLs holds at one position (a path segment or a query value).

    Attributes:
        literal: the value, when every URL holds the same one.
        shape: the literal head and file extension every value shares (``issue`` of
            ``issue17``, ``.html`` of ``17.html``; :func:`value_shape`), or None.
        kind: the wildcard type of the values.
        middle: the wildcard type of their middles, between head and extension (``kind`` when
            they share no shape).
    """

    literal: str | None
    shape: tuple[str, str] | None
    kind: Wildcard
    middle: Wildcard

    @classmethod
    def of(cls, values: set[str]) -> _Slot:
        """The slot of the distinct values seen at one position."""
        literal = next(iter(values)) if len(values) == 1 else None
        kind = classify_all(values)[0]
        shapes = {value_shape(v) for v in values}
        shape = shapes.pop() if len(shapes) == 1 else None
        if shape is None:
            return cls(literal, None, kind, kind)
        head, tail = shape
        middle = classify_all({v[len(head) : len(v) - len(tail)] for v in values})[0]
        return cls(literal, shape, kind, middle)

    def admits(self, other: _Slot) -> bool:
        """Whether ``other`` is this slot with other literals: a literal where this has one, a
        head and an extension where this has them, and values of this slot's type (or
        narrower) where this is variable."""
        if self.literal is not None:
            return other.literal is not None
        if self.shape is None:
            return union(self.kind, other.kind) == self.kind
        if other.shape is None or _form(other.shape) != _form(self.shape):
            return False
        return union(self.middle, other.middle) == self.middle

    def differs(self, other: _Slot) -> bool:
        """Whether ``other`` holds another literal (value, head or extension) than this."""
        if self.literal is not None:
            return other.literal != self.literal
        return other.shape != self.shape


def _form(shape: tuple[str, str]) -> tuple[bool, bool]:
    """Which of a head and an extension a shape has."""
    return bool(shape[0]), bool(shape[1])


#: The shape of a prototype's URLs: origin, query keys, and a slot per segment and query value.
_Skeleton = tuple[str, tuple[str, ...], tuple[_Slot, ...]]


def _skeleton(urls: list[str], *, fold_slash: bool) -> _Skeleton | None:
    """The common shape of normalised URLs; None when they have none (several origins, depths
    or sets of query keys: a prototype of nested folders or optional keys)."""
    frames: set[tuple[str, tuple[str, ...], int]] = set()  # origin, query keys, positions
    columns: list[set[str]] = []
    for url in urls:
        try:
            tokens = parse_normalised(url)
        except InvalidURLError:
            return None
        segments = tokens.segments
        if fold_slash and len(segments) > 1 and not segments[-1]:
            segments = segments[:-1]  # /a/b/ is /a/b: the slash is optional in prototypes
        values = (*segments, *(v or "" for _k, v in tokens.query))
        frames.add((tokens.origin, tuple(k for k, _v in tokens.query), len(values)))
        if len(frames) > 1:
            return None
        if not columns:
            columns = [set() for _ in values]
        for column, value in zip(columns, values, strict=True):
            column.add(value)
    if not frames:
        return None
    origin, keys, _n = frames.pop()
    return origin, keys, tuple(_Slot.of(column) for column in columns)


def sibling_prototypes(
    session: LabelSession, prototype: Prototype, example: str
) -> list[Prototype]:
    """The prototypes that differ from ``prototype`` in their literals only, largest first.

    A sibling's URLs have the example's origin, number of path segments and query keys; where
    the example's prototype holds a literal (a section: ``guides``) the sibling holds a literal
    too, where it holds a shape (``issue<digits>``) the sibling holds one of the same form
    (``user<digits>``), and where it is variable the sibling's values are of its type or
    narrower; and somewhere its literal differs. ``/community/<slug>/`` is a sibling of
    ``/guides/<slug>/``, and ``/user3`` of ``/issue17``; ``/guides/`` and
    ``/guides/<slug>/?do=edit`` are not.

    Args:
        session: the site's prototypes and the URLs behind them.
        prototype: the example's prototype.
        example: the example URL (a member of ``prototype``; it counts among its URLs).
    """
    fold = session.prototyper.fold_trailing_slash
    own = [*session.members.get(prototype.id, []), session.normaliser(example)]
    mine = _skeleton(own, fold_slash=fold)
    if mine is None:
        return []
    origin, keys, slots = mine
    out: list[Prototype] = []
    for other in session.prototypes:
        members = session.members.get(other.id, [])
        if other.id == prototype.id or not members:
            continue
        theirs = _skeleton(members, fold_slash=fold)
        if theirs is None or theirs[:2] != (origin, keys) or len(theirs[2]) != len(slots):
            continue
        pairs = list(zip(slots, theirs[2], strict=True))
        if all(a.admits(b) for a, b in pairs) and any(a.differs(b) for a, b in pairs):
            out.append(other)
    out.sort(key=lambda p: (-len(session.members.get(p.id, [])), p.id))
    return out


@dataclass(slots=True)
class Widening:
    """What widening the example's label to its sibling prototypes found.

    Attributes:
        example: the example URL.
        checked: the sibling prototypes sampled (largest first).
        added: those whose samples all looked like the example; they now carry its label.
        fetched: pages fetched for the widening.
        scores: the lowest similarity to the example of each checked sibling's samples, by id.
    """

    example: str
    checked: list[Prototype] = field(default_factory=list)
    added: list[Prototype] = field(default_factory=list)
    fetched: int = 0
    scores: dict[str, float] = field(default_factory=dict)


async def widen_to_siblings(
    session: LabelSession,
    check: LayoutCheck,
    fetch: Callable[[str], Awaitable[str | None]],
    *,
    max_siblings: int = WIDEN_MAX,
) -> Widening:
    """Give the example's label to the sibling prototypes whose pages look like the example.

    Run after :func:`narrow_to_example`, whose check holds the example page's layout and the
    pages it sampled (not fetched again). At most ``max_siblings`` siblings
    (:func:`sibling_prototypes`, largest first) are sampled, :data:`WIDEN_SAMPLES` pages
    each; a sibling whose sampled pages all reach :data:`MIN_SIMILARITY` gets the label of
    the example's prototype. Where the example's own kind holds pages unlike it that no split
    could part (an index page among the articles), a sibling whose samples are mixed is read
    as far as the own kind was (:data:`SAMPLES`) and labelled when no larger share of its
    pages is unlike the example. Siblings the user already labelled, and those whose samples
    could not be fetched, are left as they are.

    Args:
        session: the site's prototypes and labels; labels are stored through it.
        check: the narrowing's check of the example.
        fetch: the page's HTML for a URL, or None when it cannot be had (fetched politely by
            the caller, which counts the requests).
        max_siblings: siblings sampled at most (0: no widening).
    """
    widening = Widening(check.example)
    reference = check.reference
    label = session.labels().get(check.prototype.id)
    if reference is None or label is None or max_siblings <= 0:
        return widening
    labelled = session.labels()
    siblings = [
        p
        for p in sibling_prototypes(session, check.prototype, check.example)
        if p.id not in labelled
    ]
    # the example's own kind may hold pages unlike the example that no URL split could part
    # (an index page among the articles): a sibling may hold as many
    own_unlike = len(check.unlike) / len(check.scores) if check.scores else 0.0
    least = MIN_SIMILARITY
    for sibling in siblings[:max_siblings]:
        members = session.members[sibling.id]
        scores = await _sample(check, members, WIDEN_SAMPLES, fetch, widening)
        if own_unlike and 0 < sum(s < least for s in scores) < len(scores):
            # mixed: read as many of its pages as of the example's own kind, and compare
            more = max(SAMPLES, WIDEN_SAMPLES)
            scores = await _sample(check, members, more, fetch, widening)
        if not scores:
            continue  # nothing to judge it by: it stays unlabelled
        widening.checked.append(sibling)
        widening.scores[sibling.id] = min(scores)
        unlike = sum(s < least for s in scores) / len(scores)
        if unlike == 0 or (unlike <= own_unlike < 1 and max(scores) >= least):
            session.label(sibling.id, label[0], relevant=label[1])
            widening.added.append(sibling)
    return widening
