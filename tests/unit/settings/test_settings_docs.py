"""Settings a user can read: the user settings marked and in the documentation's reference,
every docstring short and free of lab notes, one name one meaning, and an old name failing with
the new one."""

from __future__ import annotations

import re
import runpy
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from deepcrawl.errors import ConfigError
from deepcrawl.settings import (
    RENAMED,
    Settings,
    explain_settings,
    for_users,
    load_settings,
    overridden,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from pydantic.fields import FieldInfo

ROOT = Path(__file__).parents[3]
#: The documentation site's reference pages, made from the live settings model at each build.
SCRIPT = ROOT / "scripts" / "docs" / "reference.py"

#: Applications of the real-site bed and others a lab note would name.
APPLICATIONS = re.compile(
    r"wagtail|roundup|mediawiki|wordpress|htdig|ht://dig|mkdocs|gitit|datasette|lunr|sphinx"
    r"|youtube",
    re.IGNORECASE,
)
#: What a measurement quoted in a docstring reads like.
MEASUREMENTS = re.compile(
    r"\brecall\b|\bharvest\b|\bmeasured\b|\btook\b|\bbooks site\b|\bfixture shop\b|\bon the fixture"
    r"|\bbench(?:mark)?\b.*\d|\d+ (?:of|/) \d+ (?:records|issues|pages)|\d ?%|\bsome \d"
    r"|\d\.\d+ ?[-–] ?\d\.\d+|\d ?[-–] ?\d+ ms\b|\bchosen on\b",
    re.IGNORECASE,
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("DEEPCRAWL_CONFIG", "DEEPCRAWL_DB", "DEEPCRAWL_CHROMIUM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def _fields() -> Iterator[tuple[str, FieldInfo]]:
    for section, holder in Settings.model_fields.items():
        model: Any = holder.annotation
        for key, field in model.model_fields.items():
            yield f"{section}.{key}", field


def test_every_setting_says_what_it_does_in_one_to_three_lines() -> None:
    long = {
        name: n
        for name, field in _fields()
        if not 1 <= (n := len((field.description or "").strip().splitlines())) <= 3
    }
    assert long == {}


def test_no_setting_names_an_application_or_quotes_a_measurement() -> None:
    found = {
        name: match[0]
        for name, field in _fields()
        if (match := APPLICATIONS.search(field.description or ""))
        or (match := MEASUREMENTS.search(field.description or ""))
    }
    assert found == {}


def test_the_user_settings_are_a_few_dozen_and_the_ones_a_user_sets() -> None:
    """Issue 46's bar: settings a user can hold in their head, the rest constants of the code
    they tune."""
    names = {name for name, _field in _fields()}
    users = {name for name, field in _fields() if for_users(field) is not None}
    assert len(names) <= 120
    assert 20 <= len(users) <= 40
    assert {
        "politeness.requests_per_second", "politeness.obey_robots", "access.proxy",
        "access.cookies", "http.user_agent", "browser.chromium", "crawl.max_pages",
        "querying.max_queries", "storage.url", "crawl.deliver_text",
    } <= users  # fmt: skip
    assert not users & {"querying.paging_min_new", "querying.stop_checked_records"}  # knobs
    marked = {s.key for s in explain_settings() if s.user}
    assert marked == users


def test_the_reference_lists_every_setting_users_first() -> None:
    script = runpy.run_path(str(SCRIPT))
    reference = script["settings_markdown"]()
    users_part, knobs_part = reference.split("## Tuning knobs", 1)
    users = {name for name, field in _fields() if for_users(field) is not None}
    assert set(script["user_settings"]()) == users
    for name, _field in _fields():
        row = f"| `{name}` |"
        assert row in (users_part if name in users else knobs_part), name
    assert '| `storage.url` | `"sqlite:///deepcrawl.db"` |' in users_part
    page = (ROOT / "docs" / "reference" / "settings.md").read_text(encoding="utf-8")
    assert "<!-- generated: settings -->" in page


def test_one_name_one_meaning() -> None:
    """A key that names two settings of different sections names one thing in both, and no
    setting keeps a name another meaning had."""
    by_key: dict[str, set[str]] = {}
    for name, _field in _fields():
        section, key = name.split(".")
        by_key.setdefault(key, set()).add(section)
    shared = {key for key, sections in by_key.items() if len(sections) > 1}
    assert shared == set()
    names = {name for name, _field in _fields()}
    assert not set(RENAMED) & names
    assert set(RENAMED.values()) <= names


@pytest.mark.parametrize(("old", "new"), sorted(RENAMED.items()))
def test_an_old_name_given_with_set_names_the_new_one(old: str, new: str) -> None:
    with (
        pytest.raises(ConfigError, match=rf"--set {old}: this setting was renamed {new}$"),
        overridden([f"{old}=1"]),
    ):
        pass


def test_an_old_name_in_the_file_the_environment_or_code_names_the_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(RENAMED, "crawl.pages_max", "crawl.max_pages")
    renamed = r"crawl\.pages_max: this setting was renamed crawl\.max_pages"
    (tmp_path / "deepcrawl.toml").write_text("[crawl]\npages_max = 60\n")
    with pytest.raises(ConfigError, match=renamed):
        load_settings()
    (tmp_path / "deepcrawl.toml").unlink()
    monkeypatch.setenv("DEEPCRAWL_CRAWL__PAGES_MAX", "60")
    with pytest.raises(ConfigError, match=renamed):
        load_settings()
    monkeypatch.delenv("DEEPCRAWL_CRAWL__PAGES_MAX")
    with pytest.raises(ConfigError, match=renamed):
        load_settings(crawl={"pages_max": 5})
    with pytest.raises(ConfigError, match=rf"--set {renamed}$"), overridden(["crawl.pages_max=5"]):
        pass
    with pytest.raises(ConfigError, match=r"crawl\.lease_z: no such setting$"):
        load_settings(crawl={"lease_z": 5})


@pytest.mark.parametrize("name", ["browser.settle_quiet_s", "http.max_redirects", "bench.records"])
def test_a_setting_that_became_a_constant_fails_by_its_name_from_every_source(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 46 made tuning knobs constants of the code they tune: given as settings, each
    fails with one line naming it, wherever it came from."""
    section, key = name.split(".")
    unknown = rf"setting {re.escape(name)}: no such setting$"
    (tmp_path / "deepcrawl.toml").write_text(f"[{section}]\n{key} = 1\n")
    with pytest.raises(ConfigError, match=unknown):
        load_settings()
    (tmp_path / "deepcrawl.toml").unlink()
    monkeypatch.setenv(f"DEEPCRAWL_{section.upper()}__{key.upper()}", "1")
    with pytest.raises(ConfigError, match=unknown):
        load_settings()
    monkeypatch.delenv(f"DEEPCRAWL_{section.upper()}__{key.upper()}")
    with pytest.raises(ConfigError, match=unknown):
        load_settings(**{section: {key: 1}})
    with (
        pytest.raises(ConfigError, match=rf"--set {re.escape(name)}: no such setting in"),
        overridden([f"{name}=1"]),
    ):
        pass
