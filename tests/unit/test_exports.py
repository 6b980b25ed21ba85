"""Every package of deepcrawl curates its public API in a sorted ``__all__`` of real names."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import deepcrawl


def _isort_key(name: str) -> tuple[int, str]:
    # ruff's RUF022 order: CONSTANTS, then Classes, then functions and other names.
    if name.isupper():
        return (0, name)
    return (1, name) if name[:1].isupper() else (2, name)


def _packages() -> list[str]:
    names = ["deepcrawl"]
    for info in pkgutil.walk_packages(deepcrawl.__path__, "deepcrawl."):
        if info.ispkg and not info.name.startswith("deepcrawl.cli"):
            names.append(info.name)
    return names


@pytest.mark.parametrize("name", _packages())
def test_package_exports_sorted_existing_names(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{name} has no __all__"
    assert list(exported) == sorted(exported, key=_isort_key), f"{name}.__all__ is unsorted"
    assert len(set(exported)) == len(exported)
    for attr in exported:
        assert hasattr(module, attr), f"{name}.__all__ names missing {attr!r}"


def test_public_modules_have_docstrings() -> None:
    for info in pkgutil.walk_packages(deepcrawl.__path__, "deepcrawl."):
        if info.name.endswith("__main__"):  # importing it runs the CLI
            continue
        module = importlib.import_module(info.name)
        assert module.__doc__, f"{info.name} has no module docstring"
