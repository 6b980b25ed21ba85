"""What the querying learns, as events: the one input of the ledger.

The ledger (:class:`~deepcrawl.querying.ledger.Ledger`) changes only by folding these events,
in order (:meth:`Ledger.apply <deepcrawl.querying.ledger.Ledger.apply>`). A live crawl makes
them as its queries come back and its record pages are fetched; the crawl stores each one
(its event log); a resumed crawl reads them back and folds them into a fresh ledger; a
simulation makes them from its synthetic database. One fold, so a resumed crawl knows what the
interrupted one knew, to the last field.

* :class:`QueryEvent` — one query as asked and answered: the word, the field values, why it
  was asked (:class:`Reading`), and each result page as the list's reader saw it
  (:class:`PageRead`: its links, its reported total, its way on, its text blocks), with the
  record each link stands for;
* from the fetch side: :class:`RecordRead` (a record page's main text), :class:`RecordsReached`
  (records reached without a query: links, sitemaps, hubs), :class:`RecordsMerged` (ids found
  to be one record), :class:`ContentRepeated` (a page repeating a record fetched before);
* *notes*, facts a rule found and the loop wrote down (:class:`SourceLeft`,
  :class:`ListsDropped`, :class:`WordsExhausted`, :class:`DeepeningBegun`): a decision that
  changes what later rules read is an event like any other, so a resumed crawl makes it again.

Every event turns into a plain dict and back (:func:`event_to_dict`, :func:`event_from_dict`),
which is how the storage keeps it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypeAlias

from deepcrawl.keywords.outcome import WordSource

if TYPE_CHECKING:
    from deepcrawl.querying.rule import Ask
    from deepcrawl.search.results import QueryResult

__all__ = [
    "ContentRepeated",
    "DeepeningBegun",
    "Event",
    "Link",
    "ListsDropped",
    "Note",
    "PageRead",
    "QueryEvent",
    "Reading",
    "RecordRead",
    "RecordsMerged",
    "RecordsReached",
    "SourceLeft",
    "WordsExhausted",
    "event_from_dict",
    "event_to_dict",
]

#: A link as an event keeps it: its URL, its text, and the record it stands for (None: none).
Link: TypeAlias = tuple[str, str, str | None]
#: Field values that narrow a list: (name, value) pairs in name order.
Values: TypeAlias = tuple[tuple[str, str], ...]


class Reading(StrEnum):
    """Why a list was asked for: which rule asked (the fold treats some of them apart)."""

    WORD = "word"
    """A word, read while its pages pay (the empty query, a probe and a frame word too)."""
    READ_ON = "read on"
    """A list a page cap cut short (the setup phase's), read on from where it stopped."""
    COMPLETE = "complete"
    """A list cut short, read to its end: the whole list the stop's evidence lacks."""
    DEEPEN = "deepen"
    """A list asked before, read again deeper once the words are spent."""
    PART = "part"
    """A sub-list of a cut list, narrowed by a field of the form."""
    SETUP = "setup"
    """A setup list read on at once (its first pages repeated the lists before)."""


@dataclass(frozen=True, slots=True)
class PageRead:
    """One result page as the list's reader saw it.

    Attributes:
        number: its number in the list (1: the first).
        links: its links less the site's chrome, in page order, each with its record.
        total: the result count it reports, if it shows one.
        ended: whether it shows no way to a next page (a live list never ends so).
        next_url: the URL of the next page, where a link leads there.
        scrolls: whether it is a live list that renders more as it is scrolled.
        blocks: its short texts (messages, headings, counts, entries), in document order.
    """

    number: int
    links: tuple[Link, ...]
    total: int | None = None
    ended: bool = False
    next_url: str | None = None
    scrolls: bool = False
    blocks: tuple[str, ...] = ()

    def rekeyed(self, record_id: Callable[[str], str | None]) -> PageRead:
        """The page with its links' records as ``record_id`` names them."""
        return replace(self, links=_rekeyed(self.links, record_id))


@dataclass(frozen=True, slots=True)
class QueryEvent:
    """One query as asked and answered.

    Attributes:
        word: the keyword submitted ('' for the empty query).
        values: the field values that narrowed its list (a sub-list of a cut list).
        source: where its word came from (None: not handed out by the word supply).
        reading: why it was asked.
        skip: its pages read before, read again whatever they bring (a re-read).
        threshold: records a further page had to be expected to bring (None: the default).
        whole: whether its word was expected to list every record.
        cap: result pages the loop let it read at most.
        capped: whether it was asked by a loop with a page cap of its own (the setup phase's):
            a list that cap cut short is read on later.
        pages: its result pages as its reader saw them (none where the search read one page
            without asking).
        results: its result links (the results area only), each with its record and the
            number of the page it was first shown on.
        result_pages: result pages fetched.
        first_page: the number of the first page fetched (past 1: the list was resumed there).
        total: the result count the search reported for it.
        outcome: ``ok``, ``no_results``, ``error`` or ``rejected``.
        error: what went wrong, or a note (the page cap reached).
        resume_url: where its list goes on past the pages read, where the pager names it.
        part_of: of a sub-list, the key of the list it splits; split_by: the field it splits
            that list by.
    """

    word: str
    pages: tuple[PageRead, ...] = ()
    results: tuple[tuple[str, str, str | None, int], ...] = ()
    values: Values = ()
    source: WordSource | None = None
    reading: Reading = Reading.WORD
    skip: int = 0
    threshold: float | None = None
    whole: bool = False
    cap: int = 1
    capped: bool = False
    result_pages: int = 1
    first_page: int = 1
    total: int | None = None
    outcome: str = "ok"
    error: str | None = None
    resume_url: str | None = None
    part_of: str = ""
    split_by: str = ""

    @classmethod
    def of(
        cls,
        word: str,
        records: Iterable[str],
        *,
        texts: Mapping[str, str] | None = None,
        cost: int = 1,
        total: int | None = None,
        error: str | None = None,
        source: WordSource | None = None,
    ) -> QueryEvent:
        """A query answered with its ``records`` alone, no page read (a simulated search, a
        test): each record its own result link, with its text from ``texts``."""
        texts = texts or {}
        results = tuple((rid, texts.get(rid, ""), rid, 1) for rid in records)
        outcome = "error" if error else "ok" if results else "no_results"
        return cls(
            word, results=results, result_pages=cost, total=total, outcome=outcome,
            error=error, source=source,
        )  # fmt: skip

    @classmethod
    def answered(
        cls,
        ask: Ask,
        result: QueryResult,
        pages: Sequence[PageRead],
        record_id: Callable[[str], str | None],
        **facts: Any,
    ) -> QueryEvent:
        """The query ``ask`` asked for, as ``result`` answered it and its reader read
        ``pages``; ``facts``: the loop's (``source``, ``cap``, ``capped``, ``resume_url``)."""
        ids = {url: rid for page in pages for url, _text, rid in page.links}

        def record(url: str) -> str | None:
            return ids[url] if url in ids else record_id(url)

        part = ask.part
        return cls(
            ask.word,
            tuple(pages),
            tuple((li.url, li.text, record(li.url), li.page) for li in result.result_links),
            values=ask.values,
            reading=ask.reading,
            skip=ask.skip,
            threshold=ask.threshold,
            whole=ask.whole,
            result_pages=result.pages,
            first_page=result.first_page,
            total=result.total_results,
            outcome=result.outcome,
            error=result.error,
            part_of=part.parent if part is not None else "",
            split_by=part.field if part is not None else "",
            **facts,
        )

    @property
    def cost(self) -> int:
        """Requests it used: the submission and every further result page (at least 1)."""
        return max(1, self.result_pages)

    @property
    def failed(self) -> str | None:
        """Why it failed (an error outcome), None otherwise: a note is no failure."""
        return self.error if self.outcome == "error" else None

    def record_texts(self) -> dict[str, str]:
        """Its records, each with the text of its first link that has one (result links)."""
        texts: dict[str, str] = {}
        for _url, text, rid, _page in self.results:
            if rid is not None and (text or rid not in texts):
                texts.setdefault(rid, text)
        return texts

    def rekeyed(self, record_id: Callable[[str], str | None]) -> QueryEvent:
        """The query with every link's record as ``record_id`` names it (a phase that counts
        other pages as records reads the same queries)."""
        return replace(
            self,
            pages=tuple(page.rekeyed(record_id) for page in self.pages),
            results=tuple((u, t, record_id(u), p) for u, t, _rid, p in self.results),
        )


@dataclass(frozen=True, slots=True)
class RecordRead:
    """A record page was fetched: its main text (its words are what the paging counts).

    ``terms`` are its words where the caller counted them already
    (:func:`~deepcrawl.keywords.text.record_terms`); they are not stored, being the text's.
    """

    record: str
    text: str
    terms: frozenset[str] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class RecordsReached:
    """Records reached without a query (a record page's links, a sitemap, a hub), with the
    texts known of them."""

    records: tuple[str, ...]
    texts: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RecordsMerged:
    """Ids found to name records known under another id (``old -> record``): one record."""

    same: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class ContentRepeated:
    """A page fetched for one record showed a record stored before: the ids ``same`` names are
    one record (``id -> record``), and a page whose content was fetched before (``text``, its
    main text)."""

    same: Mapping[str, str]
    text: str


@dataclass(frozen=True, slots=True)
class SourceLeft:
    """The words of ``source`` are spent (None: no query had a source yet): saturation is
    judged afresh from the next query on; with ``trial``, the next source is on trial for
    ``trial_length`` queries."""

    source: WordSource | None
    trial: bool
    trial_length: int


@dataclass(frozen=True, slots=True)
class ListsDropped:
    """Lists cut short that are not worth reading on, each with the evidence its total gives
    (its records, those of them the crawl lacks; None: none)."""

    lists: tuple[tuple[str, tuple[int, int] | None], ...]


@dataclass(frozen=True, slots=True)
class WordsExhausted:
    """No source of words has a word left."""


@dataclass(frozen=True, slots=True)
class DeepeningBegun:
    """The words are spent, or the latest lists by their totals lack a few records: the
    querying goes over to reading again the lists it asked.

    Attributes:
        reason: the totals' evidence the deepening was begun for (``the latest result lists,
            by their totals, lack 3 of their 301 records``), or ``""``.
        size: the database's size by that evidence, or None.
    """

    reason: str = ""
    size: float | None = None


@dataclass(frozen=True, slots=True)
class ExamplesGiven:
    """The main texts of the example pages (the ``--like`` pages, or those of the kind the crawl
    picked with none): xCrawl's sample documents, whose queries the words send before any
    learnt word. An event, as a resumed crawl neither picks again nor has the picked pages."""

    texts: tuple[str, ...]


#: A fact a rule found, written down before the rules are asked again.
Note: TypeAlias = SourceLeft | ListsDropped | WordsExhausted | DeepeningBegun
#: Everything the ledger folds.
Event: TypeAlias = (
    QueryEvent
    | RecordRead
    | RecordsReached
    | RecordsMerged
    | ContentRepeated
    | ExamplesGiven
    | Note
)

_KINDS: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (
        QueryEvent,
        RecordRead,
        RecordsReached,
        RecordsMerged,
        ContentRepeated,
        ExamplesGiven,
        SourceLeft,
        ListsDropped,
        WordsExhausted,
        DeepeningBegun,
    )
}


def event_to_dict(event: Event) -> dict[str, Any]:
    """The event as plain JSON values, its kind under ``"kind"``."""
    out: dict[str, Any] = {"kind": type(event).__name__}
    for f in fields(event):
        if not f.compare:  # a cache of what the stored fields say
            continue
        value = getattr(event, f.name)
        if isinstance(event, QueryEvent) and f.name == "pages":
            value = [_page_to_dict(page) for page in value]
        elif isinstance(value, Mapping):
            value = dict(value)
        out[f.name] = value
    return out


def event_from_dict(data: Mapping[str, Any]) -> Event:
    """The event :func:`event_to_dict` turned into ``data``.

    Raises:
        ValueError: ``data`` names no kind of event.
    """
    kind = _KINDS.get(str(data.get("kind")))
    if kind is None:
        raise ValueError(f"not a querying event: kind {data.get('kind')!r}")
    values = {k: v for k, v in data.items() if k != "kind"}
    if kind is QueryEvent:
        values["pages"] = tuple(_page_from_dict(page) for page in values.get("pages", ()))
        values["results"] = tuple(tuple(link) for link in values.get("results", ()))
        values["values"] = tuple(tuple(pair) for pair in values.get("values", ()))
        values["reading"] = Reading(values.get("reading", Reading.WORD))
        values["source"] = _source(values.get("source"))
    elif kind is RecordsReached:
        values["records"] = tuple(values.get("records", ()))
    elif kind is ExamplesGiven:
        values["texts"] = tuple(values.get("texts", ()))
    elif kind is SourceLeft:
        values["source"] = _source(values.get("source"))
    elif kind is ListsDropped:
        values["lists"] = tuple(
            (word, None if check is None else (int(check[0]), int(check[1])))
            for word, check in values.get("lists", ())
        )
    event: Event = kind(**values)
    return event


def _source(value: object) -> WordSource | None:
    return None if value is None else WordSource(str(value))


def _page_to_dict(page: PageRead) -> dict[str, Any]:
    return {f.name: getattr(page, f.name) for f in fields(page)}


def _page_from_dict(data: Mapping[str, Any]) -> PageRead:
    return PageRead(
        number=int(data["number"]),
        links=tuple((url, text, rid) for url, text, rid in data.get("links", ())),
        total=data.get("total"),
        ended=bool(data.get("ended", False)),
        next_url=data.get("next_url"),
        scrolls=bool(data.get("scrolls", False)),
        blocks=tuple(data.get("blocks", ())),
    )


def _rekeyed(links: Sequence[Link], record_id: Callable[[str], str | None]) -> tuple[Link, ...]:
    return tuple((url, text, record_id(url)) for url, text, _rid in links)
