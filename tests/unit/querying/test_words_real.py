"""The keyword manager's sources on pages saved from real applications (tests/data/real/).

``datasette/``: a Datasette table of 1,000 grants with full-text search over three of its ten
columns (recipient, city, summary) — ``search-nonprofit.html`` is the result page of the query
"nonprofit" (20 rows), ``row-17.html`` a row page (the ``--like`` example). ``mkdocs/guide.html``
is a page of a MkDocs-Material site (lunr search). The fake search below answers a word as the
real one does: from the indexed columns of the saved rows.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import lxml.html
import pytest

from deepcrawl.keywords import StopReason, WordSource
from deepcrawl.keywords.text import record_terms
from deepcrawl.querying import QueryLoop, main_text, saturation, schedule
from tests.unit.querying.answers import record
from tests.unit.querying.sections import settings_of

DATA = Path(__file__).parents[2] / "data" / "real"
INDEXED = ("recipient", "city", "summary")
STOP = frozenset({"the", "a", "of", "for", "and", "to", "in", "it", "this", "with"})


@cache
def _rows() -> tuple[dict[str, str], ...]:
    """The saved result page's rows: column -> cell text."""
    root = lxml.html.fromstring((DATA / "datasette" / "search-nonprofit.html").read_bytes())
    rows = []
    for tr in root.iter("tr"):
        cells = {
            td.get("class", "").split()[0].removeprefix("col-"): td.text_content().strip()
            for td in tr.iter("td")
        }
        if cells:
            rows.append(cells)
    return tuple(rows)


def _search(word: str) -> tuple[set[str], list[str]]:
    """Record ids and page blocks (cell texts, the count line) of a full-text query."""
    hits = [
        row
        for row in _rows()
        if record_terms(word, min_length=1) <= record_terms(" ".join(row[c] for c in INDEXED))
    ]
    blocks = [f'{len(hits)} rows where search matches "{word}"']
    blocks += [text for row in hits for text in row.values()]
    return {row["id"] for row in hits}, blocks


def _manager(**settings: object) -> QueryLoop:
    """The keyword manager as the query loop drives it, word by word, with no search."""
    m = QueryLoop(settings_of(stopword_probes=(), **settings), frequent=["house"], stop_words=STOP)
    m.words.record_stopword_probe(False)
    return m


def _run(m: QueryLoop, queries: int) -> list[tuple[str, WordSource | None, int]]:
    """Query the fake search; the row links' anchor texts are their ids, as on the page."""
    done = []
    for _ in range(queries):
        word = m.next_word()
        if word is None:
            break
        ids, blocks = _search(word)
        outcome = record(m, word, ids, {rid: rid for rid in ids})
        m.words.learn_entries(word, blocks)
        done.append((word, outcome.source, outcome.results))
    return done


def test_the_saved_rows_are_what_the_search_showed() -> None:
    assert len(_rows()) == 20
    assert all("nonprofit" in record_terms(row["recipient"]) for row in _rows())


def test_a_record_pages_words_the_index_lacks_are_left_for_the_result_entries_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The row page holds column names and codes ("county", "cul", "bid") the index does not
    cover; its words come back empty, the source is left, and the words of the result rows'
    matched cells (names, places, the summaries' words) reach every row."""
    monkeypatch.setattr(schedule, "SOURCE_EMPTY_RUN", 3)
    # the column names are on every row page: without the template rule (which drops them)
    m = _manager(records_frame_share=1.0)
    for row in _rows():  # the row pages' words outside the index: column names, codes, dates
        m.words.learn_record(
            " ".join([*row, *(row[c] for c in ("county", "code", "status", "awarded"))])
        )
    done = _run(m, 3)
    assert all(source is WordSource.RECORDS and results == 0 for _w, source, results in done)
    # a query that does find rows teaches the manager the words of the cells it matched in
    ids, blocks = _search("nonprofit")
    record(m, "nonprofit", ids, {rid: rid for rid in ids})
    m.words.learn_entries("nonprofit", blocks)
    assert WordSource.RECORDS in m.ledger.sources.left
    done = _run(m, 10)
    assert {source for _w, source, _r in done} == {WordSource.ENTRIES}
    assert len(m.ledger.records) == 20
    assert sum(1 for _w, _s, results in done if results == 0) <= 2
    assert not {w for w, _s, _r in done} & {"county", "bid", "rows", "search", "matches"}


def test_the_users_keywords_come_all_first_even_once_results_teach_words(tmp_path: Path) -> None:
    words = [row["city"].split()[-1].lower() for row in _rows()]
    mine = tmp_path / "mine.txt"
    mine.write_text("\n".join(words), encoding="utf-8")
    m = _manager(keywords_file=mine)
    m.words.add_examples([main_text((DATA / "datasette" / "row-17.html").read_bytes())])
    m.words.learn_record(main_text((DATA / "datasette" / "row-17.html").read_bytes()))
    done = _run(m, len(set(words)) + 3)
    expected = list(dict.fromkeys(words))
    assert [w for w, _s, _r in done[: len(expected)]] == expected
    assert {s for _w, s, _r in done[: len(expected)]} == {WordSource.USER}
    assert done[len(expected)][1] is WordSource.EXAMPLE


def test_the_like_pages_words_are_among_the_first_queries() -> None:
    """xCrawl's queries from the example page come before any learnt word; on the MkDocs guide
    they are words of its own text."""
    text = main_text((DATA / "mkdocs" / "guide.html").read_bytes())
    m = _manager(example_queries=5)
    queued = m.words.add_examples([text])
    assert len(queued) == 5
    record(m, "photography", {"g1", "g2"}, {"g1": "kayaking guide", "g2": "sailing notes"})
    first = [m.next_word() for _ in range(6)]
    assert first[:5] == queued
    assert set(queued) <= record_terms(text)
    assert first[5] in {"kayaking", "guide", "sailing", "notes"}  # then the learnt words


def test_an_echo_of_the_query_is_no_entry_text() -> None:
    m = _manager()
    for word in ("nonprofit", "funds"):
        ids, blocks = _search(word)
        record(m, word, ids)
        m.words.learn_entries(word, blocks)
    m.words.learn_entries("tribal", _search("tribal")[1])
    assert "rows" not in m.words._terms[WordSource.ENTRIES].term_df
    assert "search" not in m.words._terms[WordSource.ENTRIES].term_df
    assert m.words._terms[WordSource.ENTRIES].term_df["office"] > 0


def test_saturation_waits_while_most_records_are_missing_and_a_source_is_untried(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Twenty queries of one source re-find the same records while the estimate says most are
    missing: the source is left, not the crawl, when another source has words."""
    monkeypatch.setattr(saturation, "SATURATION_RECORDS", None)
    monkeypatch.setattr(saturation, "SATURATION_FRACTION", 0.0)
    m = _manager(saturation_window=5)
    # rare words: each record caught once -> Chao's estimate far above the records reached
    learnt = ["amber", "birch", "cedar", "dune", "elm", "fern"]
    for i, text in enumerate(learnt):
        record(m, f"seed{i}", {f"r{i}"}, {f"r{i}": text})
    for _ in range(5):
        word = m.next_word()
        assert word in learnt
        record(m, word, {"r0"})
    ratio = m.ledger.coverage().ratio
    assert ratio is not None
    assert ratio < 0.5
    assert m.words_stop is StopReason.SATURATED  # no other source has a word
    m.words.learn_record("gamma")
    assert m.words_stop is None
    assert m.next_word() == "gamma"
    assert m.ledger.sources.left == {WordSource.RESULTS}


def test_saturation_waits_for_the_last_of_the_users_words(tmp_path: Path) -> None:
    """The Datasette list is sorted by id: the user's words each show rows already reached on
    the page read, which looks like saturation — every word is sent all the same."""
    words = [f"{a}{b}" for a in "klmnop" for b in "qrstu"]  # thirty words
    mine = tmp_path / "mine.txt"
    mine.write_text("\n".join(words), encoding="utf-8")
    m = _manager(keywords_file=mine, saturation_window=5)
    record(m, "funds", {row["id"] for row in _rows()})
    sent: list[str] = []
    while (word := m.next_word()) is not None and len(sent) < 40:
        sent.append(word)
        record(m, word, {_rows()[0]["id"]})  # nothing new
    assert sent == words
    assert m.words_stop is StopReason.SATURATED


def test_a_record_pages_table_headers_are_labels_not_its_text() -> None:
    """An issue tracker's message header reads "Author: alan" in a header cell: the search
    indexes the message, not the names of its authors."""
    page = (
        "<html><body><table><tr><th>Author: alan</th><th>Date: 2022-01-10</th></tr>"
        "<tr><td><pre>One easy Cambridge claiming drove day.</pre></td></tr></table>"
        "</body></html>"
    )
    assert record_terms(main_text(page)) == {"one", "easy", "cambridge", "claiming", "drove", "day"}
