"""The install a user does: the wheel built, checked, and installed into a fresh virtualenv,
where ``deepcrawl --version``, ``deepcrawl doctor``, ``deepcrawl install-browser`` and a crawl
of a fixture site work from the installed package alone (not this checkout)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from deepcrawl import __version__
from tests.integration.run_cli import ROOT

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl_fixtures import FixtureServer

# a wheel built, a virtualenv made, a crawl run: over the suite's 300 s on a loaded machine
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(900)]

#: uv, which ``make install`` puts in the test virtualenv: it builds and installs from its cache.
UV = Path(sys.executable).with_name("uv")


def run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None,
        timeout: float = 300) -> subprocess.CompletedProcess[str]:  # fmt: skip
    done = subprocess.run(
        [str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=timeout, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"{command}: {done.stdout}\n{done.stderr}"
    return done


def user_env(venv: Path) -> dict[str, str]:
    """The environment of a user's shell with the fresh virtualenv activated: nothing of this
    checkout or of the test run on the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPCRAWL_", "PYTHON"))}
    env["PATH"] = os.pathsep.join([str(venv / "bin"), env.get("PATH", "")])
    env["VIRTUAL_ENV"] = str(venv)
    return env


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel and the sdist, built from this checkout as a release is (python -m build)."""
    out = tmp_path_factory.mktemp("dist")
    env = {**os.environ, "PATH": os.pathsep.join([str(UV.parent), os.environ["PATH"]])}
    run(sys.executable, "-m", "build", "--installer", "uv", "--outdir", out, ROOT, cwd=out, env=env)
    run(sys.executable, "-m", "twine", "check", "--strict", *sorted(out.iterdir()), cwd=out)
    return out


def test_the_wheel_holds_every_file_the_package_reads(dist: Path) -> None:
    [wheel] = dist.glob("deepcrawl-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    data = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "deepcrawl").rglob("*")
        if path.is_file() and path.suffix not in {".py", ".pyc"} and "__pycache__" not in path.parts
    }
    assert data  # the browser's scripts, the link prior, the label page's templates …
    assert data <= names, sorted(data - names)
    keywords = {
        f"deepcrawl/_keywords/{p.name}" for p in (ROOT / "keywords").iterdir() if p.is_file()
    }
    assert keywords <= names, sorted(keywords - names)
    assert {n for n in names if n.endswith(".py")} >= {
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "deepcrawl").rglob("*.py")
        if "__pycache__" not in p.parts
    }


def test_a_fresh_virtualenv_gets_a_working_deepcrawl(
    dist: Path, fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    [wheel] = dist.glob("deepcrawl-*.whl")
    venv = tmp_path / "venv"
    run(UV, "venv", "--quiet", "--python", sys.executable, venv, cwd=tmp_path)
    run(UV, "pip", "install", "--quiet", "--python", venv / "bin" / "python", wheel, cwd=tmp_path)
    env = user_env(venv)
    home = tmp_path / "home"  # the user's own folder: nothing of this checkout in it
    home.mkdir()

    located = run("python", "-c", "import deepcrawl; print(deepcrawl.__file__)", cwd=home, env=env)
    assert Path(located.stdout.strip()).is_relative_to(venv)
    version = run("deepcrawl", "--version", cwd=home, env=env)
    assert version.stdout.strip() == f"deepcrawl {__version__}"

    doctor = run("deepcrawl", "doctor", cwd=home, env=env)
    assert "ok   browser launches" in doctor.stdout
    # an extra the plain install lacks is named as pip knows it
    [postgres] = [line for line in doctor.stdout.splitlines() if "extra postgres" in line]
    assert "pip install 'deepcrawl[postgres]' (missing " in postgres
    assert "psycopg" in postgres.partition("(missing ")[2]
    assert "pip install 'deepcrawl[scrapy]' (missing scrapy)" in doctor.stdout
    browser = run("deepcrawl", "install-browser", cwd=home, env=env)
    assert browser.stdout.startswith("browser: /")

    site = fixture_server("books", records=30, seed=3)
    crawl = run(
        "deepcrawl", "crawl", site.url + "/", "--like", "/book/1", "--max-pages", "5",
        "--out", "out", cwd=home, env={**env, "DEEPCRAWL_POLITENESS__REQUESTS_PER_SECOND": "0"},
    )  # fmt: skip
    assert "5 pages delivered" in crawl.stderr
    records = [json.loads(line) for line in (home / "out" / "pages.jsonl").read_text().splitlines()]
    truth = site.truth()
    assert len(records) == 5
    assert all(truth.is_detail(record["url"]) for record in records)
