"""A crawl's inputs checked before it starts: URLs, IDN hosts, the labels file's schema."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from deepcrawl.browser.scope import Scope, host_of
from deepcrawl.crawler.inputs import check_inputs, check_url
from deepcrawl.errors import ConfigError, InvalidURLError
from deepcrawl.prototypes import read_labels_file
from deepcrawl.settings import Settings


def test_check_url_normalises_an_idn_host_to_punycode() -> None:
    assert (
        check_url("http://Bücher.localhost:8000/a?b=ü")
        == "http://xn--bcher-kva.localhost:8000/a?b=ü"
    )
    assert check_url(" HTTPS://example.org") == "HTTPS://example.org"  # the store's spelling
    # a URL the crawl keeps holds no credentials (they are its origin's authentication)
    assert check_url("http://u:p@[::1]:81/x") == "http://[::1]:81/x"
    assert check_url("http://u:p@Bücher.localhost/") == "http://xn--bcher-kva.localhost/"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://h/" + "a" * 2100, "longer than 2048 characters"),
        ("ftp://h/", "must start with http:// or https://"),
        ("/book/1", "must start with http:// or https://"),
        ("http:///x", "has no host"),
        ("http://h:99999/", "cannot be parsed"),
        ("http://a..b/", "host"),
    ],
)
def test_check_url_refuses(url: str, reason: str) -> None:
    with pytest.raises(InvalidURLError, match=reason):
        check_url(url, what="start URL")


def test_scope_host_and_robots_agree_on_the_ascii_form() -> None:
    assert host_of("http://bücher.localhost:5/") == "xn--bcher-kva.localhost:5"
    scope = Scope(("bücher.localhost:5", ".straße.de"), implicit=False)
    assert scope.allows("http://xn--bcher-kva.localhost:5/x")
    assert scope.allows("http://bücher.localhost:5/x")
    assert scope.allows("http://www.xn--strae-oqa.de/")


def _labels(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "labels.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- like: 5\n", "entry 1, field 'like': must be a URL or a path (text), not 5"),
        ("- like: /a\n- like: [x]\n", "entry 2, field 'like': must be a URL or a path"),
        ("- prototype: 3\n", "entry 1, field 'prototype': must be a prototype id"),
        ("- like: /a\n  name: {x: 1}\n", "entry 1, field 'name': must be a name"),
        ("- like: /a\n  relevant: maybe\n", "entry 1, field 'relevant': must be true or false"),
        ("- like: ''\n", "entry 1, field 'like'"),
        ("- {name: x}\n", "entry 1: needs 'prototype' or 'like'"),
        ("- like: /a\n  colour: red\n", "entry 1: unknown keys ['colour']"),
        ("like: [\n", "is not valid YAML (line 2)"),
        ("7\n", "expected a list of labels"),
    ],
)
def test_labels_file_schema(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match="labels file .*labels.yaml") as info:
        read_labels_file(_labels(tmp_path, text))
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_labels_file_like_paths_resolve_against_the_start_url(tmp_path: Path) -> None:
    path = _labels(tmp_path, "- like: /book/1\n- like: http://h/book/2\n  relevant: false\n")
    entries = read_labels_file(path, base="http://h/search")
    assert [e["like"] for e in entries] == ["http://h/book/1", "http://h/book/2"]
    with pytest.raises(ConfigError, match="does not exist"):
        read_labels_file(tmp_path / "none.yaml")


def test_check_inputs(tmp_path: Path) -> None:
    settings = Settings()
    path = _labels(tmp_path, "- like: /book/1\n")
    checked = check_inputs("http://bücher.localhost/", settings, like=["/b/2"], labels=path)
    assert checked.start_url == "http://xn--bcher-kva.localhost/"
    assert checked.like == ("http://xn--bcher-kva.localhost/b/2",)
    assert checked.labels == [{"like": "http://xn--bcher-kva.localhost/book/1"}]
    with pytest.raises(ConfigError, match="--like: http://other/b is on other"):
        check_inputs("http://h/", settings, like=["http://other/b"])
    other = _labels(tmp_path, "- like: http://other/b\n")
    with pytest.raises(ConfigError, match="entry 1, field 'like': http://other/b is on other"):
        check_inputs("http://h/", settings, labels=other)


def test_check_inputs_takes_the_credentials_off_the_urls_into_the_settings() -> None:
    checked = check_inputs(
        "http://alice:S3cretPw@127.0.0.1:8000/",
        Settings(),
        like=[
            "/book/1",
            "http://alice:S3cretPw@127.0.0.1:8000/book/2",
            "http://127.0.0.1:8000/b/3",
        ],
    )
    assert checked.start_url == "http://127.0.0.1:8000/"
    assert checked.like == (
        "http://127.0.0.1:8000/book/1",
        "http://127.0.0.1:8000/book/2",
        "http://127.0.0.1:8000/b/3",
    )
    assert checked.settings.access.credential_origins == ("http://alice:S3cretPw@127.0.0.1:8000",)


def test_main_text_without_trafilatura_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings.model_validate({"crawl": {"deliver_text": True}})
    check_inputs("http://example.org/", settings)  # installed: accepted
    monkeypatch.setitem(sys.modules, "trafilatura", None)  # what an import finds when absent
    with pytest.raises(ConfigError, match=r"needs trafilatura: pip install 'deepcrawl\[text\]'"):
        check_inputs("http://example.org/", settings)
    check_inputs("http://example.org/", Settings())  # not asked for: not needed
