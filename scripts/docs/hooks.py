"""MkDocs hooks of the documentation site (``mkdocs.yml``: ``hooks:``): the generated parts.

A page asks for a generated part with a marker line, ``<!-- generated: NAME -->``, which the
build replaces (:data:`PARTS`): the command reference and the settings reference from the code
(``reference.py``), the results from the bench's JSON files in ``docs/results/data/``
(``results.py``, whose plots are added to the site as generated files). A marker naming no
part fails the build.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

# mkdocs puts this file's folder on sys.path while it loads the hooks
import reference  # type: ignore[import-not-found]
import results  # type: ignore[import-not-found]
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

if TYPE_CHECKING:
    from collections.abc import Callable

    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

MARKER = re.compile(r"^<!-- generated: (?P<name>[a-z-]+) -->$", re.MULTILINE)


def _results(config: MkDocsConfig) -> str:
    return str(results.results_markdown(_data(config)))


#: The generated parts, by marker name.
PARTS: dict[str, Callable[[MkDocsConfig], str]] = {
    "commands": lambda _config: str(reference.commands_markdown()),
    "settings": lambda _config: str(reference.settings_markdown()),
    "results": _results,
}


def _data(config: MkDocsConfig) -> Path:
    return Path(config.docs_dir) / "results" / "data"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the results' plots, drawn from the bench's JSON, as files of the site."""
    for name, content in results.plots(_data(config)).items():
        files.append(File.generated(config, f"results/{name}", content=content))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, **_: Any) -> str:
    """Replace each marker of the page with its generated part."""

    def part(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in PARTS:
            raise PluginError(
                f"{page.file.src_uri}: no generated part {name!r} ({', '.join(PARTS)})"
            )
        return PARTS[name](config)

    return MARKER.sub(part, markdown)
