"""The JavaScript files the browser layer injects, loaded once from the package."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

__all__ = ["script"]

#: A line ``// @include name.js`` stands for that file of the same package, indented as the
#: line: page scripts are single function expressions, so shared helpers go inside them.
_INCLUDE = re.compile(r"^(?P<indent>[ \t]*)// @include (?P<name>[\w.-]+\.js)[ \t]*$", re.MULTILINE)


@cache
def script(package: str, name: str) -> str:
    """The text of the asset ``name`` shipped inside ``package`` (``deepcrawl.browser.js``),
    with its ``// @include`` lines replaced by the files they name."""
    text = resources.files(package).joinpath(name).read_text(encoding="utf-8")

    def include(match: re.Match[str]) -> str:
        indent = match["indent"]
        lines = script(package, match["name"]).splitlines()
        return "\n".join(indent + line if line else line for line in lines)

    return _INCLUDE.sub(include, text)
