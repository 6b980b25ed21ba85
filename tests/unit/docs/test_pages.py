"""The pages people read: the README short and the site's pages true to the code — every page
in the navigation, every setting they name a setting that exists — and the Results page drawn
from whatever bench files are there."""

from __future__ import annotations

import json
import re
import runpy
from pathlib import Path
from typing import Any

import yaml

from deepcrawl.settings import Settings

ROOT = Path(__file__).parents[3]
RESULTS = runpy.run_path(str(ROOT / "scripts" / "docs" / "results.py"))
#: The pages a user reads (docs/ARCHITECTURE.md, the developers' map, names modules instead).
PAGES = [
    ROOT / "README.md",
    ROOT / "CONTRIBUTING.md",
    *sorted(p for p in (ROOT / "docs").rglob("*.md") if p.name != "ARCHITECTURE.md"),
]


def test_the_readme_is_short_and_keeps_the_quick_start() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200
    assert [n for n, line in enumerate(lines, 1) if len(line) > 200] == []
    quick = "\n".join(lines)
    assert "make demo" in quick
    assert "make test" in quick


def _nav(entries: list[Any]) -> set[str]:
    found: set[str] = set()
    for entry in entries:
        target = next(iter(entry.values())) if isinstance(entry, dict) else entry
        found |= _nav(target) if isinstance(target, list) else {target}
    return found


def test_every_page_is_in_the_navigation() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert pages == _nav(config["nav"])


def test_every_setting_a_page_names_exists() -> None:
    sections = {name: holder.annotation for name, holder in Settings.model_fields.items()}
    # `crawl.max_pages`, `--set crawl.max_pages=50`; not a family (`links.hub_*`) or a module
    named = re.compile(rf"[`\s]({'|'.join(sections)})\.([a-z_]+)(?![a-z_.*])")
    files = {"log", "json", "jsonl", "png", "db", "toml", "warc", "gz", "yaml", "txt"}
    missing = {
        f"{page.relative_to(ROOT)}: {section}.{key}"
        for page in PAGES
        for line in page.read_text(encoding="utf-8").splitlines()
        if "error:" not in line  # an example of the error a wrong name gets
        for section, key in named.findall(line)
        if key not in sections[section].model_fields  # type: ignore[union-attr]
        and key not in files
    }
    assert missing == set()


def test_the_results_take_any_suite(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "zoo.json").write_text(json.dumps([
        {"engine": "whoosh", "recall": 0.97, "requests": 412, "usage": {"cpu_s": 3}},
        {"engine": "tantivy", "recall": 1.0, "requests": 377, "usage": {"cpu_s": 2}},
    ]))  # fmt: skip
    (data / "index.toml").write_text(
        '[[file]]\nname = "zoo.json"\nsuite = "zoo"\ntitle = "The zoo"\ncommit = "abc1234"\n'
    )
    page = RESULTS["results_markdown"](data)
    assert "## The zoo" in page
    assert "commit: abc1234" in page
    assert "| engine | recall | requests |" in page  # the plain fields; the nested left out
    assert "| whoosh | 0.970 | 412 |" in page
    assert RESULTS["plots"](data) == {}


def test_the_committed_results_are_drawn_with_their_plots() -> None:
    data = ROOT / "docs" / "results" / "data"
    page = RESULTS["results_markdown"](data)
    benches = RESULTS["benches"](data)
    assert {bench.suite for bench in benches} >= {"fixtures", "real"}
    for bench in benches:
        assert f"## {bench.title}" in page
        assert f"(data/{bench.path.name})" in page
    plots = RESULTS["plots"](data)
    assert plots
    assert all(png.startswith(b"\x89PNG") for png in plots.values())
    assert all(f"({name})" in page for name in plots)
