"""Settings: one object, every default, overridable from code, environment and a TOML file."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepcrawl.errors import ConfigError
from deepcrawl.settings import QUIET_CHROMIUM_ARGS, Settings, load_settings


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
