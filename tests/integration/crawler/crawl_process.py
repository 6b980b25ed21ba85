"""What the tests of a stopped ``deepcrawl crawl`` process share: its arguments, a look into its
SQLite store while it runs or after it ended, and the noise a clean end never leaves on stderr.

Used by ``test_reliability.py`` and ``test_sigint.py`` (a file of its own, as it runs alone).
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

#: What a clean end never leaves on stderr.
NOISE = ("Traceback", "never retrieved", "Exception ignored", "Connection closed")


def crawl_args(server: FixtureServer, db: Path, *args: str) -> list[str]:
    """``crawl`` of ``server``, ``--like`` its first record, stored in the SQLite file ``db``."""
    like = server.truth().detail_paths[0]
    return ["crawl", server.url + "/", "--like", like, "--db", f"sqlite:///{db}", *args]


def query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` in the store ``db``, read-only (none before the crawl has made it)."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return list(conn.execute(sql).fetchall())
    except sqlite3.OperationalError:  # not created yet
        return []


def assert_quiet(stderr: str) -> None:
    """The crawl ended cleanly: none of :data:`NOISE` on its stderr."""
    for noise in NOISE:
        assert noise not in stderr, stderr[-3000:]
