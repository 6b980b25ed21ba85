"""Every default of deepcrawl, in one place.

Settings are grouped in sections, one per component (``browser``, ``http``, ``access``,
``politeness``, ``forms``, ``keywords``, ``prototypes``, ``links``, ``crawl``, ``storage``,
``bench``). Each value is resolved, highest priority first, from:

1. keyword arguments given in code (the CLI passes its flags this way);
2. ``DEEPCRAWL_*`` environment variables, sections joined with a double underscore
   (``DEEPCRAWL_BROWSER__PAGE_TIMEOUT_S=10``, ``DEEPCRAWL_STORAGE__URL=postgresql+psycopg://…``);
3. a TOML file: ``deepcrawl.toml`` in the working directory, or the file named by
   ``DEEPCRAWL_CONFIG`` (sections are TOML tables: ``[browser]``, ``[politeness]`` …);
4. the defaults written below.

Thresholds taken from a paper carry the paper's value as default and name the section in their
docstring.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar

from pydantic import ValidationError
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from deepcrawl.errors import ConfigError
from deepcrawl.settings._base import CONFIG_FILE_ENV, DEFAULT_CONFIG_FILE, QUIET_CHROMIUM_ARGS
from deepcrawl.settings.fetching import (
    AccessSettings,
    BrowserSettings,
    HttpSettings,
    PolitenessSettings,
)
from deepcrawl.settings.learning import LinkLearningSettings, PrototypeSettings
from deepcrawl.settings.querying import FormSettings, KeywordSettings
from deepcrawl.settings.running import BenchSettings, CrawlSettings, StorageSettings

__all__ = [
    "QUIET_CHROMIUM_ARGS",
    "AccessSettings",
    "BenchSettings",
    "BrowserSettings",
    "CrawlSettings",
    "FormSettings",
    "HttpSettings",
    "KeywordSettings",
    "LinkLearningSettings",
    "PolitenessSettings",
    "PrototypeSettings",
    "Settings",
    "StorageSettings",
    "load_settings",
]


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
        toml_file = Path(os.environ.get(CONFIG_FILE_ENV, DEFAULT_CONFIG_FILE))
        return (
            init_settings,
            _ShortcutSource(settings_cls),
            env_settings,
            TomlConfigSettingsSource(settings_cls, toml_file=toml_file),
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


class _ShortcutSource(PydanticBaseSettingsSource):
    """Single-word environment variables users expect: ``DEEPCRAWL_CHROMIUM``, ``DEEPCRAWL_DB``."""

    _SHORTCUTS: ClassVar[dict[str, tuple[str, str]]] = {
        "DEEPCRAWL_CHROMIUM": ("browser", "chromium"),
        "DEEPCRAWL_DB": ("storage", "url"),
    }

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for env, (section, key) in self._SHORTCUTS.items():
            if value := os.environ.get(env):
                found.setdefault(section, {})[key] = value
        return found


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"])
        parts.append(f"setting {where}: {error['msg']}")
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
