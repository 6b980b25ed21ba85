"""Events for the unit tests of the querying: a query answered, a list read page by page, the
setup phase's list its page cap cut short.

Every test builds the ledger it needs by folding such events (:meth:`Ledger.apply
<deepcrawl.querying.ledger.Ledger.apply>`, :meth:`QueryLoop.apply
<deepcrawl.querying.loop.QueryLoop.apply>`), as a crawl does. A record is its own URL (the
fake search's convention: :mod:`tests.unit.querying.fake_search`); a result page is
``http://site/search?q=WORD&page=N``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from deepcrawl.querying.events import PageRead, QueryEvent
from deepcrawl.search.results import PAGE_CAP_NOTE

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping

    from deepcrawl.keywords.outcome import QueryOutcome
    from deepcrawl.querying import QueryLoop

_SIZE = 10


def page_url(word: str, number: int) -> str:
    """The URL of result page ``number`` of ``word``'s list (the fake search's)."""
    return f"http://site/search?q={word}&page={number}"


def _ordered(ids: Iterable[str]) -> list[str]:
    """Ids in list order: a sequence as given, a set sorted."""
    return sorted(ids) if isinstance(ids, set | frozenset) else list(ids)


def pages_of(
    word: str,
    ids: Iterable[str],
    *,
    size: int = _SIZE,
    total: int | None = None,
    ended: bool = True,
    first: int = 1,
    texts: Mapping[str, str] | None = None,
) -> tuple[PageRead, ...]:
    """``ids`` as a list's result pages, ``size`` a page from page ``first`` on: the total on
    the first page, a next link on every page but the last of an ``ended`` list."""
    ordered, texts = _ordered(ids), texts or {}
    chunks = [ordered[i : i + size] for i in range(0, len(ordered), size)] or [[]]
    last = first + len(chunks) - 1
    return tuple(
        PageRead(
            number,
            tuple((rid, texts.get(rid, ""), rid) for rid in chunk),
            total=total if number == 1 else None,
            ended=ended and number == last,
            next_url=None if ended and number == last else page_url(word, number + 1),
            blocks=(f"{total} results for “{word}”",) if total else (),
        )
        for number, chunk in enumerate(chunks, first)
    )


def list_event(
    word: str,
    ids: Iterable[str],
    *,
    size: int = _SIZE,
    total: int | None = None,
    ended: bool = True,
    first: int = 1,
    texts: Mapping[str, str] | None = None,
    **fields: Any,
) -> QueryEvent:
    """A query whose list showed ``ids`` on its result pages (:func:`pages_of`), read to its
    end where ``ended``; ``fields``: the event's others (``source``, ``skip``, ``reading``…)."""
    pages = pages_of(word, ids, size=size, total=total, ended=ended, first=first, texts=texts)
    results = tuple(
        (url, text, rid, page.number) for page in pages for url, text, rid in page.links
    )
    facts: dict[str, Any] = {
        "cap": first - 1 + len(pages),
        "result_pages": len(pages),
        "first_page": first,
        "total": total,
        "outcome": "ok" if results else "no_results",
        **fields,
    }
    return QueryEvent(word, pages, results, **facts)


def cut_event(
    word: str,
    ids: Collection[str],
    pages: int,
    *,
    size: int = _SIZE,
    total: int | None = None,
    resume: bool = True,
) -> QueryEvent:
    """The setup phase's query of ``word``: the first ``pages`` pages of its list of ``ids``,
    stopped by that phase's page cap (``resume``: its pager named the page after them), as
    the normal phase's ledger folds it."""
    return list_event(
        word,
        _ordered(ids)[: pages * size],
        size=size,
        total=total,
        ended=False,
        capped=True,
        error=f"{PAGE_CAP_NOTE} ({pages} result pages)",
        resume_url=page_url(word, pages + 1) if resume else None,
    )


def record(
    loop: QueryLoop,
    word: str,
    ids: Iterable[str],
    texts: Mapping[str, str] | None = None,
    **answer: Any,
) -> QueryOutcome:
    """Fold one query of ``word`` answered with ``ids`` into ``loop`` (``answer``: the cost,
    total, error of :meth:`QueryEvent.of <deepcrawl.querying.events.QueryEvent.of>`), its
    source where the word supply handed it out; returns what it brought."""
    source = loop.words.source_of(word)
    loop.apply(QueryEvent.of(word, _ordered(ids), texts=texts, source=source, **answer))
    return loop.ledger.history[-1]
