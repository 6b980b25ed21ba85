"""No repeated record raises the estimate (issue 26, item 5): records found to be one under two
ids merge in the ledger, in its records known and its capture–recapture counts."""

from __future__ import annotations

from deepcrawl.keywords.estimate import CaptureRecapture
from deepcrawl.querying import QueryLoop
from deepcrawl.querying.events import QueryEvent
from deepcrawl.settings import Settings


def _echoed(word: str, ids: range) -> list[str]:
    """Result ids as a search that echoes the query in its links names them."""
    return [f"/page/{n}?hl={word}" for n in ids]


def test_records_named_under_every_word_count_once_merged() -> None:
    loop = QueryLoop(Settings())
    ledger = loop.ledger
    words = ("harbour", "quay", "tide", "pier")
    for n, word in enumerate(words):
        loop.apply(QueryEvent.of(word, _echoed(word, range(n * 5, n * 5 + 10))))
    # every query's records look new: the estimate knows no recapture, and grows with them
    assert len(ledger.records) == 40
    before = ledger.coverage()
    same = {rid: rid.partition("?")[0] for rid in ledger.records}
    assert loop.facts.merge(same) == 40
    after = ledger.coverage()
    assert after.reached == len(ledger.records) == 25  # /page/0 … /page/24
    assert after.estimated is not None
    assert before.estimated is not None
    assert after.estimated < before.estimated
    assert loop.facts.merge(same) == 0  # nothing left to merge
    assert ledger.coverage() == after


def test_capture_counts_add_up_under_the_record_s_id() -> None:
    capture = CaptureRecapture()
    capture.add({"a", "b"})
    capture.add({"a2", "c"})
    capture.merge({"a2": "a"})
    assert capture.counts == {"a": 2, "b": 1, "c": 1}
    assert capture.reached == 3
