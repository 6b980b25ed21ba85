"""Finding Chromium: the configured binary, a headless shell for a headless browser, Playwright's
own, Debian's, then PATH."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepcrawl.browser import chromium
from deepcrawl.browser.chromium import find_chromium, require_chromium
from deepcrawl.errors import BrowserNotFoundError
from deepcrawl.settings import BrowserSettings, Settings


def _executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def nowhere(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No system Chromium, an empty PATH and an empty Playwright registry."""
    monkeypatch.setattr(chromium, "SYSTEM_CHROMIUMS", (tmp_path / "none",))
    monkeypatch.setattr(chromium, "SYSTEM_HEADLESS_SHELLS", (tmp_path / "no-shell",))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "registry"))
    return tmp_path


def test_configured_binary_wins(nowhere: Path) -> None:
    binary = _executable(nowhere / "my-chrome")
    assert find_chromium(BrowserSettings(chromium=binary)) == binary
    assert find_chromium(Settings(browser=BrowserSettings(chromium=binary))) == binary


def test_configured_binary_that_does_not_exist_is_named(nowhere: Path) -> None:
    missing = nowhere / "gone"
    assert find_chromium(BrowserSettings(chromium=missing)) == missing
    with pytest.raises(BrowserNotFoundError, match="gone"):
        require_chromium(BrowserSettings(chromium=missing))


def test_playwright_registry_before_system(nowhere: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    system = _executable(nowhere / "usr-bin-chromium")
    monkeypatch.setattr(chromium, "SYSTEM_CHROMIUMS", (system,))
    assert find_chromium(BrowserSettings()) == system
    managed = _executable(nowhere / "registry/chromium-1200/chrome-linux/chrome")
    assert find_chromium(BrowserSettings()) == managed


def test_a_headless_browser_is_a_headless_shell_and_one_with_a_window_never(
    nowhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    system = _executable(nowhere / "usr-bin-chromium")
    managed = _executable(nowhere / "registry/chromium-1200/chrome-linux/chrome")
    monkeypatch.setattr(chromium, "SYSTEM_CHROMIUMS", (system,))
    debian_shell = _executable(nowhere / "usr-bin-chromium-headless-shell")
    monkeypatch.setattr(chromium, "SYSTEM_HEADLESS_SHELLS", (debian_shell,))
    assert find_chromium(BrowserSettings()) == debian_shell
    assert find_chromium(BrowserSettings(headless=False)) == managed
    shell = "registry/chromium_headless_shell-1200/chrome-linux/headless_shell"
    playwright_shell = _executable(nowhere / shell)
    assert find_chromium(BrowserSettings()) == playwright_shell
    assert find_chromium(BrowserSettings(headless=False)) == managed
    configured = _executable(nowhere / "my-chrome")
    assert find_chromium(BrowserSettings(chromium=configured)) == configured


def test_path_is_the_last_resort(nowhere: Path) -> None:
    assert find_chromium(BrowserSettings()) is None
    on_path = _executable(nowhere / "bin/chromium-browser")
    assert find_chromium(BrowserSettings()) == on_path


def test_nothing_found_says_how_to_install(nowhere: Path) -> None:
    with pytest.raises(BrowserNotFoundError, match="apt-get install -y chromium"):
        require_chromium(BrowserSettings())
