"""The documentation site's generated reference: every command and every setting.

Both are read from the code at build time (``make docs`` runs them through ``hooks.py``), never
pasted: the commands from the typer application (each command's help, arguments and flags, as
``--help`` gives them), the settings from the live pydantic model of ``deepcrawl/settings/``
(each field's name, default and docstring; the settings a user sets, marked ``User[...]``,
first). A flag or a setting added, renamed or re-documented is on the site at the next build,
and the tests check that none is missing (``tests/unit/cli/test_reference.py``,
``tests/unit/settings/test_settings_docs.py``).
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer.main
from pydantic_core import PydanticUndefined

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo

__all__ = ["command_names", "commands_markdown", "settings_markdown", "user_settings"]


def _cell(text: str) -> str:
    """``text`` on one line, fit for a table cell: a pipe escaped outside code spans (inside
    them Python-Markdown's tables keep it as is, and would show the backslash)."""
    parts = " ".join(text.split()).split("`")
    return "`".join(p if i % 2 else p.replace("|", "\\|") for i, p in enumerate(parts))


# Typer ships its own copy of click, so parameters are read by their attributes (click's
# documented ones), not told apart by class.


def _root() -> Any:
    from deepcrawl.cli import app

    return typer.main.get_command(app)


def command_names() -> list[str]:
    """Every command of the ``deepcrawl`` CLI, subcommands as ``group sub``, sorted."""
    names: list[str] = []
    for name, command in sorted(_root().commands.items()):
        children = getattr(command, "commands", None)
        if children:
            names += [f"{name} {child}" for child in sorted(children)]
        else:
            names.append(name)
    return names


def _command(path: str) -> Any:
    command = _root()
    for part in path.split():
        command = command.commands[part]
    return command


def _flags(param: Any) -> str:
    if param.param_type_name == "argument":
        return f"`{(param.metavar or param.name).upper()}`"
    names = [*param.opts, *param.secondary_opts]
    if not param.is_flag and not param.count and param.metavar:
        names[-1] += f" {param.metavar}"  # inside the code span: a pipe in it stays one cell
    return " / ".join(f"`{name}`" for name in names)


def _default(param: Any) -> str:
    if param.param_type_name == "argument" or param.count:
        return ""
    value = param.default
    if value is None or value == () or value == [] or callable(value):
        return ""
    if param.is_flag and param.secondary_opts:
        return f"`{param.opts[0] if value else param.secondary_opts[0]}`"
    if isinstance(value, bool):
        return ""
    return f"`{value}`"


def _help(param: Any) -> str:
    if param.param_type_name == "argument":
        return _cell(getattr(param, "help", None) or "(argument)")
    text = param.help or ""
    return _cell(text + (" (repeatable)" if param.multiple and "repeatable" not in text else ""))


def _usage(path: str, command: Any) -> str:
    arguments = [
        (p.metavar or p.name).upper() + ("..." if p.nargs == -1 else "")
        for p in command.params
        if p.param_type_name == "argument"
    ]
    return " ".join(["deepcrawl", "[GLOBAL OPTIONS]", path, "[OPTIONS]", *arguments])


def _params_table(command: Any) -> list[str]:
    params = [p for p in command.params if p.name != "help" and not getattr(p, "hidden", False)]
    if not params:
        return ["No arguments or flags but `--help`.", ""]
    lines = ["| argument / flag | default | what it does |", "|---|---|---|"]
    lines += [f"| {_flags(p)} | {_default(p)} | {_help(p)} |" for p in params]
    return [*lines, ""]


def commands_markdown() -> str:
    """The command reference as Markdown: the global options, then one section a command."""
    root = _root()
    parts = ["## Global options", ""]
    parts += [
        "They go before the command's name and work with every command "
        "(`deepcrawl -v --set crawl.max_pages=50 crawl URL`).",
        "",
        *_params_table(root),
    ]
    for path in command_names():
        command = _command(path)
        help_text = inspect.cleandoc(command.help or "").split("\n\n")
        parts += [f"## `deepcrawl {path}`", "", " ".join(help_text[0].split()), ""]
        parts += ["```text", _usage(path, command), "```", ""]
        parts += [" ".join(p.split()) + "\n" for p in help_text[1:] if p.strip()]
        parts += _params_table(command)
    return "\n".join(parts)


def _fields() -> list[tuple[str, FieldInfo]]:
    from deepcrawl.settings import Settings

    found = []
    for section, holder in Settings.model_fields.items():
        model: Any = holder.annotation
        for key, field in model.model_fields.items():
            found.append((f"{section}.{key}", field))
    return found


def user_settings() -> list[str]:
    """The names (``section.key``) of the settings a user sets, in the model's order."""
    from deepcrawl.settings import for_users

    return [name for name, field in _fields() if for_users(field) is not None]


def _shown_default(field: FieldInfo) -> str:
    from deepcrawl.settings import for_users

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


def _settings_table(names: list[str]) -> list[str]:
    from deepcrawl.settings._sources import plain_text

    fields = dict(_fields())
    lines = ["| setting | default | what it does |", "|---|---|---|"]
    for name in names:
        field = fields[name]
        about = _cell(plain_text(field.description or ""))
        lines.append(f"| `{name}` | {_cell(_shown_default(field))} | {about} |")
    return [*lines, ""]


def settings_markdown() -> str:
    """The settings reference as Markdown: the user settings, then every other setting by
    section, then the old names that are refused with the new one."""
    from deepcrawl import settings as settings_module

    users = user_settings()
    parts = ["## The settings you set", ""]
    parts += [f"These {len(users)} are the ones a user sets: politeness, access, budgets, "
              "storage, output (`deepcrawl settings --user` lists them too).", ""]  # fmt: skip
    parts += _settings_table(users)
    others = [name for name, _ in _fields() if name not in set(users)]
    parts += ["## Tuning knobs", ""]
    parts += [
        f"The other {len(others)} settings tune the crawl's components; their defaults come "
        "from the papers deepcrawl builds on or from measurements (BENCHMARKS.md). Change one "
        "only when a guide or a measurement says why.",
        "",
    ]
    for section in dict.fromkeys(name.split(".")[0] for name in others):
        parts += [f"### `[{section}]`", ""]
        parts += _settings_table([n for n in others if n.split(".")[0] == section])
    renamed: dict[str, str] = getattr(settings_module, "RENAMED", {})
    if renamed:
        parts += ["## Renamed settings", ""]
        parts += ["An old name fails with one line naming the new one:", ""]
        parts += ["| old name | new name |", "|---|---|"]
        parts += [f"| `{old}` | `{new}` |" for old, new in renamed.items()]
        parts.append("")
    return "\n".join(parts)
