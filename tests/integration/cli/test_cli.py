"""The command line as a user meets it: help, doctor, and one clear line for bad input."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.integration.run_cli import DEEPCRAWL, run_deepcrawl, run_deepcrawl_process

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl_fixtures import FixtureServer


def run(
    *args: str, cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return run_deepcrawl_process(
        [*args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        check=False,
    )


def assert_one_clear_error(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error:"), lines
    for word in words:
        assert word in lines[0], lines


def test_help_lists_the_commands() -> None:
    # a new interpreter, as a user starts it (the other tests fork the test worker to save time)
    result = subprocess.run(
        [*DEEPCRAWL, "--help"], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0
    for command in ("doctor", "serve-fixture", "bench", "sites"):
        assert command in result.stdout


def test_doctor_reports_every_check(tmp_path: Path) -> None:
    result = run("doctor", "--db", f"sqlite:///{tmp_path / 'd.db'}", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    for name in ("python", "playwright", "browser found", "browser launches", "database"):
        assert f"ok   {name}" in result.stdout, result.stdout


def test_serve_fixture_help_names_every_fixture_site() -> None:
    from deepcrawl_fixtures.sites import SITES

    result = run_deepcrawl_process(
        ["serve-fixture", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "400"},  # one line: a name is never wrapped in two
        check=False,
    )
    assert result.returncode == 0, result.stderr
    for name in SITES:
        assert re.search(rf"\b{name}\b", result.stdout), name


def test_reading_commands_create_no_database(tmp_path: Path) -> None:
    """``sites``, ``status`` and ``doctor`` only read: none makes ``deepcrawl.db`` in the
    working directory; ``sites`` lists no site, ``doctor`` says the first crawl makes it."""
    listed = run("sites", "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == []
    assert "no database" in listed.stderr
    status = run("status", cwd=tmp_path)
    assert_one_clear_error(status, "no database at sqlite:///deepcrawl.db")
    doctor = run("doctor", "--no-browser", cwd=tmp_path)
    assert "ok   database: sqlite:///deepcrawl.db (not created yet" in doctor.stdout
    assert list(tmp_path.iterdir()) == []


def test_doctor_shows_the_fix_for_a_bad_database(tmp_path: Path) -> None:
    result = run("doctor", "--no-browser", "--db", "nosuchdb://x/y", cwd=tmp_path)
    assert result.returncode == 1
    assert "FAIL database" in result.stdout
    assert "DEEPCRAWL_DB" in result.stdout


@pytest.mark.parametrize(
    ("db", "words"),
    [("not-a-url", ["invalid database URL"]), ("postgresql://u@127.0.0.1:1/x", ["cannot open"])],
)
def test_bad_db_url_is_one_clear_line(tmp_path: Path, db: str, words: list[str]) -> None:
    result = run("sites", "--db", db, cwd=tmp_path)
    assert_one_clear_error(result, *words)


def test_unknown_fixture_site_is_one_clear_line(tmp_path: Path) -> None:
    assert_one_clear_error(run("bench", "--site", "nosuch", cwd=tmp_path), "nosuch", "books")
    assert_one_clear_error(run("serve-fixture", "nosuch", cwd=tmp_path), "nosuch", "books")


def test_unknown_strategy_is_one_clear_line(tmp_path: Path) -> None:
    assert_one_clear_error(run("bench", "--strategy", "magic", cwd=tmp_path), "magic", "bfs")


def test_bad_setting_in_config_file_is_one_clear_line(tmp_path: Path) -> None:
    (tmp_path / "deepcrawl.toml").write_text("[http]\ntimeout_s = 'soon'\n")
    assert_one_clear_error(run("doctor", "--no-browser", cwd=tmp_path), "http.timeout_s")


@pytest.mark.browser
def test_bench_bfs_reports_figures(tmp_path: Path) -> None:
    out = tmp_path / "out"
    # bfs reads every browse-linked record within a few hundred requests: the rest of the
    # default budget would go into the site's endless calendar and change no figure below
    result = run(
        "bench", "--site", "books", "--records", "60", "--max-requests", "500", "--json",
        "--out", str(out), cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    [figures] = json.loads(result.stdout)
    assert figures["strategy"] == "bfs"
    assert figures["records"] == 60
    assert figures["requests"] <= 500
    # bfs cannot reach search-only records, but reaches the browse-linked ones.
    assert 0.5 < figures["recall"] < 1.0
    assert 0 < figures["harvest_rate"] < 1.0
    assert figures["requests"] >= figures["pages_fetched"]
    assert figures["requests_by_kind"].get("disallowed", 0) == 0
    assert (out / "recall.png").stat().st_size > 1000
    assert json.loads((out / "bench.json").read_text())[0]["recall"] == figures["recall"]


@pytest.mark.browser
def test_quiet_shows_no_progress_off_a_terminal(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("books", records=20, seed=2)
    result = run_deepcrawl(
        tmp_path, "--quiet", "crawl", server.url + "/", "--like", "/book/1", "--max-pages", "3",
        "--db", f"sqlite:///{tmp_path / 'q.db'}", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "pages/s" not in result.stderr  # neither the progress lines nor the summary
    assert len((tmp_path / "out" / "pages.jsonl").read_text().splitlines()) == 3
