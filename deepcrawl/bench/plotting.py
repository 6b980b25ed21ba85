"""The bench's plots: matplotlib's ``pyplot``, drawing to files, or an error naming the extra."""

from __future__ import annotations

from typing import Any

from deepcrawl.errors import ConfigError

__all__ = ["pyplot"]


def pyplot() -> Any:
    """matplotlib's ``pyplot``, drawing to files (the Agg backend: no display needed).

    Raises:
        ConfigError: matplotlib is not installed (``pip install 'deepcrawl[plot]'``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ConfigError("plotting needs matplotlib: pip install 'deepcrawl[plot]'") from exc
    return plt
