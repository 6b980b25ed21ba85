"""The sites file of ``deepcrawl harvest``: text, TOML and CSV, each entry checked."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from deepcrawl.errors import ConfigError
from deepcrawl.harvest import SiteSpec, read_sites, site_names

if TYPE_CHECKING:
    from pathlib import Path


def _file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_text_file_gives_one_site_a_line_with_its_crawl_options(tmp_path: Path) -> None:
    path = _file(tmp_path, "sites.txt", (
        "# a comment, then a blank line\n\n"
        "https://books.example/\n"
        "https://shop.example/search --like /item/17 --field 'category=all books' --form 2\n"
    ))  # fmt: skip
    books, shop = read_sites(path)
    assert books == SiteSpec("https://books.example/")
    assert shop.like == ("https://shop.example/item/17",)
    assert shop.fields == {"category": "all books"}
    assert shop.form == "2"


def test_toml_and_csv_give_the_same_sites(tmp_path: Path) -> None:
    toml = _file(tmp_path, "sites.toml", (
        '[[site]]\nurl = "https://shop.example/"\nlike = "/item/1"\nname = "shop"\n'
        '[site.fields]\ncategory = "books"\n'
        '[[site]]\nurl = "https://news.example/"\nform = 1\n'
    ))  # fmt: skip
    csv = _file(tmp_path, "sites.csv", (
        "url,like,fields,form,name\n"
        "https://shop.example/,/item/1,category=books,,shop\n"
        "https://news.example/,,,1,\n"
    ))  # fmt: skip
    assert read_sites(toml) == read_sites(csv)
    assert read_sites(toml)[0].name == "shop"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ftp://x.example/\n", r"sites.txt, line 1: .*start URL"),
        ("https://a.example/ --like https://b.example/1\n", r"line 1: .*host"),
        ("https://a.example/ --lik /1\n", r"line 1: unknown option '--lik'"),
        ("https://a.example/ --field nameonly\n", r"line 1: .*NAME=VALUE"),
        ("https://a.example/\nhttps://a.example/\n", r"line 2: .* given twice"),
        ("# nothing\n", r"names no site"),
        # a password would be stored with the harvest's sites: refused, and not shown
        ("https://alice:S3cretPw@a.example/\n", r"line 1: https://a.example/: no user name or"),
        ("https://a.example/ --like https://alice:S3cretPw@a.example/1\n", r"--credential-origin"),
    ],
)
def test_a_bad_entry_names_the_file_and_its_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as raised:
        read_sites(_file(tmp_path, "sites.txt", text))
    assert "S3cretPw" not in str(raised.value)


def test_each_site_gets_a_folder_of_its_own() -> None:
    sites = [
        SiteSpec("http://127.0.0.1:8001/"),
        SiteSpec("https://a.example/catalogue/search"),
        SiteSpec("https://a.example/catalogue/search?x=1"),
        SiteSpec("https://c.example/", name="mine"),
    ]
    assert site_names(sites) == [
        "127.0.0.1-8001", "a.example-catalogue_search", "a.example-catalogue_search-2", "mine"
    ]  # fmt: skip
