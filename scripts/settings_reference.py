"""Write the README's table of user settings: name, default, what it does, from the settings.

``python scripts/settings_reference.py`` rewrites the part of README.md between the two
settings markers; ``--check`` only says whether it is current (exit 1 if not), as the unit test
does. The table lists the settings marked ``User[...]`` in ``deepcrawl/settings/`` (the ones a
user sets, as against tuning knobs), each with its default and its docstring, so a setting
marked, renamed or re-documented is in the README as soon as this script is run, and a stale
README fails the tests.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic_core import PydanticUndefined

from deepcrawl.settings import RENAMED, Settings, for_users
from deepcrawl.settings._sources import plain_text

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo

README = Path(__file__).resolve().parents[1] / "README.md"
BEGIN = "<!-- settings reference: begin (scripts/settings_reference.py writes this part) -->"
END = "<!-- settings reference: end -->"


def _default(field: FieldInfo) -> str:
    marker = for_users(field)
    if marker is not None and marker.shown_default:
        return f"`{marker.shown_default}`"
    value: Any = field.default
    if value is PydanticUndefined and field.default_factory is not None:
        value = field.default_factory()  # type: ignore[call-arg]
    if value is None:
        return "unset"
    if isinstance(value, Path):
        value = str(value)
    if isinstance(value, tuple):
        value = list(value)
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def reference() -> str:
    """The table as Markdown, section by section in the settings' order, then the renamed."""
    parts = [BEGIN, "", "| setting | default | what it does |", "|---|---|---|"]
    for section, holder in Settings.model_fields.items():
        model: Any = holder.annotation
        for key, field in model.model_fields.items():
            if for_users(field) is None:
                continue
            about = _cell(plain_text(field.description or ""))
            parts.append(f"| `{section}.{key}` | {_cell(_default(field))} | {about} |")
    renamed = ", ".join(f"`{old}` → `{new}`" for old, new in RENAMED.items())
    parts += [
        "",
        f"Renamed settings (the old name fails with a line naming the new one): {renamed}.",
        "",
        END,
    ]
    return "\n".join(parts)


def render(readme: str) -> str:
    """``readme`` with its settings table replaced by the current one."""
    start, stop = readme.index(BEGIN), readme.index(END) + len(END)
    return readme[:start] + reference() + readme[stop:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/settings_reference.py")
    parser.add_argument("--check", action="store_true", help="only check; exit 1 if stale")
    args = parser.parse_args(argv)
    current = README.read_text(encoding="utf-8")
    wanted = render(current)
    if args.check:
        if wanted != current:
            print("README.md's settings table is stale: run scripts/settings_reference.py")
            return 1
        return 0
    if wanted != current:
        README.write_text(wanted, encoding="utf-8")
        print("README.md: settings table updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
