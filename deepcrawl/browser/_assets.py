"""The JavaScript files the browser layer injects, loaded once from the package."""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["script"]


@cache
def script(package: str, name: str) -> str:
    """The text of the asset ``name`` shipped inside ``package`` (``deepcrawl.browser.js``)."""
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")
