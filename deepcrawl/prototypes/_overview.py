"""What a person needs to label a site's prototypes: each kind of URL described for people.

A prototype's regex says little to someone who has never seen the site. :func:`kinds` gathers,
for every prototype of a :class:`~deepcrawl.prototypes.LabelSession`, what the crawl already
stored about its URLs: their shape in plain words (``/book/‹number›``), how many result links and
queries they came from, the link texts the result pages showed and the titles of the pages
fetched, whether the kind looks like the records (most distinct records in the result lists:
the crawl's own pick with no example, :func:`record_suggestion`) or like a pager. The web page
and the terminal prompt of ``deepcrawl label`` both show these; :func:`labels_yaml` writes the
labels as the ``--labels`` file :func:`~deepcrawl.prototypes.read_labels_file` reads.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import yaml

from deepcrawl.prototypes._evidence import kind_evidence, matched_links, record_kinds
from deepcrawl.prototypes._types import Wildcard, classify_all
from deepcrawl.urls import query_pairs

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from deepcrawl.prototypes._evidence import ShownLink
    from deepcrawl.prototypes._labelling import LabelSession
    from deepcrawl.prototypes._model import Prototype
    from deepcrawl.storage import Repository

__all__ = ["Example", "Kind", "describe_shape", "kinds", "labels_yaml", "record_suggestion"]

#: How each wildcard type reads to a person.
_WORDS = {
    Wildcard.DIGITS: "number",
    Wildcard.HEX: "hex id",
    Wildcard.DATE: "date",
    Wildcard.ALNUM: "word",
    Wildcard.SLUG: "slug",
    Wildcard.ANY: "text",
}
#: Path shapes listed for one prototype before "…" (a merged kind may have several depths).
_MAX_SHAPES = 3


@dataclass(frozen=True, slots=True)
class Example:
    """One URL of a kind, with what a person recognises it by."""

    url: str
    text: str
    """The link text a result page showed for it ('' when none did)."""
    title: str
    """The ``<title>`` of the stored page ('' when the page was not fetched)."""


@dataclass(frozen=True, slots=True)
class Kind:
    """One prototype as shown for labelling."""

    prototype: Prototype
    position: int
    """1-based rank, largest first (``kind 2 of 8``)."""
    shape: str
    """The URLs' shape in plain words: ``/book/‹number›``."""
    result_links: int
    """Links of this kind the result pages showed in their results area."""
    pager_links: int
    """Links of this kind in the result pages' pagers."""
    queries: int
    """Queries whose result pages showed a link of this kind."""
    examples: tuple[Example, ...]
    suggested: bool
    """Looks like the records (:func:`record_suggestion`)."""
    candidate: bool
    """Looks like a kind of records, the suggested one or another (its thumbnail is shown
    at once)."""
    pager: bool
    """Looks like the result pages' pager (more pager links than result links)."""
    label: tuple[str, bool] | None
    """The stored label (name, relevant), if any."""
    preview: str | None
    """A URL the results area of a result page linked to (an example shown, if one is): the one
    page a thumbnail may show (never a link found by probing scripts, nor a pager or menu
    link)."""

    @property
    def id(self) -> str:
        """The prototype id (what ``--labels`` files name)."""
        return self.prototype.id


def describe_shape(urls: Sequence[str]) -> str:
    """The shape of URLs in plain words: constant parts as they are, variable ones by type.

    ``/book/1``, ``/book/2`` give ``/book/‹number›``; a query key present in only some URLs is
    marked optional: ``/search ?q=‹word› [page=‹number›]``.
    """
    if not urls:
        return ""
    parts = [urlsplit(u) for u in urls]
    by_depth: dict[int, list[list[str]]] = {}
    for p in parts:
        segments = [s for s in p.path.split("/") if s]
        by_depth.setdefault(len(segments), []).append(segments)
    shapes = []
    for _depth, paths in sorted(by_depth.items(), key=lambda kv: -len(kv[1]))[:_MAX_SHAPES]:
        shapes.append("/" + "/".join(_part([path[i] for path in paths]) for i in range(_depth)))
    shape = " or ".join(shapes) + (" or …" if len(by_depth) > _MAX_SHAPES else "")
    queries = [dict(query_pairs(p.query)) for p in parts]
    keys = dict.fromkeys(k for q in queries for k in q)
    fields = []
    for key in keys:
        values = [q[key] for q in queries if key in q]
        field = f"{key}={_part(values)}"
        fields.append(field if len(values) == len(queries) else f"[{field}]")
    if len({p.netloc for p in parts}) > 1:
        shape = "‹host›" + shape
    return shape + (" ?" + " ".join(fields) if fields else "")


def _part(values: Sequence[str]) -> str:
    distinct = set(values)
    if len(distinct) == 1:
        return values[0]
    kind, empty = classify_all(distinct)
    return f"‹{_WORDS[kind]}{', or none' if empty else ''}›"


def record_suggestion(session: LabelSession, links: Iterable[ShownLink]) -> str | None:
    """The id of the prototype that looks like the records (:mod:`~deepcrawl.prototypes._evidence`:
    the kind of most distinct records in the result lists, neither pager, chrome, twin nor
    navigation); None when no kind looks like records."""
    kinds = record_kinds(kind_evidence(session, links))
    return kinds[0].prototype.id if kinds else None


def kinds(session: LabelSession, repo: Repository) -> list[Kind]:
    """Every prototype of the session, largest first, with what the store knows of its URLs."""
    links = repo.query_links(session.site_id)
    texts: dict[str, Counter[str]] = {}
    roles: dict[str, Counter[str]] = {}
    results: set[str] = set()
    queries: dict[str, set[int]] = {}
    for pid, normal, (query_id, _url, text, role) in matched_links(session, links):
        roles.setdefault(pid, Counter())[role] += 1
        if role == "result":
            results.add(normal)
        queries.setdefault(pid, set()).add(query_id)
        if text.strip():
            texts.setdefault(normal, Counter())[" ".join(text.split())] += 1
    candidates = [e.prototype.id for e in record_kinds(kind_evidence(session, links))]
    suggested = candidates[0] if candidates else None
    labels = session.labels()
    out = []
    for position, p in enumerate(session.prototypes, 1):
        members = session.members.get(p.id, []) or list(p.examples)
        # the examples people recognise first: those a result page named
        shown = sorted(members, key=lambda u: u not in texts)[: session.prototyper.max_examples]
        counted = roles.get(p.id, Counter())
        out.append(
            Kind(
                prototype=p,
                position=position,
                shape=describe_shape(members),
                result_links=counted["result"],
                pager_links=counted["pager"],
                queries=len(queries.get(p.id, ())),
                examples=tuple(
                    Example(
                        url,
                        texts[url].most_common(1)[0][0] if url in texts else "",
                        _title(repo, session.site_id, url),
                    )
                    for url in shown
                ),
                suggested=p.id == suggested,
                candidate=p.id in candidates,
                pager=counted["pager"] > counted["result"],
                label=labels.get(p.id),
                preview=next((u for u in [*shown, *members] if u in results), None),
            )
        )
    return out


def _title(repo: Repository, site_id: int, url: str) -> str:
    from deepcrawl.page.html import page_title

    page = repo.page(site_id, url)
    if page is None or page.error is not None or not page.content_type.startswith("text/html"):
        return ""
    body = repo.body(page.id)
    return page_title(body) if body else ""


def labels_yaml(session: LabelSession) -> str:
    """The session's labels as a ``--labels`` file (each entry names its prototype's regex)."""
    labels = session.labels()
    lines = [
        "# deepcrawl labels: deepcrawl crawl URL --resume --labels THIS_FILE",
        "# (or: deepcrawl label SITE --labels THIS_FILE)",
    ]
    labelled = [p for p in session.prototypes if p.id in labels]
    for p in labelled:
        name, relevant = labels[p.id]
        entry = {"prototype": p.id, "name": name, "relevant": relevant}
        lines.append(f"# {p.regex}")
        lines.append(yaml.safe_dump([entry], sort_keys=False, allow_unicode=True).rstrip())
    if not labelled:
        lines.append("[]")
    return "\n".join(lines) + "\n"
