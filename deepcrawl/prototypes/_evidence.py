"""Which kind of URL is the records: the evidence the setup queries' result lists hold.

With no example and no labels, the crawl has only what its first queries showed. A site's
records leave a mark there that no other kind of link leaves (issue 28):

* the result lists show one entry per record, so the records' kind is the one with the most
  **distinct** URLs behind them — not the most result links: a tracker's site-wide search may
  show its few dozen help pages for almost every word, beside hundreds of tickets. A handful of
  queries sees every help page and a few of the tickets, so the kinds are ranked by how many
  distinct URLs each holds by the queries' overlaps (Chao's estimate: a kind whose URLs each
  come back in many lists is nearly all seen, one whose URLs each show once is not);
* each entry links its record by the record's title, so a kind of records has about as many
  **link texts** as URLs, where sort, facet and "next" links repeat a few words;
* the records change with the query, while navigation (tag and category pages linked from
  every entry) comes back for every query: its URLs **recur** far more often than the records';
* a pager's links sit in the pager, chrome's in every page: the result pages' own roles;
* a record's edit, history, export or print page is its **twin**: the record's URL with
  something added (a path segment, a query key);
* a link back to the search (another sort, a filter, a namespace) carries the query's word
  where the submitted URL does: a **search page**.

:func:`kind_evidence` gathers these figures for every prototype; :func:`record_kinds` keeps the
kinds that look like records, most distinct records first. The layout check then narrows and
widens the first one as it does a ``--like`` example's (:mod:`deepcrawl.records.pick`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from deepcrawl._capture import chao1
from deepcrawl.errors import InvalidURLError
from deepcrawl.urls import query_pairs

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence

    from deepcrawl.prototypes._labelling import LabelSession
    from deepcrawl.prototypes._model import Prototype

__all__ = [
    "PICK_MIN_RECORDS",
    "PICK_MIN_TITLED",
    "PICK_RECURRENCE",
    "PICK_TWIN_SHARE",
    "KindEvidence",
    "ShownLink",
    "kind_evidence",
    "matched_links",
    "record_kinds",
]

#: With no example, a kind of result link looks like records only with this many distinct URLs
#: in the setup queries' result lists, shown by two queries or more.
PICK_MIN_RECORDS = 3
#: Distinct link texts per distinct URL a kind of records has at least: entries name their
#: records by title, where sort, facet and pager links repeat a few words.
PICK_MIN_TITLED = 0.5
#: A kind whose URLs come back this many times more often per URL than a kind with more records
#: beside it is navigation (tag, category pages linked from every entry), not records.
PICK_RECURRENCE = 2.0
#: A kind whose URLs twin at least this share as many URLs of another kind (the record's URL
#: with a path segment or query items added: edit, history, export) is no kind of records.
PICK_TWIN_SHARE = 0.5

#: ``(query_id, url, text, role)``: one link a result page showed (``role``: result, pager or
#: chrome), as the store lists them (:meth:`~deepcrawl.storage.Repository.query_links`).
ShownLink = tuple[int, str, str, str]


def matched_links(
    session: LabelSession, links: Iterable[ShownLink]
) -> Iterator[tuple[str, str, ShownLink]]:
    """``(prototype id, normal URL, link)`` of each link whose URL normalises and matches one
    of the session's prototypes, in order (a URL that does not normalise is no kind's)."""
    for link in links:
        try:
            normal = session.normaliser(link[1])
        except InvalidURLError:
            continue
        pid = session.matcher.match(normal)
        if pid is not None:
            yield pid, normal, link


@dataclass(frozen=True, slots=True)
class KindEvidence:
    """What the result lists showed of one prototype's URLs.

    Attributes:
        prototype: the kind.
        entries: links of the kind in the results areas (one a result entry, counted per query).
        records: distinct URLs among them (the records the lists showed).
        estimated: distinct URLs the kind holds by the overlaps of the lists (Chao1: ``records``
            plus a term for the URLs shown by one query only; the ranking measure).
        texts: distinct link texts of those entries.
        queries: queries whose results showed the kind.
        pager: links of the kind in the result pages' pagers.
        chrome: links of the kind in the pages' chrome (menus, headers, footers).
        twins: distinct URLs of other kinds the kind's URLs are twins of.
        searches: result entries that submit the search again (the query's word where the
            submitted URL has it).
        verdict: ``records`` when the kind looks like the records; otherwise why not.
    """

    prototype: Prototype
    entries: int
    records: int
    estimated: float
    texts: int
    queries: int
    pager: int
    chrome: int
    twins: int
    searches: int = 0
    verdict: str = "records"

    @property
    def recurrence(self) -> float:
        """Result entries per distinct URL: how often one URL came back."""
        return self.entries / self.records if self.records else 0.0

    @property
    def titled(self) -> float:
        """Distinct link texts per distinct URL (at most 1): near 1 when each entry names its
        own page, as a record's title does."""
        return min(1.0, self.texts / self.records) if self.records else 0.0

    @property
    def looks_like_records(self) -> bool:
        return self.verdict == "records"


def kind_evidence(
    session: LabelSession,
    links: Iterable[ShownLink],
    searches: Mapping[int, tuple[str, str]] | None = None,
) -> list[KindEvidence]:
    """The evidence of every prototype some result page linked to, most records first (by their
    estimate, then as seen).

    ``searches`` gives each query's submitted URL and word (by query id), to tell the links that
    submit the search again; without it no kind is judged a search page.

    Each kind gets a verdict (:attr:`KindEvidence.verdict`): ``records``, or the first of
    ``pager`` (more pager links than result entries), ``chrome`` (only in the pages' chrome),
    ``search page`` (most of its entries submit the search again),
    ``twin`` (most of its URLs are another kind's with something added: an edit, history,
    export or print page), ``too few`` (fewer than :data:`PICK_MIN_RECORDS` distinct URLs, or
    shown by one query only), ``named alike`` (far fewer link texts than URLs: sort, facet,
    "next" links), ``navigation`` (a kind with more records beside it comes back
    :data:`PICK_RECURRENCE` times less often: tag and category pages linked from every entry).
    """
    roles: dict[str, Counter[str]] = {}
    urls: dict[str, set[str]] = {}
    shown_by: dict[str, set[int]] = {}  # URL -> the queries whose results showed it
    texts: dict[str, set[str]] = {}
    queries: dict[str, set[int]] = {}
    again: Counter[str] = Counter()
    for pid, normal, (query_id, url, text, role) in matched_links(session, links):
        roles.setdefault(pid, Counter())[role] += 1
        if role != "result":
            continue
        urls.setdefault(pid, set()).add(normal)
        shown_by.setdefault(normal, set()).add(query_id)
        if searches and query_id in searches and _searches_again(url, *searches[query_id]):
            again[pid] += 1
        queries.setdefault(pid, set()).add(query_id)
        if text.strip():
            texts.setdefault(pid, set()).add(" ".join(text.split()).casefold())
    twins = _twins(urls)
    found = []
    for pid, counted in roles.items():
        prototype = session.get(pid)
        found.append(
            KindEvidence(
                prototype=prototype,
                entries=counted["result"],
                records=len(urls.get(pid, ())),
                estimated=chao1([len(shown_by[url]) for url in urls.get(pid, ())]),
                texts=len(texts.get(pid, ())),
                queries=len(queries.get(pid, ())),
                pager=counted["pager"],
                chrome=counted["chrome"],
                twins=twins.get(pid, 0),
                searches=again[pid],
            )
        )
    found.sort(key=lambda e: (-e.estimated, -e.records, -e.entries, e.prototype.id))
    return _judged(found)


def record_kinds(evidence: Sequence[KindEvidence]) -> list[KindEvidence]:
    """The kinds that look like records, most distinct records first.

    When none passes every test, the kinds failing only on their link texts are taken: a site
    may link every record as "View" or "Details".
    """
    kinds = [e for e in evidence if e.looks_like_records]
    return kinds or [e for e in evidence if e.verdict == "named alike"]


def _judged(found: list[KindEvidence]) -> list[KindEvidence]:
    """Each kind with its verdict (:func:`kind_evidence`), in the same order."""
    from dataclasses import replace

    judged: list[KindEvidence] = []
    least = None  # the lowest recurrence of a records kind with more records than the next
    for e in found:
        verdict = "records"
        if e.pager > e.entries:
            verdict = "pager"
        elif not e.entries:
            verdict = "chrome"
        elif 2 * e.searches > e.entries:
            verdict = "search page"
        elif e.twins > PICK_TWIN_SHARE * e.records:
            verdict = "twin"
        elif e.records < PICK_MIN_RECORDS or e.queries < 2:
            verdict = "too few"
        elif e.titled < PICK_MIN_TITLED:
            verdict = "named alike"
        elif least is not None and e.recurrence > PICK_RECURRENCE * least:
            verdict = "navigation"
        if verdict == "records":
            least = e.recurrence if least is None else min(least, e.recurrence)
        judged.append(replace(e, verdict=verdict))
    return judged


def _searches_again(url: str, submitted: str, word: str) -> bool:
    """Whether a link submits the search again: it has the submitted URL's host and path, and
    the key the submitted URL holds the query's word under (with that word, another, or none:
    a sort, filter or namespace link); a record that echoes the word does so under a key of
    its own."""
    link, sent = urlsplit(url), urlsplit(submitted)
    if (link.netloc, link.path.rstrip("/")) != (sent.netloc, sent.path.rstrip("/")) or not word:
        return False
    held = {
        k
        for k, v in query_pairs(sent.query, keep_blank_values=False)
        if v.casefold() == word.casefold()
    }
    return any(k in held for k, _v in query_pairs(link.query))


#: Last-segment extensions of pages (none included) and of a page's data or text twins.
_PAGE_EXTENSIONS = frozenset({"", ".html", ".htm", ".shtml", ".php", ".asp", ".aspx", ".jsp"})
_DATA_EXTENSIONS = frozenset(
    {".txt", ".text", ".csv", ".tsv", ".tab", ".json", ".xml", ".rss", ".atom", ".pdf", ".md"}
)


def _twins(urls: dict[str, set[str]]) -> dict[str, int]:
    """For each kind, how many distinct URLs of other kinds its URLs are twins of: the other
    URL with a path segment added (``/issue/17/history``), query items besides its own
    (``/issue/17?format=csv``, ``doku.php?id=x&do=edit``), or a data or text format in place of
    its page's extension (``/notes/x.txt`` beside ``/notes/x.html``).

    Counted by the URLs twinned, not by the twins: the pages of a section are no twins of the
    section's one index page.
    """
    owner: dict[tuple[str, str], list[tuple[str, frozenset[tuple[str, str]]]]] = {}
    stems: dict[tuple[str, str], list[tuple[str, frozenset[tuple[str, str]]]]] = {}
    for pid, members in urls.items():
        for url in members:
            parts = urlsplit(url)
            items = frozenset(query_pairs(parts.query))
            path = parts.path.rstrip("/")
            owner.setdefault((parts.netloc, path), []).append((pid, items))
            stem, extension = _extension(path)
            if extension in _PAGE_EXTENSIONS:
                stems.setdefault((parts.netloc, stem), []).append((pid, items))
    twinned: dict[str, set[tuple[str, str, frozenset[tuple[str, str]]]]] = {}
    for pid, members in urls.items():
        for url in members:
            parts = urlsplit(url)
            items = frozenset(query_pairs(parts.query))
            path = parts.path.rstrip("/")
            bases = [path, path.rsplit("/", 1)[0]] if "/" in path else [path]
            for base in bases:
                for other, own in owner.get((parts.netloc, base), ()):
                    if other != pid and own <= items and (base != path or own != items):
                        twinned.setdefault(pid, set()).add((parts.netloc, base, own))
            stem, extension = _extension(path)
            if extension in _DATA_EXTENSIONS:
                for other, own in stems.get((parts.netloc, stem), ()):
                    if other != pid and own <= items:
                        twinned.setdefault(pid, set()).add((parts.netloc, stem + "*", own))
    return {pid: len(bases) for pid, bases in twinned.items()}


def _extension(path: str) -> tuple[str, str]:
    """A path without its last segment's extension, and that extension (lower case; '' for
    none)."""
    head, dot, extension = path.rpartition(".")
    if not dot or "/" in extension:
        return path, ""
    return head, "." + extension.lower()
