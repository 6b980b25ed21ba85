"""The crawl with no example: pick the records' kind from what the setup queries showed.

Without ``--like`` or ``--labels`` the crawl still holds the evidence a person would label by:
the setup queries' result lists (:mod:`deepcrawl.prototypes._evidence`: distinct records per
kind, their link texts, pagers, chrome, twins, navigation, search pages). :func:`pick_records`
takes the kind with most distinct records — unless a rival holding a good share of its records
shows a record's fields where it shows prose (:mod:`deepcrawl.page.fields`: a site-wide search
lists the records beside its news or change notes, and these may outnumber them) — lets the
layout check narrow and widen it as it does a ``--like`` example's
(:func:`~deepcrawl.records.like.check_like_layout`, with one of the kind's result links as the
example), and labels it relevant; with ``every`` (``--records
all``) it goes on to each kind left that looks like records. The :class:`Pick` says what was
taken and on what evidence, names the kinds left with the ``--like`` argument that would take
them, and says when two kinds tie.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from deepcrawl._capture import chao1
from deepcrawl.classify.layout import (
    MIN_SIMILARITY,
    WIDEN_MAX,
    layout_of,
    sibling_prototypes,
    similarity,
)
from deepcrawl.page.fields import page_fields
from deepcrawl.prototypes import (
    describe_shape,
    kind_evidence,
    matched_links,
    record_kinds,
    suggest_name,
)
from deepcrawl.records.like import check_like_layout, served_html

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence

    from deepcrawl.classify.layout import Layout
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.prototypes import KindEvidence, LabelSession, Prototype, ShownLink
    from deepcrawl.records.like import LikeLayout
    from deepcrawl.storage.state import StoredQuery

__all__ = [
    "PICK_FIELDED_SHARE",
    "PICK_MIN_FIELDS",
    "PICK_TIE",
    "Pick",
    "PickedKind",
    "pick_kinds",
    "pick_records",
]

#: Two kinds of records tie when the second has at least this share of the first's distinct
#: records (its estimate): the crawl then names both rather than pick one on a few records.
PICK_TIE = 0.9
#: A kind holding at least this share of the most numerous kind's records (their estimates) is
#: its rival: the one whose pages show more of a record's fields is taken first.
PICK_FIELDED_SHARE = 0.2
#: ... by at least this many fields (labels with values of their own on each page).
PICK_MIN_FIELDS = 2
#: Pages of a kind its fields are read from (:func:`~deepcrawl.page.fields.page_fields`).
FIELD_SAMPLES = 2
#: Typical pages of a sibling kind compared with the example before it is left apart.
JOIN_SAMPLES = 2

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PickedKind:
    """One kind of records: its prototypes and what the result lists showed of them.

    Attributes:
        prototypes: the kind's prototypes (the first is the one the evidence ranked; the others
            were given its label by the layout check).
        shape: its URLs' shape in plain words (``/issue/‹number›``).
        example: the result link the layout check compared the kind's pages with; the
            ``--like`` argument that takes this kind.
        records: distinct URLs of the kind in the result lists.
        estimated: distinct URLs the kind holds by the lists' overlaps (Chao1; what the kinds
            are ranked and compared by).
        entries: result entries linking to the kind.
        agreement: the lowest layout similarity of the kind's sampled pages to the example
            (None: no page was compared).
        fields: the record fields its pages show (None: not read, as when it had no rival).
    """

    prototypes: tuple[Prototype, ...]
    shape: str
    example: str
    records: int
    estimated: float
    entries: int
    agreement: float | None = None
    fields: tuple[str, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.shape,
            "like": self.example,
            "records": self.records,
            "estimated": round(self.estimated, 1),
            "entries": self.entries,
            "layout_agreement": None if self.agreement is None else round(self.agreement, 3),
            "prototypes": [p.regex for p in self.prototypes],
            "fields": None if self.fields is None else list(self.fields),
        }


@dataclass(frozen=True, slots=True)
class Pick:
    """What the crawl took as the records with no example, and what it left.

    Attributes:
        taken: the kinds labelled relevant, first the one of most distinct records.
        others: the kinds left that look like records too, most distinct records first.
        entries: result entries of every kind in the setup queries' result lists.
        pages: the pages the layout check looked at (the normal phase adopts them).
        example_pages: the taken kinds' example pages among them (the normal phase's sample
            documents, as the ``--like`` pages are).
        fielded: whether the first kind was taken ahead of a kind of more records for the
            record fields its pages show and the other's do not.
    """

    taken: tuple[PickedKind, ...]
    others: tuple[PickedKind, ...]
    entries: int
    tie_share: float
    pages: tuple[FetchedPage, ...] = field(default=(), repr=False)
    example_pages: tuple[FetchedPage, ...] = field(default=(), repr=False)
    fielded: bool = False

    @property
    def first(self) -> PickedKind:
        return self.taken[0]

    @property
    def runner_up(self) -> PickedKind | None:
        """The kind left with most distinct records (None when no other looks like records)."""
        return self.others[0] if self.others else None

    @property
    def share(self) -> float:
        """The first kind's share of the result entries."""
        return self.first.entries / self.entries if self.entries else 0.0

    @property
    def tie(self) -> bool:
        """Whether the runner-up holds nearly as many distinct records (:data:`PICK_TIE`, on their
        estimates) and its pages show the record fields the first's do."""
        second = self.runner_up
        return (
            not self.fielded
            and second is not None
            and second.estimated >= self.tie_share * self.first.estimated
        )

    @property
    def confidence(self) -> float:
        """How far the evidence sets the first kind apart, 0–1: its margin of distinct records
        over the runner-up (1 with none; of record fields when it was taken for them), times
        the layout agreement of its pages (taken as one half when no page could be compared)."""
        first, second = self.first, self.runner_up
        if second is None:
            margin = 1.0
        elif self.fielded and first.fields:
            margin = 1.0 - len(second.fields or ()) / len(first.fields)
        else:
            margin = 1.0 - second.estimated / first.estimated
        agreement = self.first.agreement
        return max(0.0, margin) * (0.5 if agreement is None else agreement)

    def message(self) -> str:
        """One line for a person: the kind in plain words, its share of the result entries,
        the layout agreement, the runner-up (or the tie) and how to take another kind."""
        first = self.first
        agreement = "not compared" if first.agreement is None else f"{first.agreement:.2f}"
        taken = " and ".join(k.shape for k in self.taken)
        line = (
            f"records picked with no example: {taken} — {_records(first)}, "
            f"{self.share:.0%} of the result entries, layout agreement {agreement}"
        )
        second = self.runner_up
        if second is None:
            return line + "; no other kind looks like records"
        if self.fielded:
            line += (
                f", its pages showing the record fields {', '.join(first.fields or ())} that "
                f"{second.shape}'s ({_short(second)}) do not"
            )
        if self.tie:
            return (
                f"{line}; two kinds tie: {first.shape} ({_short(first)}) and {second.shape} "
                f"({_short(second)}) — for the other: --like {second.example}, for both: "
                f"--records all"
            )
        return f"{line}; runner-up {second.shape} ({_short(second)}): --like {second.example}"

    def to_dict(self) -> dict[str, Any]:
        """The ``picked`` object of ``stats.json``."""
        return {
            **self.first.to_dict(),
            "share": round(self.share, 3),
            "confidence": round(self.confidence, 3),
            "tie": self.tie,
            "taken": [k.to_dict() for k in self.taken],
            "runner_up": None if self.runner_up is None else self.runner_up.to_dict(),
            "others": [k.to_dict() for k in self.others],
        }


async def pick_records(
    queries: Sequence[StoredQuery],
    session: LabelSession,
    fetch: Callable[[str], Awaitable[FetchedPage | None]],
    *,
    every: bool = False,
    record_url: Callable[[str], str] | None = None,
) -> Pick | None:
    """Label the records' kind relevant from the setup queries' evidence (module docstring).

    Args:
        queries: the setup's stored queries, with their links (the evidence).
        session: the site's prototypes and labels (labelled, and split by the layout check,
            in place and in storage).
        fetch: a page for a URL, fetched politely (or None when it cannot be had).
        every: take every kind that looks like records, not only the first.
        record_url: the URL a result link's record is known by (its normal form without the
            parameters the crawl learnt to be no part of a URL: a query echoed in every result
            link, ``;hl=river``); None: the link as shown. The kinds are judged on the records'
            URLs, as the prototypes were learnt from them.

    Returns:
        The pick; None when no kind looks like records (nothing is labelled).
    """
    known = record_url or (lambda url: url)
    links: list[ShownLink] = [(q.row.id, known(u), t, r) for q in queries for u, t, r in q.links]
    searches = {q.row.id: (q.row.submitted_url, q.row.keyword) for q in queries}
    return await pick_kinds(links, searches, session, fetch, every=every)


async def pick_kinds(
    links: Sequence[ShownLink],
    searches: Mapping[int, tuple[str, str]],
    session: LabelSession,
    fetch: Callable[[str], Awaitable[FetchedPage | None]],
    *,
    every: bool = False,
) -> Pick | None:
    """Label the records' kind relevant from the links some lists showed: a search's result
    pages (:func:`pick_records`), or the pages a crawl may browse where it may not search.

    Args:
        links: each list's links, ``(list id, URL, text, role)``, the URLs as the records are
            known by.
        searches: each list's submitted URL and word, by list id (a list no query made is in
            none: no link of it submits a search again).
        session: as :func:`pick_records`.
        fetch: as :func:`pick_records`.
        every: as :func:`pick_records`.

    Returns:
        The pick; None when no kind looks like records (nothing is labelled).
    """
    pages: dict[str, FetchedPage] = {}

    async def fetched(url: str) -> FetchedPage | None:
        page = pages.get(url) or await fetch(url)
        if page is not None:
            pages[url] = page
        return page

    taken: list[PickedKind] = []
    tried: set[str] = set()
    refused: set[str] = set()  # kinds whose example page is no HTML page
    fields: dict[str, tuple[str, ...]] = {}  # the rivals' record fields, by prototype id
    fielded = False
    while not taken or every:
        relevant = _relevant_ids(session)
        candidates = [
            e
            for e in record_kinds(kind_evidence(session, links, searches))
            if e.prototype.id not in relevant and e.prototype.id not in tried
        ]
        if not candidates:
            break
        if not taken and not fields:
            fields = await _rival_fields(session, candidates, links, fetched)
        first = _first(candidates, fields) if not taken else candidates[0]
        fielded = fielded or first is not candidates[0]
        tried.add(first.prototype.id)
        example = _example(session, first, links)
        session.label(first.prototype.id, suggest_name(first.prototype), relevant=True)
        layout = await check_like_layout(session, example, fetched)
        tried.update(p.id for p in layout.prototypes)
        if (page := pages.get(example)) is not None and not page.is_html:
            # a kind whose pages are no HTML (a note's text twin, an export) is no record page
            session.unlabel(p.id for p in layout.prototypes)
            refused.update(p.id for p in layout.prototypes)
            logger.info("kind %s left: its page %s is no HTML page", first.prototype.regex, example)
            continue
        # the last round's samples of the kind (after any split) and the siblings it took
        scores = list(layout.check.scores.values())
        scores += [layout.widening.scores[p.id] for p in layout.widening.added]
        joined = await _join_siblings(session, layout, links, searches, fetched)
        taken.append(
            _kind(session, [*layout.prototypes, *joined], example, links,
                  min(scores) if scores else None, fields.get(first.prototype.id))
        )  # fmt: skip
        for p in layout.widening.added:
            logger.info("prototype %s labelled like %s (its pages look alike)", p.regex, example)
    if not taken:
        return None
    relevant = _relevant_ids(session)
    evidence = kind_evidence(session, links, searches)
    others = [
        _kind(
            session,
            [e.prototype],
            _example(session, e, links),
            links,
            fields=fields.get(e.prototype.id),
        )
        for e in record_kinds(evidence)
        if e.prototype.id not in relevant and e.prototype.id not in refused
    ]
    entries = sum(e.entries for e in evidence)
    pick = Pick(
        tuple(taken),
        tuple(others),
        entries,
        PICK_TIE,
        tuple(pages.values()),
        tuple(pages[k.example] for k in taken if k.example in pages),
        fielded=fielded,
    )
    logger.info("%s", pick.message())
    return pick


async def _rival_fields(
    session: LabelSession,
    candidates: Sequence[KindEvidence],
    links: Sequence[ShownLink],
    fetch: Callable[[str], Awaitable[FetchedPage | None]],
) -> dict[str, tuple[str, ...]]:
    """The record fields (:func:`~deepcrawl.page.fields.page_fields`) of the most numerous kind
    and of each rival holding :data:`PICK_FIELDED_SHARE` of its records, by prototype id, read
    from :data:`FIELD_SAMPLES` of each one's result pages; empty when the first has no rival
    (nothing is fetched)."""
    top = candidates[0]
    rivals = [e for e in candidates if e.estimated >= PICK_FIELDED_SHARE * top.estimated]
    if len(rivals) < 2:
        return {}
    found: dict[str, tuple[str, ...]] = {}
    for kind in rivals:
        htmls = []
        for url in _shown(session, kind, links)[:FIELD_SAMPLES]:
            if (html := await _html_of(url, fetch)) is not None:
                htmls.append(html)
        found[kind.prototype.id] = tuple(sorted(page_fields(htmls)))
        logger.info("kind %s: record fields %s", kind.prototype.regex, found[kind.prototype.id])
    return found


def _first(
    candidates: Sequence[KindEvidence], fields: Mapping[str, tuple[str, ...]]
) -> KindEvidence:
    """The kind to take first: the most numerous, unless a rival's pages show at least
    :data:`PICK_MIN_FIELDS` more record fields (the first of those showing most)."""
    top = candidates[0]
    rivals = [e for e in candidates if e.prototype.id in fields]
    if not rivals:
        return top
    best = max(rivals, key=lambda e: len(fields[e.prototype.id]))  # the first among equals
    least = len(fields.get(top.prototype.id, ())) + PICK_MIN_FIELDS
    return best if len(fields[best.prototype.id]) >= least else top


async def _join_siblings(
    session: LabelSession,
    layout: LikeLayout,
    links: Sequence[ShownLink],
    searches: Mapping[int, tuple[str, str]],
    fetch: Callable[[str], Awaitable[FetchedPage | None]],
) -> list[Prototype]:
    """The sibling prototypes the widening left that look like records and whose typical page
    looks like the example: labelled like the kind.

    The widening samples a sibling's pages as they come, and one sample that is the sibling's
    index page (a namespace's start page) keeps it out; a record's own page, chosen as the
    kind's example is, says what the sibling holds. The typical link itself may be the index
    (shown by as few queries as a record): the next link shown is looked at too
    (:data:`JOIN_SAMPLES`), and one of them looking alike joins the sibling.
    """
    reference, label = layout.check.reference, session.labels().get(layout.check.prototype.id)
    if reference is None or label is None:
        return []
    labelled = session.labels()
    candidates = {e.prototype.id: e for e in record_kinds(kind_evidence(session, links, searches))}
    siblings = sibling_prototypes(session, layout.check.prototype, layout.check.example)
    joined = []
    for sibling in siblings[:WIDEN_MAX]:
        if sibling.id in labelled or sibling.id not in candidates:
            continue
        typical = _shown(session, candidates[sibling.id], links)[:JOIN_SAMPLES]
        if await _one_alike(typical, reference, fetch):
            session.label(sibling.id, label[0], relevant=label[1])
            joined.append(sibling)
            logger.info("prototype %s labelled like %s (a page of it looks alike)",
                        sibling.regex, layout.check.example)  # fmt: skip
    return joined


async def _one_alike(
    urls: Sequence[str], reference: Layout, fetch: Callable[[str], Awaitable[FetchedPage | None]]
) -> bool:
    """Whether one of the pages of ``urls`` (fetched in turn) looks like ``reference``."""
    for url in urls:
        html = await _html_of(url, fetch)
        found = None if html is None else layout_of(html)
        if found is not None and similarity(found, reference) >= MIN_SIMILARITY:
            return True
    return False


async def _html_of(url: str, fetch: Callable[[str], Awaitable[FetchedPage | None]]) -> str | None:
    """The served HTML of the page at ``url``; None when it is no HTML page, or failed."""
    page = await fetch(url)
    if page is None or page.status >= 400 or not page.is_html:
        return None
    return served_html(page)


def _records(kind: PickedKind) -> str:
    """``12 distinct records`` or ``12 distinct records seen (about 40)``."""
    about = round(kind.estimated)
    return f"{kind.records} distinct records" + (
        f" seen (about {about})" if about > kind.records else ""
    )


def _short(kind: PickedKind) -> str:
    """``12 records`` or ``about 40 records`` (its estimate, when more than were seen)."""
    about = round(kind.estimated)
    return f"about {about} records" if about > kind.records else f"{kind.records} records"


def _results(links: Sequence[ShownLink]) -> Iterator[ShownLink]:
    """The links shown as result entries (not pager or chrome), before any is normalised."""
    return (link for link in links if link[3] == "result")


def _relevant_ids(session: LabelSession) -> set[str]:
    return {pid for pid, (_name, relevant) in session.labels().items() if relevant}


def _shown(session: LabelSession, kind: KindEvidence, links: Sequence[ShownLink]) -> list[str]:
    """The kind's result links, distinct, its example (:func:`_example`) first."""
    example = _example(session, kind, links)
    shown = dict.fromkeys(
        normal
        for pid, normal, _link in matched_links(session, _results(links))
        if pid == kind.prototype.id and normal != example
    )
    return [example, *shown]


def _example(session: LabelSession, kind: KindEvidence, links: Sequence[ShownLink]) -> str:
    """A typical result link of the kind: the first shown of those shown by as many queries as
    most of the kind's URLs are (a record turns up for few words; an index page of the kind
    for many, and its layout is the index's): the page the kind's members are compared with,
    and the ``--like`` argument that takes the kind."""
    shown: dict[str, set[int]] = {}
    for pid, normal, (query_id, *_) in matched_links(session, _results(links)):
        if pid == kind.prototype.id:
            shown.setdefault(normal, set()).add(query_id)
    if shown:
        counts = Counter(len(queries) for queries in shown.values())
        usual = max(counts, key=lambda n: (counts[n], -n))  # among equals, the fewer queries
        return next(url for url, queries in shown.items() if len(queries) == usual)
    return (session.members.get(kind.prototype.id) or list(kind.prototype.examples))[0]


def _kind(
    session: LabelSession,
    prototypes: Sequence[Prototype],
    example: str,
    links: Sequence[ShownLink],
    agreement: float | None = None,
    fields: tuple[str, ...] | None = None,
) -> PickedKind:
    """A kind of records with its figures, counted over all its prototypes."""
    ids = {p.id for p in prototypes}
    shown_by: dict[str, set[int]] = {}
    entries = 0
    for pid, normal, (query_id, *_) in matched_links(session, _results(links)):
        if pid in ids:
            entries += 1
            shown_by.setdefault(normal, set()).add(query_id)
    members = [u for p in prototypes for u in session.members.get(p.id, [])]
    return PickedKind(
        prototypes=tuple(prototypes),
        shape=describe_shape(members) or prototypes[0].regex,
        example=example,
        records=len(shown_by),
        estimated=chao1([len(queries) for queries in shown_by.values()]),
        entries=entries,
        agreement=agreement,
        fields=fields,
    )
