"""``deepcrawl query`` as a user runs it: one keyword, every result page, the links as JSON.

Most cases call the console script's ``main`` in this process (the critic stays loaded); one
runs the real command in a subprocess.
"""

from __future__ import annotations

import json
import math
import os
from typing import TYPE_CHECKING

import pytest
from deepcrawl_fixtures import build_site
from deepcrawl_fixtures.data import STOP_WORDS

from deepcrawl.cli import main
from deepcrawl.forms import load_critic
from deepcrawl.settings import FormSettings
from tests.integration.run_cli import run_deepcrawl_process

if TYPE_CHECKING:
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser


@pytest.fixture
def cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The session's critic cache (trained here once if needed), named by the environment."""
    path = tmp_path_factory.getbasetemp() / "forms-critic-cache"
    load_critic(FormSettings(model_cache_dir=path))
    monkeypatch.setenv("DEEPCRAWL_FORMS__MODEL_CACHE_DIR", str(path))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run ``deepcrawl query ARGS`` in this process, as the console script does."""
    code = 0
    try:
        main(["query", *args])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.usefixtures("cache")
def test_query_json_lists_form_submitted_pages_and_links(
    books_server: FixtureServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, f"{books_server.url}/", "day", "--json")
    assert code == 0, err
    data = json.loads(out)
    site = build_site("books")
    hits = site.corpus.search(["day"], drop=STOP_WORDS)
    assert data["form"]["action"] == f"{books_server.url}/search"
    assert data["form"]["locator"]
    assert data["verdict"]["query_field"] == "q"
    assert data["outcome"] == "ok"
    assert len(data["submitted"]) == math.ceil(len(hits) / 10)
    assert all(set(link) >= {"url", "text"} for link in data["links"])
    records = {site.detail_path(site.corpus.records[i - 1]) for i in hits}
    found = {link["url"].removeprefix(books_server.url) for link in data["result_links"]}
    assert found == records
    assert {"Log in", "Next »"} <= {link["text"] for link in data["links"]}


@pytest.mark.usefixtures("cache")
def test_query_text_output_and_no_results(
    books_server: FixtureServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, f"{books_server.url}/", "the")
    assert code == 0, err
    assert "no_results" in out.splitlines()[0]
    assert '[id="search"]' in out.splitlines()[0]


@pytest.mark.usefixtures("cache")
def test_query_on_a_page_without_a_search_form_is_one_clear_error(
    books_server: FixtureServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = run(capsys, f"{books_server.url}/book/1/print", "day")
    assert code == 1
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1
    assert lines[0].startswith("error:")
    assert "no search form" in lines[0]
    code, _out, err = run(capsys, "not-a-url", "day")
    assert code == 1
    assert "must start with http:// or https://" in err


def test_query_runs_as_a_console_command(
    books_server: FixtureServer, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    cache = tmp_path_factory.getbasetemp() / "forms-critic-cache"
    load_critic(FormSettings(model_cache_dir=cache))
    env = {**os.environ, "DEEPCRAWL_FORMS__MODEL_CACHE_DIR": str(cache)}
    result = run_deepcrawl_process(
        ["query", f"{books_server.url}/", "best", "--json"],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["outcome"] == "ok"
