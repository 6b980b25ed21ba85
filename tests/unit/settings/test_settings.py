"""Settings: one object, every default, overridable from code, environment and a TOML file."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepcrawl.errors import ConfigError
from deepcrawl.settings import (
    QUIET_CHROMIUM_ARGS,
    Settings,
    explain_settings,
    load_settings,
    overridden,
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("DEEPCRAWL_CONFIG", "DEEPCRAWL_DB", "DEEPCRAWL_CHROMIUM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def test_defaults() -> None:
    settings = load_settings()
    assert settings.storage.url == "sqlite:///deepcrawl.db"
    assert settings.politeness.obey_robots is True
    assert set(QUIET_CHROMIUM_ARGS) <= set(settings.browser.launch_args)


def test_precedence_code_over_env_over_toml(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "deepcrawl.toml").write_text(
        "[http]\ntimeout_s = 3.5\nuser_agent = 'from-toml'\n[politeness]\nretries = 7\n"
    )
    monkeypatch.setenv("DEEPCRAWL_HTTP__TIMEOUT_S", "4.5")
    settings = load_settings(politeness={"retries": 1})
    assert settings.http.timeout_s == 4.5  # env beats the file
    assert settings.http.user_agent == "from-toml"  # the file beats the default
    assert settings.politeness.retries == 1  # code beats everything


def test_config_file_named_by_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    config = tmp_path / "elsewhere.toml"
    config.write_text("[storage]\nurl = 'sqlite:///other.db'\n")
    monkeypatch.setenv("DEEPCRAWL_CONFIG", str(config))
    assert load_settings().storage.url == "sqlite:///other.db"


def test_shortcut_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPCRAWL_DB", "sqlite:///short.db")
    monkeypatch.setenv("DEEPCRAWL_CHROMIUM", "/opt/chromium/chrome")
    settings = load_settings()
    assert settings.storage.url == "sqlite:///short.db"
    assert settings.browser.chromium == Path("/opt/chromium/chrome")


def test_none_overrides_leave_values_alone() -> None:
    assert load_settings(http={"timeout_s": None}).http.timeout_s == Settings().http.timeout_s


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[http]\ntimeout_s = 'soon'\n", "http.timeout_s"),
        ("[nosuchsection]\nx = 1\n", "nosuchsection"),
        ("[http]\nnosuchkey = 1\n", "http.nosuchkey"),
        ("this is = = not toml", "cannot read settings"),
    ],
)
def test_bad_values_name_the_setting(tmp_path: Path, toml: str, message: str) -> None:
    (tmp_path / "deepcrawl.toml").write_text(toml)
    with pytest.raises(ConfigError, match=message):
        load_settings()


def test_bad_override_names_the_setting() -> None:
    with pytest.raises(ConfigError, match="storage.bodies_inline_max"):
        load_settings(storage={"bodies_inline_max": "lots"})


def test_set_ranks_between_code_and_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "deepcrawl.toml").write_text("[crawl]\nmax_pages = 1\nworker_wait_s = 2\n")
    monkeypatch.setenv("DEEPCRAWL_CRAWL__MAX_PAGES", "3")
    with overridden(["crawl.max_pages=4", "crawl.worker_wait_s=5", 'crawl.like=["/a", "/b"]']):
        assert load_settings().crawl.max_pages == 4  # --set beats the environment
        assert load_settings().crawl.worker_wait_s == 5  # and the file
        assert load_settings().crawl.like == ("/a", "/b")  # a JSON list is a list
        assert load_settings(crawl={"max_pages": 6}).crawl.max_pages == 6  # a flag beats it
    assert load_settings().crawl.max_pages == 3  # undone after the block


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        (
            "crawl.max_pagez=3",
            r"crawl\.max_pagez: no such setting in \[crawl\] \(keys: .*max_pages",
        ),
        ("crawler.max_pages=3", r"crawler\.max_pages: no such setting section .*crawl"),
        ("crawl=3", "crawl: no such setting section"),
        ("crawl.max_pages", "SECTION.KEY=VALUE"),
        ("=3", "SECTION.KEY=VALUE"),
        ("crawl.like=[oops", r"crawl\.like: the value is not valid JSON"),
    ],
)
def test_a_bad_assignment_names_the_key(assignment: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message), overridden([assignment]):
        pass


def test_a_bad_assigned_value_names_the_setting() -> None:
    with overridden(["crawl.max_pages=lots"]), pytest.raises(ConfigError, match="crawl.max_pages"):
        load_settings()


def test_explain_names_the_source_of_each_value(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "deepcrawl.toml").write_text("[http]\ntimeout_s = 3.5\n")
    monkeypatch.setenv("DEEPCRAWL_CRAWL__WORKER_WAIT_S", "6")
    monkeypatch.setenv("DEEPCRAWL_DB", "postgresql+psycopg://me:secret@db.example/crawl")
    monkeypatch.setenv(
        "DEEPCRAWL_ACCESS__CREDENTIAL_ORIGINS", '["https://alice:S3cretPw@site.example"]'
    )
    with overridden(["crawl.max_pages=9"]):
        found = {s.key: s for s in explain_settings(crawl={"navigate": True, "scope_prefix": None})}
    assert (found["http.timeout_s"].source, found["http.timeout_s"].detail) == (
        "file", "deepcrawl.toml"
    )  # fmt: skip
    assert found["crawl.worker_wait_s"].detail == "DEEPCRAWL_CRAWL__WORKER_WAIT_S"
    assert (found["storage.url"].source, found["storage.url"].detail) == (
        "environment", "DEEPCRAWL_DB"
    )  # fmt: skip
    assert found["storage.url"].value == "postgresql+psycopg://me:***@db.example/crawl"
    assert found["access.credential_origins"].value == ["https://alice:***@site.example"]
    assert (found["crawl.max_pages"].source, found["crawl.max_pages"].value) == ("--set", 9)
    assert found["crawl.navigate"].source == "flag"
    assert found["crawl.scope_prefix"].source == "default"  # a flag not given
    assert len(found) == sum(len(section) for section in load_settings().model_dump().values())
