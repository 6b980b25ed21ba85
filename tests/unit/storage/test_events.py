"""A site's querying events come back in the order stored, one log a phase, whole."""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl.storage import EventStore, Repository

if TYPE_CHECKING:
    from pathlib import Path


def test_the_events_of_a_phase_come_back_in_order_and_apart_from_the_others(
    tmp_path: Path,
) -> None:
    with Repository.open(f"sqlite:///{tmp_path / 'crawl.db'}") as repo:
        site = repo.site("http://site.test/")
        other = repo.site("http://other.test/")
        store = EventStore(repo.engine, site.id)
        big = {
            "kind": "QueryEvent",
            "results": [[f"http://site.test/r{i}", "", None, 1] for i in range(5000)],
        }
        store.append("setup", [{"kind": "A", "n": 1}, big])
        store.append("normal", [{"kind": "B", "n": 2}])
        store.append("setup", [{"kind": "C", "n": 3}])
        store.append("setup", [])
        EventStore(repo.engine, other.id).append("setup", [{"kind": "D"}])
        assert [e["kind"] for e in store.read("setup")] == ["A", "QueryEvent", "C"]
        assert next(e for e in store.read("setup") if e["kind"] == "QueryEvent") == big
        assert [e["n"] for e in store.read("normal")] == [2]
        assert store.count("setup") == 3
        assert list(EventStore(repo.engine, other.id).read("normal")) == []
        store.clear("setup")
        assert store.count("setup") == 0
        assert store.count("normal") == 1
        assert EventStore(repo.engine, other.id).count("setup") == 1


def test_a_long_log_is_read_back_whole(tmp_path: Path) -> None:
    with Repository.open(f"sqlite:///{tmp_path / 'crawl.db'}") as repo:
        store = EventStore(repo.engine, repo.site("http://site.test/").id)
        store.append("normal", [{"kind": "RecordRead", "n": n} for n in range(4500)])
        assert [e["n"] for e in store.read("normal")] == list(range(4500))
