"""Every default of deepcrawl, in one place.

Settings are grouped in sections, one per component (``browser``, ``http``, ``access``,
``politeness``, ``forms``, ``keywords``, ``querying``, ``prototypes``, ``links``, ``crawl``,
``storage``, ``bench``). Each value is resolved, highest priority first, from:

1. keyword arguments given in code (the CLI passes its flags this way);
2. ``section.key=value`` assignments in force (:func:`overridden`; the CLI's global ``--set``);
3. ``DEEPCRAWL_*`` environment variables, sections joined with a double underscore
   (``DEEPCRAWL_BROWSER__PAGE_TIMEOUT_S=10``, ``DEEPCRAWL_STORAGE__URL=postgresql+psycopg://…``);
4. a TOML file: ``deepcrawl.toml`` in the working directory, or the file named by
   ``DEEPCRAWL_CONFIG`` (sections are TOML tables: ``[browser]``, ``[politeness]`` …);
5. the defaults written below.

:func:`explain_settings` tells which of these gave each value (``deepcrawl settings``).

The few dozen settings a user sets (politeness, access, budgets, storage, output) are marked
``User[...]`` (:class:`~deepcrawl.settings._base.ForUsers`): ``deepcrawl settings --user`` lists
them, and the README's Settings table documents them. The others are the few an operator may
move (a worker's lease, the heartbeat, the browser's tabs). A tuning knob nobody but a developer
would move is no setting: it is a named constant beside the code it tunes (its comment says what
it tunes and why that value, and the paper's section where one applies), or a parameter of the
class that uses it (an estimator's ``__init__``). A setting given by a name it no longer has
(:data:`RENAMED`) fails with a line naming the new one; one that is no setting any more fails as
any unknown setting does, with a line naming it.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from deepcrawl.errors import ConfigError
from deepcrawl.settings._base import QUIET_CHROMIUM_ARGS, RENAMED, ForUsers, for_users
from deepcrawl.settings._sources import (
    OverrideSource,
    SettingOrigin,
    ShortcutSource,
    config_file,
    current_overrides,
    explain,
    override_args,
    renamed,
)
from deepcrawl.settings._sources import overridden as _overridden
from deepcrawl.settings.fetching import (
    AccessSettings,
    BrowserSettings,
    HttpSettings,
    PolitenessSettings,
)
from deepcrawl.settings.learning import LinkLearningSettings, PrototypeSettings
from deepcrawl.settings.querying import FormSettings, KeywordSettings, QuerySettings
from deepcrawl.settings.running import BenchSettings, CrawlSettings, StorageSettings

__all__ = [
    "QUIET_CHROMIUM_ARGS",
    "RENAMED",
    "AccessSettings",
    "BenchSettings",
    "BrowserSettings",
    "CrawlSettings",
    "ForUsers",
    "FormSettings",
    "HttpSettings",
    "KeywordSettings",
    "LinkLearningSettings",
    "PolitenessSettings",
    "PrototypeSettings",
    "QuerySettings",
    "SettingOrigin",
    "Settings",
    "StorageSettings",
    "current_overrides",
    "explain_settings",
    "for_users",
    "load_settings",
    "overridden",
    "override_args",
]

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator


class Settings(BaseSettings):
    """All of deepcrawl's settings; see the module docstring for where values come from."""

    model_config = SettingsConfigDict(
        env_prefix="DEEPCRAWL_",
        env_nested_delimiter="__",
        extra="forbid",
        frozen=True,
    )

    browser: BrowserSettings = BrowserSettings()
    http: HttpSettings = HttpSettings()
    access: AccessSettings = AccessSettings()
    politeness: PolitenessSettings = PolitenessSettings()
    forms: FormSettings = FormSettings()
    keywords: KeywordSettings = KeywordSettings()
    querying: QuerySettings = QuerySettings()
    prototypes: PrototypeSettings = PrototypeSettings()
    links: LinkLearningSettings = LinkLearningSettings()
    crawl: CrawlSettings = CrawlSettings()
    storage: StorageSettings = StorageSettings()
    bench: BenchSettings = BenchSettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (
            init_settings,
            OverrideSource(settings_cls),
            ShortcutSource(settings_cls),
            env_settings,
            TomlConfigSettingsSource(settings_cls, toml_file=config_file()),
        )

    def with_overrides(self, **sections: dict[str, Any]) -> Settings:
        """Return a copy with some section fields replaced, validated like any other source.

        ``settings.with_overrides(storage={"url": "sqlite:///x.db"})``; ``None`` values are
        skipped, so CLI flags that were not given leave the setting alone.
        """
        data = self.model_dump()
        for section, values in sections.items():
            data[section].update({k: v for k, v in values.items() if v is not None})
        try:
            return Settings.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(_describe(exc)) from exc


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"])
        message = error["msg"]
        if error["type"] == "extra_forbidden":
            message = renamed(where) if where in RENAMED else "no such setting"
        parts.append(f"setting {where}: {message}")
    return "; ".join(parts)


def load_settings(**sections: dict[str, Any]) -> Settings:
    """Load settings from every source, with ``sections`` as the highest-priority overrides.

    Raises:
        ConfigError: a value from any source is invalid; the message names the setting.
    """
    try:
        base = Settings()
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from exc
    except (OSError, ValueError) as exc:  # unreadable or malformed TOML file
        raise ConfigError(f"cannot read settings: {exc}") from exc
    return base.with_overrides(**sections) if sections else base


@contextlib.contextmanager
def overridden(assignments: Iterable[str]) -> Iterator[None]:
    """Apply ``section.key=value`` assignments (``--set``) to every settings load in the block.

    They rank below keyword arguments (a command's own flags) and above the environment, the
    TOML file and the defaults. A JSON list or object is decoded (``crawl.like=["/book/1"]``);
    other values are validated as an environment variable's would be.

    Raises:
        ConfigError: an assignment is malformed or names no setting; the message names it.
    """
    with _overridden(assignments, Settings):
        yield


def explain_settings(**sections: dict[str, Any]) -> list[SettingOrigin]:
    """Every effective setting with the source that gave it (``deepcrawl settings``).

    Args:
        sections: the keyword overrides, as for :func:`load_settings`.

    Raises:
        ConfigError: a value from any source is invalid.
    """
    return explain(load_settings(**sections), sections)
