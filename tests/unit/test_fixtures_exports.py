"""The fixture package's public API: sorted ``__all__``, every name importable."""

from __future__ import annotations

import importlib

import pytest

PACKAGES = [
    "deepcrawl_fixtures",
    "deepcrawl_fixtures.sites",
    "deepcrawl_fixtures.real",
    "deepcrawl_fixtures.real.apps",
]


def _isort_key(name: str) -> tuple[int, str]:
    """The order ruff (RUF022) keeps: CONSTANTS, then Classes, then functions."""
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_sorted_and_importable(name: str) -> None:
    module = importlib.import_module(name)
    exported = module.__all__
    assert exported == sorted(exported, key=_isort_key)
    for attr in exported:
        assert hasattr(module, attr), attr


def test_contract_names() -> None:
    import deepcrawl_fixtures

    assert {"SITES", "FixtureServer", "build_site", "serve_forever"} <= set(
        deepcrawl_fixtures.__all__
    )
    assert {"books", "shop", "news"} <= set(deepcrawl_fixtures.SITES)
