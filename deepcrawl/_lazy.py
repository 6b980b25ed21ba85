"""Lazy re-exports: a package names its public API at once but imports heavy parts on first use.

Used by the packages whose members pull in scikit-learn, nltk or the browser stack, so that
``import deepcrawl.forms`` (or the CLI's ``--help``) stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

__all__ = ["lazy_getattr"]


def lazy_getattr(
    package: str, namespace: dict[str, Any], table: Mapping[str, str]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``table[name]`` (a module path) on first access.

    The value is cached in ``namespace`` (the package's ``globals()``), so each name is imported
    once; unknown names raise ``AttributeError`` as Python expects.
    """

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__
