"""Keyword sources: bundled lists (checkout and wheel), user files with clear errors, terms."""

from __future__ import annotations

import tomllib
import zipfile
from pathlib import Path

import pytest

from deepcrawl.errors import ConfigError
from deepcrawl.keywords import (
    available_lists,
    bundled_list,
    frequent_words,
    keyword_dir,
    load_word_list,
    parse_word_list,
    record_terms,
    sources,
    stopwords,
    tokenize,
)

ROOT = Path(__file__).resolve().parents[3]


def test_bundled_english_lists() -> None:
    words = frequent_words("en")
    assert len(words) >= 5000
    assert words[:3] == ("the", "to", "and")
    assert all(w.isalpha() and not w.startswith("#") for w in words)
    stop = stopwords("en")
    assert {"the", "a", "of", "and"} <= stop
    assert "system" not in stop  # content words of sklearn's list stay queryable
    assert {"en-frequent", "en-stopwords"} <= set(available_lists())


def test_unknown_bundled_list_names_those_that_exist() -> None:
    with pytest.raises(ConfigError, match=r"'xx-frequent'.*en-frequent"):
        bundled_list("xx-frequent")
    assert stopwords("xx") == frozenset()


def test_lists_are_found_in_checkout_and_missing_everywhere_is_an_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert Path(str(keyword_dir())) == ROOT / "keywords"
    monkeypatch.setattr(sources, "CHECKOUT_DIR", tmp_path / "nowhere")
    with pytest.raises(ConfigError, match="keyword lists not found"):
        keyword_dir()


def test_wheel_maps_keywords_folder_to_the_package_dir_the_loader_reads() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    mapping = config["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert mapping["keywords"] == f"deepcrawl/{sources.PACKAGE_DIR}"


@pytest.mark.slow
def test_built_wheel_carries_the_lists(tmp_path: Path) -> None:
    from hatchling.builders.wheel import WheelBuilder

    wheel = next(
        iter(WheelBuilder(str(ROOT)).build(directory=str(tmp_path), versions=["standard"]))
    )
    names = zipfile.ZipFile(wheel).namelist()
    assert f"deepcrawl/{sources.PACKAGE_DIR}/en-frequent.txt" in names
    assert f"deepcrawl/{sources.PACKAGE_DIR}/en-stopwords.txt" in names


def test_parse_word_list_format() -> None:
    text = "\ufeff# comment\n\n  red   wine \nRed Wine\ncheese\n  # indented comment\n"
    assert parse_word_list(text) == ["red wine", "cheese"]


def test_load_user_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.txt"
    path.write_text("# my words\nkäse\nhot shoe\n", encoding="utf-8")
    assert load_word_list(path) == ["käse", "hot shoe"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "does not exist"),
        (b"", "holds no keyword"),
        (b"# only a comment\n\n", "holds no keyword"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "binary file"),
        (b"caf\xe9\n", "not UTF-8"),
    ],
)
def test_bad_user_files_name_the_file(tmp_path: Path, content: bytes | None, message: str) -> None:
    path = tmp_path / "words.txt"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ConfigError, match=message) as info:
        load_word_list(path)
    assert str(path) in str(info.value)


def test_folder_given_as_keyword_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is a folder"):
        load_word_list(tmp_path)


def test_tokenize_and_terms() -> None:
    assert tokenize("Don’t STOP: 42 cats_and-dogs") == ["don't", "stop", "cats", "and", "dogs"]
    terms = record_terms("The cat and a dog, x y the CAT", {"the", "and"}, min_length=2)
    assert terms == {"cat", "dog"}
