"""Where settings come from: ``--set`` overrides, and which source gave each value.

The sources, highest priority first (the order :class:`~deepcrawl.settings.Settings` applies):

1. ``flag`` — keyword arguments given in code (the CLI passes its command flags this way);
2. ``--set`` — ``section.key=value`` assignments made for one run (:func:`overridden`);
3. ``environment`` — ``DEEPCRAWL_SECTION__KEY`` variables and the shortcuts ``DEEPCRAWL_DB``,
   ``DEEPCRAWL_CHROMIUM``;
4. the TOML file — ``deepcrawl.toml`` in the working directory, or the one ``DEEPCRAWL_CONFIG``
   names;
5. ``default`` — the values written in the section classes.

A ``--set`` is an explicit choice for this run, so it beats the environment and the file, which
hold standing choices; a command's own flag (``--db``) is more specific still.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    TomlConfigSettingsSource,
)

from deepcrawl.errors import ConfigError
from deepcrawl.settings._base import CONFIG_FILE_ENV, DEFAULT_CONFIG_FILE, RENAMED, for_users
from deepcrawl.userinfo import redact

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping

__all__ = [
    "OverrideSource",
    "SettingOrigin",
    "ShortcutSource",
    "config_file",
    "current_overrides",
    "explain",
    "overridden",
    "parse_assignment",
    "plain_text",
    "renamed",
]

Overrides = dict[str, dict[str, Any]]

#: The ``--set`` assignments of the running command, by section. A context variable: the
#: crawl's asyncio tasks inherit it, and two commands run side by side (tests) do not mix.
_OVERRIDES: ContextVar[Overrides | None] = ContextVar("deepcrawl_settings_overrides", default=None)


def config_file() -> Path:
    """The TOML settings file: ``DEEPCRAWL_CONFIG``, else ``deepcrawl.toml`` here."""
    return Path(os.environ.get(CONFIG_FILE_ENV, DEFAULT_CONFIG_FILE))


def parse_assignment(text: str, settings_cls: type[BaseSettings]) -> tuple[str, str, Any]:
    """Split ``section.key=value`` and check that the setting exists.

    The value stays a string for pydantic to validate (``10`` becomes an int, ``true`` a bool,
    as from an environment variable), except a JSON list or object (``["a", "b"]``), which is
    decoded: the one way to give a list on a command line.

    Raises:
        ConfigError: the text has no ``=``, the setting was renamed (the message names its new
            name), the section or key is unknown (the message names the key and lists the
            valid ones), or a ``[``/``{`` value is not valid JSON.
    """
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise ConfigError(f"--set {text!r}: expected SECTION.KEY=VALUE, e.g. crawl.max_pages=100")
    if name in RENAMED:
        raise ConfigError(f"--set {name}: {renamed(name)}")
    section, dot, key = name.partition(".")
    sections = settings_cls.model_fields
    if not dot or section not in sections:
        raise ConfigError(
            f"--set {name}: no such setting section (sections: {', '.join(sorted(sections))})"
        )
    model = sections[section].annotation
    keys = sorted(getattr(model, "model_fields", {}))
    if key not in keys:
        raise ConfigError(f"--set {name}: no such setting in [{section}] (keys: {', '.join(keys)})")
    parsed: Any = value
    if value.lstrip().startswith(("[", "{")):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"--set {name}: the value is not valid JSON ({exc.msg})") from exc
    return section, key, parsed


@contextlib.contextmanager
def overridden(assignments: Iterable[str], settings_cls: type[BaseSettings]) -> Iterator[None]:
    """Apply ``section.key=value`` assignments to every settings load inside the block.

    Raises:
        ConfigError: an assignment is malformed or names no setting (:func:`parse_assignment`).
    """
    found: Overrides = {}
    for text in assignments:
        section, key, value = parse_assignment(text, settings_cls)
        found.setdefault(section, {})[key] = value
    token = _OVERRIDES.set(found)
    try:
        yield
    finally:
        _OVERRIDES.reset(token)


def renamed(name: str) -> str:
    """What to tell a user who gave a setting by its old name (``section.key``)."""
    return f"this setting was renamed {RENAMED[name]}"


def current_overrides() -> Overrides:
    """The ``--set`` assignments in force, by section (a copy)."""
    return {section: dict(values) for section, values in (_OVERRIDES.get() or {}).items()}


def override_args() -> list[str]:
    """The ``--set`` assignments in force, as arguments of a ``deepcrawl`` child command (a
    bench's crawl, a harvest's worker): the child runs with this process's settings."""
    args = []
    for section, values in sorted(current_overrides().items()):
        for key, value in sorted(values.items()):
            text = json.dumps(value) if isinstance(value, list | dict) else str(value)
            args += ["--set", f"{section}.{key}={text}"]
    return args


class OverrideSource(PydanticBaseSettingsSource):
    """The ``--set`` assignments in force (:func:`overridden`), as a settings source."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        return current_overrides()


class ShortcutSource(PydanticBaseSettingsSource):
    """Single-word environment variables users expect: ``DEEPCRAWL_CHROMIUM``, ``DEEPCRAWL_DB``."""

    SHORTCUTS: ClassVar[dict[str, tuple[str, str]]] = {
        "DEEPCRAWL_CHROMIUM": ("browser", "chromium"),
        "DEEPCRAWL_DB": ("storage", "url"),
    }

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for env, (section, key) in self.SHORTCUTS.items():
            if value := os.environ.get(env):
                found.setdefault(section, {})[key] = value
        return found


@dataclass(frozen=True, slots=True)
class SettingOrigin:
    """One effective setting and the source that gave it (what ``deepcrawl settings`` shows).

    Attributes:
        key: ``section.key``.
        value: the effective value, JSON-ready (a password in a URL is masked).
        source: ``default``, ``file``, ``environment``, ``--set`` or ``flag``.
        detail: the file's path or the variable's name for ``file`` and ``environment``.
        user: whether it is a setting users set (politeness, access, budgets, storage, output),
            not a tuning knob (:class:`~deepcrawl.settings._base.ForUsers`).
        description: what it does (the field's docstring).
    """

    key: str
    value: Any
    source: str
    detail: str = ""
    user: bool = False
    description: str = ""


def explain(
    settings: BaseSettings, flags: Mapping[str, Mapping[str, Any]] | None = None
) -> list[SettingOrigin]:
    """Every setting of ``settings`` with the source its value came from, in key order.

    Args:
        settings: the effective settings (``load_settings(**flags)``).
        flags: the keyword overrides they were loaded with (``None`` values count as not given).
    """
    cls = type(settings)
    path = config_file()
    env = EnvSettingsSource(cls)
    # lowest priority first, as the sources are applied: the last layer giving a key wins
    layers: list[tuple[str, Callable[[str, str], str], Mapping[str, Any]]] = [
        ("file", lambda _s, _k: str(path), _toml(cls, path)),
        ("environment", _env_name(env), env()),
        ("environment", _shortcut_name, ShortcutSource(cls)()),
        ("--set", lambda _s, _k: "", current_overrides()),
        ("flag", lambda _s, _k: "", flags or {}),
    ]
    values = settings.model_dump(mode="json")
    out: list[SettingOrigin] = []
    for section in sorted(values):
        fields = type(getattr(settings, section)).model_fields
        for key in sorted(values[section]):
            source, detail = "default", ""
            for name, describe, layer in layers:
                given = layer.get(section)
                if isinstance(given, dict) and given.get(key) is not None:
                    source, detail = name, describe(section, key)
            value = _masked(values[section][key])
            field = fields[key]
            user = for_users(field) is not None
            about = plain_text(field.description or "")
            out.append(SettingOrigin(f"{section}.{key}", value, source, detail, user, about))
    return out


_ROLE = re.compile(r":[a-z]+:`(?:(?P<text>[^`<]+?) <[^`>]+>|(?P<tilde>~)?(?P<target>[^`]+))`")


def plain_text(docstring: str) -> str:
    """A field's docstring on one line, its reST markup as Markdown code spans (````x```` and
    ``:mod:`a.b``` become ```x``` and ```a.b```; ``:func:`~a.b``` the last name, ```b```)."""
    text = " ".join(docstring.split()).replace("``", "`")

    def role(match: re.Match[str]) -> str:
        name = match["text"] or match["target"]
        return f"`{name.rsplit('.', 1)[-1] if match['tilde'] else name}`"

    return _ROLE.sub(role, text)


def _toml(cls: type[BaseSettings], path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    return TomlConfigSettingsSource(cls, toml_file=path)()


def _env_name(source: EnvSettingsSource) -> Callable[[str, str], str]:
    prefix = source.env_prefix or ""
    delimiter = source.env_nested_delimiter or "__"
    return lambda section, key: f"{prefix}{section}{delimiter}{key}".upper()


def _shortcut_name(section: str, key: str) -> str:
    return next(
        (env for env, where in ShortcutSource.SHORTCUTS.items() if where == (section, key)), ""
    )


def _masked(value: Any) -> Any:
    """A value with the password of every URL in it masked (a database or proxy URL, a
    credential origin may carry one): :func:`deepcrawl.userinfo.redact`."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list | tuple):
        return [_masked(item) for item in value]
    if isinstance(value, dict):
        return {key: _masked(item) for key, item in value.items()}
    return value
