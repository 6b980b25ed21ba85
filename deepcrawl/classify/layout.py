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
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from deepcrawl.classify.dom import dom_leaves, parse_page

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from lxml.html import HtmlElement

    from deepcrawl.prototypes import LabelSession, Prototype
    from deepcrawl.settings import PrototypeSettings

__all__ = ["Layout", "LayoutCheck", "layout_of", "narrow_to_example", "similarity"]

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


def layout_of(html: str | bytes, settings: PrototypeSettings) -> Layout | None:
    """The layout of a page; None when it is not HTML that parses."""
    root = parse_page(html)
    if root is None:
        return None
    paths = _tag_paths(root)
    k = max(1, settings.layout_shingle)
    shingles = frozenset(
        zlib.crc32("\n".join(paths[i : i + k]).encode()) for i in range(max(1, len(paths) - k + 1))
    )
    leaves, _ = dom_leaves(root)
    template = frozenset(
        _DIGITS_RE.sub("0", leaf.text.lower())
        for leaf in leaves
        if leaf.text and len(leaf.text.split()) <= settings.layout_template_words
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
    """

    example: str
    prototype: Prototype
    fetched: int = 0
    splits: int = 0
    unlike: list[str] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)

    @property
    def alike(self) -> bool:
        """Whether the last samples all looked like the example."""
        return not self.unlike


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
) -> LayoutCheck:
    """Check the example's prototype against the example page; split it while it differs.

    Args:
        session: the site's prototypes; a split replaces prototypes in it (and in storage),
            and the example's label, if any, moves to the part holding the example.
        example: the example URL (it must fall in some prototype of ``session``).
        fetch: the page's HTML for a URL, or None when it cannot be had (fetched politely by
            the caller, which counts the requests).

    Returns:
        The check; its ``prototype`` is the one the example falls in afterwards.

    Raises:
        ConfigError: no prototype matches the example.
        InvalidURLError: the example cannot be normalised.
    """
    settings = session.settings
    prototype = session.like(example)
    label = session.labels().get(prototype.id)
    check = LayoutCheck(example, prototype)
    if settings.layout_samples <= 0:
        return check
    html = await fetch(example)
    check.fetched += 1
    reference = layout_of(html, settings) if html is not None else None
    if reference is None:
        return check  # nothing to compare with: the prototype stays as learnt
    normal = session.normaliser(example)
    score: dict[str, float | None] = {}  # URL -> similarity (None: not a page), kept over splits
    for _round in range(settings.layout_max_splits + 1):
        members = [u for u in session.members.get(prototype.id, []) if u != normal]
        sample = _spread(members, settings.layout_samples)
        for url in sample:
            if url not in score:
                page = await fetch(url)
                check.fetched += 1
                layout = layout_of(page, settings) if page is not None else None
                score[url] = similarity(reference, layout) if layout is not None else None
        check.scores = {u: s for u in sample if (s := score[u]) is not None}
        check.unlike = [u for u, s in check.scores.items() if s < settings.layout_min_similarity]
        if not check.unlike or check.splits >= settings.layout_max_splits:
            break
        if len(session.split(prototype.id)) < 2:
            break  # no narrower shape in its URLs: keep it, the unlike samples say why
        check.splits += 1
        prototype = session.like(example)
    check.prototype = prototype
    if check.splits and label is not None:  # a split drops the labels of what it replaced
        session.label(prototype.id, label[0], relevant=label[1])
    return check
