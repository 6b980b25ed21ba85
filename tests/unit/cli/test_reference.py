"""The README's command reference is the CLI's: every command, argument and flag."""

from __future__ import annotations

import runpy
from pathlib import Path

SCRIPT = Path(__file__).parents[3] / "scripts" / "cli_reference.py"


def test_the_readme_reference_is_current() -> None:
    script = runpy.run_path(str(SCRIPT))
    readme = script["README"].read_text(encoding="utf-8")
    assert script["render"](readme) == readme, "run scripts/cli_reference.py"


def test_the_reference_names_every_flag_of_every_command() -> None:
    script = runpy.run_path(str(SCRIPT))
    reference = script["reference"]()
    for flag in ("--cookies", "--field", "--form", "--warc-gzip", "--no-sitemaps", "--requery",
                 "--set", "--log-file", "--storage-state", "--text"):  # fmt: skip
        assert f"`{flag}`" in reference
    assert "#### `deepcrawl failures`" in reference
    assert "#### `deepcrawl login`" in reference
