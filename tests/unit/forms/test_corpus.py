"""Reading formasaurus's annotated corpus from the installed package, with our own parser."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from deepcrawl.errors import ConfigError
from deepcrawl.forms.corpus import FORM_TYPES, corpus_dir, corpus_hash, load_corpus


def test_corpus_is_read_whole_and_deduplicated() -> None:
    corpus = load_corpus()
    counts = Counter(c.type for c in corpus)
    assert set(counts) == set(FORM_TYPES)
    assert 300 <= counts["search"] <= 600
    assert len(corpus) > 1200
    assert len({c.page for c in corpus}) > 700
    with_query = [c for c in corpus if "qq" in c.field_types.values()]
    assert len(with_query) > 250
    assert sum(c.type == "search" for c in with_query) >= len(with_query) - 2


def test_a_small_corpus_folder(tmp_path: Path) -> None:
    (tmp_path / "html").mkdir()
    (tmp_path / "html" / "0.html").write_text(
        "<form action='/s'><input name='q'></form><form><input name='u'></form>"
        "<form><input name='x'></form>"
    )
    (tmp_path / "html" / "1.html").write_text("<form action='/s'><input name='q'></form>")
    (tmp_path / "html" / "2.html").write_text("<form></form>")  # count mismatch: skipped
    index = {
        "html/0.html": {"url": "http://a.test/", "forms": ["s", "l", "X"],
                        "visible_html_fields": [{"q": "qq"}, {"u": "us"}, {}]},
        "html/1.html": {"url": "http://a.test/p", "forms": ["s"], "visible_html_fields": [{}]},
        "html/2.html": {"url": "http://b.test/", "forms": ["s", "s"]},
    }  # fmt: skip
    (tmp_path / "index.json").write_text(json.dumps(index))
    corpus = load_corpus(tmp_path)
    assert load_corpus(tmp_path) == corpus
    assert [(c.page, c.type) for c in corpus] == [
        ("html/0.html", "search"),
        ("html/0.html", "login"),
    ]
    assert corpus[0].field_types == {"q": "qq"}
    assert corpus[0].domain == "a.test"
    assert len(load_corpus(tmp_path, deduplicate=False)) == 3
    before = corpus_hash(tmp_path)
    (tmp_path / "html" / "3.html").write_text("<form><input name='z'></form>")
    index["html/3.html"] = {"url": "http://c.test/", "forms": ["o"]}
    (tmp_path / "index.json").write_text(json.dumps(index))
    assert corpus_hash(tmp_path) != before
    assert [c.type for c in load_corpus(tmp_path)] == ["search", "login", "other"]  # re-read


def test_bad_corpus_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "html").mkdir()
    (tmp_path / "index.json").write_text("{not json")
    with pytest.raises(ConfigError, match="index.json"):
        load_corpus(tmp_path)


def test_corpus_dir_is_the_installed_package() -> None:
    assert (corpus_dir() / "index.json").is_file()
