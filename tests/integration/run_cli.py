"""Running ``python -m deepcrawl …`` as a user would, in a subprocess of the integration tests.

Every such test needs the same environment: this checkout (not the editable install's) and the
fixture package first on ``PYTHONPATH``, the page bodies under the test's own ``tmp_path``, no
rate limit on a local fixture site, and no browser memory checks (they may restart Chromium,
which is no part of what these tests look at). :func:`cli_env` builds it, with a test's own
settings on top; :func:`run_deepcrawl` runs one command to its end in it, in a forked child of
the test worker (:mod:`tests.integration.forked`: the same process a user starts, without its
seconds of imports), and :func:`spawn_deepcrawl` starts one for a test that drives it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tests.integration.forked import DEEPCRAWL, preload, run_deepcrawl_process, spawn_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "DEEPCRAWL",
    "ROOT",
    "cli_env",
    "run_deepcrawl",
    "run_deepcrawl_process",
    "run_python",
    "spawn_deepcrawl",
]

#: The checkout the tests run from.
ROOT = Path(__file__).resolve().parents[2]
#: How long a command may run unless a test says otherwise (a short crawl of a fixture site).
TIMEOUT_S = 240.0


def cli_env(tmp_path: Path, **extra: str | None) -> dict[str, str]:
    """The environment of a deepcrawl subprocess: this process's, with the test set-up on top.

    ``extra`` adds variables or overrides the set-up's (``DEEPCRAWL_<SECTION>__<KEY>="…"``);
    ``None`` drops one of the set-up's, so that the setting keeps its default (a real site
    crawled at the default politeness rate).
    """
    setup: dict[str, str | None] = {
        "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'fixtures'}",
        "DEEPCRAWL_STORAGE__BODIES_DIR": str(tmp_path / "bodies"),
        "DEEPCRAWL_POLITENESS__REQUESTS_PER_SECOND": "0",
        **extra,
    }
    return {**os.environ, **{key: value for key, value in setup.items() if value is not None}}


def run_python(
    tmp_path: Path,
    *args: str,
    env: Mapping[str, str | None] | None = None,
    timeout: float = TIMEOUT_S,
) -> subprocess.CompletedProcess[str]:
    """Run ``python ARGS`` in ``tmp_path`` under :func:`cli_env` (``env`` on top) to its end.

    Its output is captured as text; a non-zero exit is the test's to assert, with the stderr
    in its message. Past ``timeout`` seconds, :class:`subprocess.TimeoutExpired` fails the test.
    """
    return subprocess.run(
        [sys.executable, *args],
        env=cli_env(tmp_path, **(env or {})),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def run_deepcrawl(
    tmp_path: Path,
    *args: str,
    env: Mapping[str, str | None] | None = None,
    timeout: float = TIMEOUT_S,
) -> subprocess.CompletedProcess[str]:
    """Run ``deepcrawl ARGS`` in ``tmp_path`` under :func:`cli_env` (``env`` on top) to its end,
    as :func:`run_python` runs a script, in a forked child (:func:`spawn_deepcrawl`)."""
    return run_deepcrawl_process(
        list(args),
        env=cli_env(tmp_path, **(env or {})),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


preload()
