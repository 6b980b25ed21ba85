"""The URL and prototype commands as a user meets them: normalise, prototypes, label.

The labelling prompts are driven through typer's CliRunner with scripted input, and the labels
are checked in a real SQLite database.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from deepcrawl_fixtures import build_site
from typer.testing import CliRunner

from deepcrawl.cli import app
from deepcrawl.page.fetched import FetchedPage, Link
from deepcrawl.prototypes import read_labels_file
from deepcrawl.storage import Repository
from deepcrawl.urls import normalise_url

ORIGIN = "http://127.0.0.1:8000"
runner = CliRunner()


def _book_urls() -> list[str]:
    samples = build_site("books").truth().sample_paths()
    kinds = ("detail", "print", "results", "category", "login")
    return [ORIGIN + path for kind in kinds for path in samples[kind]]


@pytest.fixture
def urls_file(tmp_path: Path) -> Path:
    path = tmp_path / "urls.txt"
    path.write_text("\n".join(_book_urls()) + "\n\nnot a url\n", encoding="utf-8")
    return path


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A database holding one crawled page of the books site, linking to sample URLs."""
    url = f"sqlite:///{tmp_path / 'crawl.db'}"
    with Repository.open(url) as repo:
        site = repo.site(ORIGIN + "/")
        links = [Link(url=u) for u in _book_urls()]
        page = FetchedPage(ORIGIN + "/", ORIGIN + "/", 200, "text/html", "<html></html>", links)
        repo.save_page(site.id, page)
    return url


def _labels(db: str) -> dict[str, tuple[str, bool]]:
    with Repository.open(db) as repo:
        return {r.prototype_key: (r.name, r.relevant) for r in repo.labels(repo.sites()[0].id)}


def _prototypes(db: str) -> list[tuple[str, str, int]]:
    with Repository.open(db) as repo:
        return [(p.key, p.regex, p.count) for p in repo.prototypes(repo.sites()[0].id)]


def test_urls_normalise_prints_good_lines_and_names_bad_ones() -> None:
    lines = (
        "HTTP://A.com/x/../y?b=1&a=2#f\nhttp://a b.com/\n\n/rel\nhttps://b.org:443\n"
        "http://bücher.de/straße\n"
    )
    result = runner.invoke(app, ["urls", "normalise"], input=lines)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "http://a.com/y?a=2&b=1",
        "https://b.org/",
        "http://xn--bcher-kva.de/stra%C3%9Fe",
    ]
    assert "line 2:" in result.stderr
    assert "line 4:" in result.stderr
    assert "2 line(s)" in result.stderr


def test_urls_normalise_resolves_against_a_base() -> None:
    result = runner.invoke(app, ["urls", "normalise", "--base", "http://h.com/d/"], input="./a\n")
    assert result.exit_code == 0
    assert result.stdout == "http://h.com/d/a\n"


def test_prototypes_from_file_as_json(urls_file: Path) -> None:
    result = runner.invoke(app, ["prototypes", "--from-file", str(urls_file), "--json"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert "1 line(s) skipped" in result.stderr
    assert len(found) == 6  # category pages with ?view=grid are a prototype of their own
    for item in found:
        assert {"id", "regex", "count", "coverage", "examples", "how"} <= item.keys()
        for example in item["examples"]:
            assert re.fullmatch(item["regex"], normalise_url(example))
    assert sum(item["count"] for item in found) == len(set(_book_urls()))


def test_prototypes_from_file_as_a_table(urls_file: Path) -> None:
    result = runner.invoke(app, ["prototypes", "--from-file", str(urls_file)])
    assert result.exit_code == 0
    assert "coverage" in result.stdout
    as_json = runner.invoke(app, ["prototypes", "--from-file", str(urls_file), "--json"])
    for item in json.loads(as_json.stdout):
        assert item["id"] in result.stdout


def test_prototypes_like_prints_the_prototype_and_its_listed_urls(urls_file: Path) -> None:
    like = ORIGIN + "/book/99999/?ref=x"
    args = ["prototypes", "--from-file", str(urls_file), "--like", like, "--offline"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "falls in prototype" in result.stdout
    assert "evidence: the URLs alone (--offline)" in result.stdout
    assert "regex: http://127\\.0\\.0\\.1:8000/book/[0-9]+" in result.stdout
    listed = [line.strip() for line in result.stdout.splitlines() if line.startswith("  ")]
    assert len(listed) == 50
    assert all("/book/" in u and "/print" not in u for u in listed)


def test_prototypes_like_as_json_gives_the_prototype_and_its_urls(urls_file: Path) -> None:
    like = ORIGIN + "/book/99999/?ref=x"
    result = runner.invoke(
        app, ["prototypes", "--from-file", str(urls_file), "--like", like, "--json", "--offline"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["evidence"] == {"used": "urls", "reason": "--offline"}
    assert out["widened"] == []
    assert out["like"] == like
    assert out["normal"] == normalise_url(like)
    assert re.fullmatch(out["prototype"]["regex"], out["normal"])
    assert out["prototype"]["count"] == len(out["members"]) == 50
    assert all("/book/" in u and "/print" not in u for u in out["members"])


def test_prototypes_like_an_unmatched_url_is_an_error(urls_file: Path) -> None:
    result = runner.invoke(
        app,
        ["prototypes", "--from-file", str(urls_file), "--like", ORIGIN + "/zz/1/2/3", "--offline"],
    )
    assert result.exit_code != 0
    assert "no prototype matches" in str(result.exception)


def test_offline_goes_with_a_url_list_and_an_example(urls_file: Path) -> None:
    result = runner.invoke(app, ["prototypes", "--from-file", str(urls_file), "--offline"])
    assert result.exit_code != 0
    assert "--offline goes with --from-file URLS.txt and --like URL" in str(result.exception)


def test_a_like_path_resolves_on_the_url_lists_host_as_crawl_like_does(
    urls_file: Path, db: str, tmp_path: Path
) -> None:
    """``--like /book/3`` is the path ``crawl --like`` takes: for a URL list, on the list's
    host; for a site, on its start URL's host; a list of several hosts asks for a full URL."""
    for args in (["--from-file", str(urls_file), "--offline"], ["127.0.0.1", "--db", db]):
        by_path = runner.invoke(app, ["prototypes", *args, "--like", "/book/3", "--json"])
        by_url = runner.invoke(app, ["prototypes", *args, "--like", ORIGIN + "/book/3", "--json"])
        assert by_path.exit_code == 0, by_path.output
        got, want = json.loads(by_path.stdout), json.loads(by_url.stdout)
        assert got["like"] == ORIGIN + "/book/3"
        assert got["prototype"]["id"] == want["prototype"]["id"]
        assert got["members"] == want["members"]
        assert len(got["members"]) == 50
    labelled = runner.invoke(app, ["label", "127.0.0.1", "--db", db, "--like", "/book/3"])
    assert labelled.exit_code == 0, labelled.output
    assert [name for name, relevant in _labels(db).values() if relevant] == ["book"]

    mixed = tmp_path / "mixed.txt"
    mixed.write_text(f"{ORIGIN}/book/1\nhttp://elsewhere.test/book/2\n", encoding="utf-8")
    result = runner.invoke(app, ["prototypes", "--from-file", str(mixed), "--like", "/book/3"])
    assert result.exit_code != 0
    assert "not on one host" in str(result.exception)


def test_prototypes_of_a_site_are_stored(db: str) -> None:
    result = runner.invoke(app, ["prototypes", "127.0.0.1", "--db", db, "--json"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    stored = _prototypes(db)
    assert [p["id"] for p in found] == [key for key, _, _ in stored]
    assert len(stored) == 6


def test_prototypes_of_a_site_like_a_url(db: str) -> None:
    like = ORIGIN + "/book/31337/print"
    result = runner.invoke(app, ["prototypes", "127.0.0.1", "--db", db, "--like", like])
    assert result.exit_code == 0, result.output
    assert "/print" in result.stdout.split("regex:")[1].splitlines()[0]
    listed = [line.strip() for line in result.stdout.splitlines() if line.startswith("  ")]
    assert len(listed) == 50
    assert all(u.endswith("/print") for u in listed)


def test_a_site_without_links_is_a_clear_error(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    with Repository.open(url) as repo:
        repo.site(ORIGIN + "/")
    result = runner.invoke(app, ["prototypes", "127.0.0.1", "--db", url])
    assert "no stored links yet" in str(result.exception)
    result = runner.invoke(app, ["prototypes", "--db", url])
    assert "give either a SITE or --from-file" in str(result.exception)


def test_label_walks_through_the_prototypes_with_prompts(db: str) -> None:
    runner.invoke(app, ["prototypes", "127.0.0.1", "--db", db])
    order = [key for key, _, _ in _prototypes(db)]
    regex = {key: rx for key, rx, _ in _prototypes(db)}
    script = "\n".join(
        [
            "m",  # first prototype: more examples, then ...
            "y",  # ... relevant,
            "record",  # named "record"
            "n",  # second: not relevant,
            "",  # default name
            "s",  # third: skipped
            "q",  # quit
        ]
    )
    result = runner.invoke(app, ["label", "127.0.0.1", "--db", db], input=script + "\n")
    assert result.exit_code == 0, result.output
    labels = _labels(db)
    assert labels[order[0]] == ("record", True)
    assert labels[order[1]][1] is False
    assert labels[order[1]][0]  # a suggested name, never empty
    assert order[2] not in labels
    assert len(labels) == 2
    assert any(word in regex[order[0]] for word in ("book", "search", "category"))


def test_label_join_and_split_change_the_stored_prototypes(db: str) -> None:
    runner.invoke(app, ["prototypes", "127.0.0.1", "--db", db])
    before = _prototypes(db)
    first, second = before[0][0], before[1][0]
    script = f"j\n{second}\ny\nboth\nq\n"
    result = runner.invoke(app, ["label", "127.0.0.1", "--db", db], input=script)
    assert result.exit_code == 0, result.output
    after = _prototypes(db)
    assert len(after) == len(before) - 1
    merged = next(p for p in after if p[2] == before[0][2] + before[1][2])
    assert _labels(db) == {merged[0]: ("both", True)}
    # the merged prototype splits back into its two parts, and loses its label
    result = runner.invoke(app, ["label", "127.0.0.1", "--db", db], input="x\nq\n")
    assert result.exit_code == 0, result.output
    assert "split into" in result.stdout
    assert {key for key, _, _ in _prototypes(db)} >= {first, second}
    assert _labels(db) == {}


def test_label_from_a_yaml_file_and_like_urls(db: str, tmp_path: Path) -> None:
    runner.invoke(app, ["prototypes", "127.0.0.1", "--db", db])
    stored = _prototypes(db)
    print_key = next(key for key, rx, _ in stored if rx.endswith("/print/?"))
    labels_file = tmp_path / "labels.yaml"
    labels_file.write_text(
        f"- prototype: {print_key}\n  name: print view\n  relevant: false\n"
        f"- like: {ORIGIN}/search?q=word\n  name: results\n  relevant: false\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["label", "127.0.0.1", "--db", db, "--labels", str(labels_file)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(
        app,
        [
            "label",
            "127.0.0.1",
            "--db",
            db,
            "--like",
            f"{ORIGIN}/book/4242",
            "--like",
            f"{ORIGIN}/login",
        ],
    )
    assert result.exit_code == 0, result.output
    labels = _labels(db)
    assert labels[print_key] == ("print view", False)
    assert ("results", False) in labels.values()
    assert ("book", True) in labels.values()
    assert ("login", True) in labels.values()
    assert len(labels) == 4


def test_label_file_errors_are_clear(db: str, tmp_path: Path) -> None:
    runner.invoke(app, ["prototypes", "127.0.0.1", "--db", db])
    bad = tmp_path / "bad.yaml"
    bad.write_text("- name: x\n", encoding="utf-8")
    result = runner.invoke(app, ["label", "127.0.0.1", "--db", db, "--labels", str(bad)])
    assert "needs 'prototype' or 'like'" in str(result.exception)
    bad.write_text("- prototype: pnope\n", encoding="utf-8")
    result = runner.invoke(app, ["label", "127.0.0.1", "--db", db, "--labels", str(bad)])
    assert "no prototype 'pnope'" in str(result.exception)


def test_labels_survive_relearning_and_are_exported(db: str) -> None:
    runner.invoke(app, ["label", "127.0.0.1", "--db", db, "--like", f"{ORIGIN}/book/1"])
    for extra in ([], ["--relearn"]):
        result = runner.invoke(app, ["prototypes", "127.0.0.1", "--db", db, "--json", *extra])
        assert result.exit_code == 0, result.output
        labelled = [p for p in json.loads(result.stdout) if "label" in p]
        assert [(p["label"], p["relevant"]) for p in labelled] == [("book", True)]
        assert "/book/" in labelled[0]["regex"]


def test_label_prompt_says_where_it_is_saves_yaml_and_ends_with_the_next_command(
    db: str, tmp_path: Path
) -> None:
    runner.invoke(app, ["prototypes", "127.0.0.1", "--db", db])
    before = _prototypes(db)
    saved = tmp_path / "labels.yaml"
    # join the first kind with kind 2 by its number, label the merged kind wanted, quit
    script = "j\n2\ny\nboth\nq\n"
    result = runner.invoke(
        app, ["label", "127.0.0.1", "--db", db, "--save", str(saved)], input=script
    )
    assert result.exit_code == 0, result.output
    assert f"kind 1 of {len(before)}" in result.stdout
    assert f"2={before[1][0]}" in result.stdout  # the ids j accepts are on screen
    assert "next: deepcrawl crawl " in result.stdout
    assert result.stdout.rstrip().endswith("--resume")
    entries = read_labels_file(saved)
    assert [(e["name"], e["relevant"]) for e in entries] == [("both", True)]
    assert {e["prototype"] for e in entries} == set(_labels(db))
