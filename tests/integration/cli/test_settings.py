"""``deepcrawl settings`` and the global options (``--set``, ``--log-file``) as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from deepcrawl.settings import RENAMED
from deepcrawl.storage import Repository
from tests.integration.run_cli import run_deepcrawl_process

ROOT = Path(__file__).resolve().parents[3]


def run(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DEEPCRAWL_")}
    return run_deepcrawl_process(
        [*args],
        env={**clean, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'fixtures'}", **env},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_settings_names_the_source_of_each_value(tmp_path: Path) -> None:
    (tmp_path / "deepcrawl.toml").write_text(
        "[http]\ntimeout_s = 3.5\n[crawl]\nmax_pages = 7\nworker_wait_s = 5\n"
    )
    result = run(
        tmp_path,
        "--set", "crawl.max_pages=9",
        "--set", 'crawl.like=["/book/1", "/book/2"]',
        "--set", "storage.url=postgresql+psycopg://me:secret@127.0.0.1:1/db",
        "settings", "--json",
        DEEPCRAWL_CRAWL__WORKER_WAIT_S="6",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["http.timeout_s"] == {
        "value": 3.5, "source": "file", "detail": "deepcrawl.toml", "user": True
    }  # fmt: skip
    # --set beats the file, the environment beats the file
    assert found["crawl.max_pages"]["value"] == 9
    assert found["crawl.max_pages"]["source"] == "--set"
    assert found["crawl.worker_wait_s"] == {
        "value": 6, "source": "environment", "detail": "DEEPCRAWL_CRAWL__WORKER_WAIT_S",
        "user": False,
    }  # fmt: skip
    assert found["crawl.like"]["value"] == ["/book/1", "/book/2"]
    assert found["politeness.obey_robots"] == {
        "value": True, "source": "default", "detail": "", "user": True
    }  # fmt: skip
    assert "secret" not in result.stdout
    assert found["storage.url"]["value"] == "postgresql+psycopg://me:***@127.0.0.1:1/db"


def test_settings_table_lists_only_changed_values_when_asked(tmp_path: Path) -> None:
    result = run(tmp_path, "--set", "crawl.max_pages=9", "settings", "--changed")
    assert result.returncode == 0, result.stderr
    assert "crawl.max_pages" in result.stdout
    assert "--set" in result.stdout
    assert "http.timeout_s" not in result.stdout


def test_a_bad_assignment_is_one_clear_line(tmp_path: Path) -> None:
    result = run(tmp_path, "--set", "crawl.max_pagez=3", "settings")
    assert result.returncode == 1, result.stdout
    assert result.stderr.startswith("error: --set crawl.max_pagez: no such setting")
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_flag_beats_set(tmp_path: Path) -> None:
    # two databases, a site in each: `sites` (which only reads) shows the one the flag names
    for name in ("flag", "set"):
        with Repository.open(f"sqlite:///{tmp_path / name}.db") as repo:
            repo.site(f"http://{name}.test/")
    result = run(
        tmp_path, "--set", f"storage.url=sqlite:///{tmp_path / 'set.db'}",
        "sites", "--db", f"sqlite:///{tmp_path / 'flag.db'}", "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "http://flag.test/" in result.stdout
    assert "http://set.test/" not in result.stdout


def test_an_unwritable_log_file_is_one_clear_line(tmp_path: Path) -> None:
    result = run(tmp_path, "--log-file", str(tmp_path / "no" / "such" / "dir.log"), "settings")
    assert result.returncode == 1
    assert result.stderr.startswith("error: --log-file")
    assert "Traceback" not in result.stderr


def test_settings_marks_the_user_settings_and_lists_only_them_when_asked(tmp_path: Path) -> None:
    every = json.loads(run(tmp_path, "settings", "--json").stdout)
    assert every["politeness.requests_per_second"]["user"] is True
    assert every["querying.paging_min_new"]["user"] is False
    result = run(tmp_path, "settings", "--user", "--json")
    assert result.returncode == 0, result.stderr
    users = json.loads(result.stdout)
    assert set(users) == {key for key, found in every.items() if found["user"]}
    assert "storage.url" in users
    assert "querying.paging_min_new" not in users
    table = run(tmp_path, "settings", "--user").stdout
    assert "what it does" in table
    assert "crawl.max_pages" in table
    assert "querying.stop_checked_records" not in table


def test_a_renamed_setting_names_its_new_name(tmp_path: Path) -> None:
    old, new = next(iter(RENAMED.items()))
    section, key = old.split(".")
    result = run(tmp_path, "--set", f"{old}=60", "settings")
    assert result.returncode == 1, result.stdout
    assert result.stderr.strip() == f"error: --set {old}: this setting was renamed {new}"
    (tmp_path / "deepcrawl.toml").write_text(f"[{section}]\n{key} = 1\n")
    result = run(tmp_path, "settings")
    assert result.returncode == 1, result.stdout
    assert result.stderr.startswith(f"error: setting {old}: this setting was renamed {new}")


def test_a_setting_that_became_a_constant_is_one_line_naming_it(tmp_path: Path) -> None:
    result = run(tmp_path, "--set", "browser.settle_quiet_s=0.1", "settings")
    assert result.returncode == 1, result.stdout
    assert result.stderr.startswith(
        "error: --set browser.settle_quiet_s: no such setting in [browser] (keys: "
    )
    (tmp_path / "deepcrawl.toml").write_text("[browser]\nsettle_quiet_s = 0.1\n")
    result = run(tmp_path, "settings")
    assert result.returncode == 1, result.stdout
    assert result.stderr.strip() == "error: setting browser.settle_quiet_s: no such setting"
