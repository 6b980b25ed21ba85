"""The doctor's findings and fixes, and the browser step, with the machine faked."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from deepcrawl import doctor
from deepcrawl.errors import BrowserNotFoundError
from deepcrawl.settings import load_settings


def test_every_user_extra_is_checked_by_its_real_name() -> None:
    found = doctor.extras()
    assert set(doctor.FEATURES) <= set(found)  # pyproject.toml's extras, read from the metadata
    assert "psycopg" in found["postgres"]
    checks = {c.name: c for c in doctor.run_checks(load_settings(), browser=False, database=False)}
    for extra in doctor.FEATURES:
        assert f"extra {extra}" in checks
        assert not checks[f"extra {extra}"].required


def test_a_missing_extra_names_the_pip_command_and_the_packages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = doctor._installed
    monkeypatch.setattr(doctor, "_installed", lambda d: None if d == "psycopg" else real(d))
    check = doctor._extra("postgres", ["psycopg"])
    assert not check.ok
    assert check.detail == (
        "PostgreSQL storage and workers: pip install 'deepcrawl[postgres]' (missing psycopg)"
    )


def test_no_browser_says_how_to_get_one(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import deepcrawl.browser

    monkeypatch.setattr(deepcrawl.browser, "find_chromium", lambda _settings: None)
    [check] = doctor._browser(load_settings())
    assert not check.ok
    assert "deepcrawl install-browser" in check.detail
    assert "apt-get install -y chromium" in check.detail
    assert "playwright install chromium" in check.detail

    monkeypatch.undo()  # the real lookup: a configured path is taken as given
    missing = tmp_path / "chrome"
    [check] = doctor._browser(load_settings(browser={"chromium": missing}))
    assert not check.ok
    assert f"names {missing}, which does not exist" in check.detail


class FakeMachine:
    """Records the commands ``install_browser`` runs; a command installs Chromium when told."""

    def __init__(self, installs: str | None, browser: Path) -> None:
        self.installs, self.browser, self.ran = installs, browser, []
        self.present = False

    def run(self, command: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        self.ran.append(command)
        ok = self.installs is not None and self.installs in " ".join(command)
        if ok:
            self.present = True
        return subprocess.CompletedProcess(command, 0 if ok else 1, "", "")


@pytest.mark.parametrize(("installs", "first"), [("playwright", "playwright"), ("apt-get", "apt")])
def test_install_browser_tries_playwright_then_the_distribution(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, installs: str, first: str
) -> None:
    import deepcrawl.browser

    machine = FakeMachine(installs, tmp_path / "chromium")
    monkeypatch.setattr(
        deepcrawl.browser, "find_chromium", lambda _s: machine.browser if machine.present else None
    )
    monkeypatch.setattr(doctor.shutil, "which", lambda name: f"/usr/bin/{name}")
    said: list[str] = []
    found = doctor.install_browser(load_settings(), say=said.append, run=machine.run)
    assert found == machine.browser
    assert "playwright" in " ".join(machine.ran[0])  # Playwright's download is tried first
    if first == "apt":
        assert any("apt-get" in " ".join(c) and "chromium" in c for c in machine.ran)
    assert said[-1] == f"browser: installed {machine.browser}"


def test_install_browser_says_so_when_nothing_works(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import deepcrawl.browser

    machine = FakeMachine(None, tmp_path / "chromium")
    monkeypatch.setattr(deepcrawl.browser, "find_chromium", lambda _s: None)
    monkeypatch.setattr(doctor.shutil, "which", lambda _name: None)  # no apt-get either
    with pytest.raises(BrowserNotFoundError, match="DEEPCRAWL_CHROMIUM"):
        doctor.install_browser(load_settings(), say=lambda _line: None, run=machine.run)


def test_install_browser_keeps_a_browser_already_there(tmp_path: Path) -> None:
    binary = tmp_path / "chrome"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    machine = FakeMachine(None, binary)
    settings = load_settings(browser={"chromium": binary})
    assert doctor.install_browser(settings, say=lambda _l: None, run=machine.run) == binary
    assert machine.ran == []  # nothing installed
