"""The kinds of URL described for people: shapes in plain words, the record guess, YAML export."""

from __future__ import annotations

from pathlib import Path

from deepcrawl.prototypes import (
    LabelSession,
    describe_shape,
    labels_yaml,
    read_labels_file,
    record_suggestion,
)
from deepcrawl.storage import Repository


def test_shape_keeps_constant_parts_and_names_variable_ones() -> None:
    urls = [f"https://h.com/book/{i}" for i in range(1, 6)]
    assert describe_shape(urls) == "/book/‹number›"
    assert describe_shape(["https://h.com/a/x-y", "https://h.com/a/z"]) == "/a/‹slug›"


def test_shape_marks_optional_query_keys_and_several_depths() -> None:
    urls = ["https://h.com/s?q=cat&page=2", "https://h.com/s?q=dog"]
    assert describe_shape(urls) == "/s ?q=‹word› [page=2]"
    assert describe_shape(["https://h.com/", "https://h.com/about", "https://h.com/login"]) == (
        "/‹word› or /"
    )
    assert describe_shape([]) == ""


def _session(tmp_path: Path) -> LabelSession:
    repo = Repository.open(f"sqlite:///{tmp_path / 'db.sqlite'}")
    site = repo.site("https://h.com/")
    urls = [f"https://h.com/book/{i}" for i in range(1, 30)]
    urls += ["https://h.com/about", "https://h.com/login", "https://h.com/help"]
    return LabelSession.learn(repo, site.id, urls)


def test_the_record_guess_is_the_kind_of_most_distinct_records(tmp_path: Path) -> None:
    session = _session(tmp_path)
    book = session.like("https://h.com/book/3")
    links = [(q, f"https://h.com/book/{q + i}", f"Book {q + i}", "result") for q in range(3)
             for i in range(3)]  # fmt: skip
    links += [(q, "https://h.com/about", "About us", "result") for q in range(3)]
    assert record_suggestion(session, [*links, (0, "bad url", "", "result")]) == book.id
    assert record_suggestion(session, []) is None
    session.repo.close()


def test_exported_labels_read_back_as_a_labels_file(tmp_path: Path) -> None:
    session = _session(tmp_path)
    path = tmp_path / "labels.yaml"
    path.write_text(labels_yaml(session), encoding="utf-8")
    assert read_labels_file(path) == []  # nothing labelled yet: still a valid file
    book = session.label_like("https://h.com/book/3", "book")
    other = next(p for p in session.prototypes if p.id != book.id)
    session.label(other.id, "site", relevant=False)
    path.write_text(labels_yaml(session), encoding="utf-8")
    entries = read_labels_file(path)
    assert {(e["prototype"], e["name"], e["relevant"]) for e in entries} == {
        (book.id, "book", True),
        (other.id, "site", False),
    }
    session.repo.close()
