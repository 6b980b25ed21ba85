"""Settings for the querying tests, each field given by its name alone: it goes to the section
that has it (``keywords``, ``querying``, ``crawl``)."""

from __future__ import annotations

from typing import Any

from deepcrawl.settings import CrawlSettings, KeywordSettings, QuerySettings, Settings

_SECTIONS = {
    "keywords": KeywordSettings,
    "querying": QuerySettings,
    "crawl": CrawlSettings,
}


def settings_of(**fields: Any) -> Settings:
    """The default settings with ``fields`` set (validated; ``None`` values included)."""
    values: dict[str, dict[str, Any]] = {name: {} for name in _SECTIONS}
    for key, value in fields.items():
        section = next(name for name, cls in _SECTIONS.items() if key in cls.model_fields)
        values[section][key] = value
    base = Settings()
    return base.model_copy(
        update={
            name: _SECTIONS[name].model_validate({**getattr(base, name).model_dump(), **section})
            for name, section in values.items()
            if section
        }
    )
